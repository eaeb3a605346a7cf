package distance

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkShape checks what a writer needs: valid unique names and m×m entries.
func checkShape(m *Matrix) error {
	if err := checkNames(m.Names); err != nil {
		return err
	}
	n := len(m.Names)
	if len(m.D) != n*n {
		return fmt.Errorf("distance: matrix has %d entries, want %d×%d = %d", len(m.D), n, n, n*n)
	}
	return nil
}

// WriteCSV writes m as CSV: a header row of the names, then m rows of m
// numbers, each the shortest decimal form that reads back exactly, with +Inf
// written as "inf". Names are quoted when needed (RFC 4180), including a
// lone numeric name that ReadMatrix would otherwise take for the start of a
// PHYLIP matrix, so ReadMatrix reads the output back exactly. The entries
// are written as they are: WriteCSV checks only the names and the number of
// entries, not the distances (see Validate).
func WriteCSV(w io.Writer, m *Matrix) error {
	if err := checkShape(m); err != nil {
		return err
	}
	n := len(m.Names)
	// A bufio.Writer keeps its first write error and Flush returns it, so
	// the errors of the writes below are checked once, at Flush.
	bw := bufio.NewWriter(w)
	for i, name := range m.Names {
		if i > 0 {
			bw.WriteByte(',')
		}
		if csvNeedsQuotes(name, i, n) {
			bw.WriteByte('"')
			bw.WriteString(strings.ReplaceAll(name, `"`, `""`))
			bw.WriteByte('"')
		} else {
			bw.WriteString(name)
		}
	}
	bw.WriteByte('\n')
	for i := 0; i < n; i++ {
		for j, x := range m.D[i*n : (i+1)*n] {
			if j > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString(formatFloat(x))
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("distance: writing CSV: %w", err)
	}
	return nil
}

// csvNeedsQuotes reports whether name, the i-th of n header cells, must be
// quoted for ReadMatrix to read it back: when it holds a character that
// separates or quotes cells or lines, or would change how the input is
// recognised.
func csvNeedsQuotes(name string, i, n int) bool {
	if strings.ContainsAny(name, ",;\t\"\r\n") {
		return true
	}
	if i == 0 && strings.HasPrefix(name, "\uFEFF") {
		return true // would be taken for a byte-order mark
	}
	return n == 1 && isUnsigned(name) // would be taken for a PHYLIP header
}

// WritePHYLIP writes m as a square PHYLIP distance matrix: a line holding m,
// then for each variable its name and its m distances. Names of at most 10
// characters are padded to 10, as strict PHYLIP expects; longer names are
// followed by a single space (relaxed PHYLIP) and so must not contain white
// space. Numbers are written as by WriteCSV; an infinite distance is written
// as "inf", which ReadMatrix accepts but the PHYLIP programs do not. The
// entries are not checked (see Validate).
func WritePHYLIP(w io.Writer, m *Matrix) error {
	if err := checkShape(m); err != nil {
		return err
	}
	for _, name := range m.Names {
		if strings.Contains(name, "\n") {
			return fmt.Errorf("distance: name %q contains a line break, which PHYLIP cannot represent", name)
		}
		if utf8.RuneCountInString(name) > strictWidth && strings.IndexFunc(name, unicode.IsSpace) >= 0 {
			return fmt.Errorf("distance: name %q is longer than %d characters and contains white space, which PHYLIP cannot represent", name, strictWidth)
		}
	}
	n := len(m.Names)
	bw := bufio.NewWriter(w) // write errors are returned by Flush, as in WriteCSV
	fmt.Fprintf(bw, "%d\n", n)
	for i, name := range m.Names {
		bw.WriteString(name)
		if pad := strictWidth - utf8.RuneCountInString(name); pad > 0 {
			bw.WriteString(strings.Repeat(" ", pad))
		}
		for _, x := range m.D[i*n : (i+1)*n] {
			bw.WriteByte(' ')
			bw.WriteString(formatFloat(x))
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("distance: writing PHYLIP: %w", err)
	}
	return nil
}
