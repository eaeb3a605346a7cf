package data

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WriteCSV writes d as comma-separated text: a header of variable names,
// then one line per row with the state labels of discrete variables and
// the shortest exact decimal form of continuous values. Missing cells are
// written as empty fields. Fields are quoted when needed.
//
// ReadCSV with MissingKeep and the kinds of d forced reads the output back
// as d, provided the states of each discrete variable are all used, are
// ordered as ReadCSV orders them, and neither names nor labels have leading
// or trailing white space or are missing tokens. A state label that is
// empty after trimming white space is an error, since it would read back as
// missing.
func WriteCSV(w io.Writer, d *Dataset) error {
	if d == nil {
		return errors.New("data: WriteCSV: nil dataset")
	}
	for _, v := range d.vars {
		for _, s := range v.States {
			if strings.TrimSpace(s) == "" {
				return fmt.Errorf("data: WriteCSV: variable %q has an empty state label, which would read back as missing", v.Name)
			}
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	single := len(d.vars) == 1
	var buf []byte
	for j, v := range d.vars {
		if j > 0 {
			buf = append(buf, ',')
		}
		buf = appendField(buf, v.Name, single)
	}
	buf = append(buf, '\n')
	for i := 0; i < d.rows; i++ {
		for j, v := range d.vars {
			if j > 0 {
				buf = append(buf, ',')
			}
			if dc := d.disc[j]; dc != nil {
				code := dc[i]
				if code == Missing {
					buf = appendField(buf, "", single)
				} else if int(code) < len(v.States) {
					buf = appendField(buf, v.States[code], single)
				} else {
					return fmt.Errorf("data: WriteCSV: row %d, variable %q: state code %d out of range (%d states)", i+1, v.Name, code, len(v.States))
				}
				continue
			}
			x := d.cont[j][i]
			switch {
			case math.IsNaN(x):
				buf = appendField(buf, "", single)
			case math.IsInf(x, 0):
				return fmt.Errorf("data: WriteCSV: row %d, variable %q: infinite value", i+1, v.Name)
			default:
				buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
			}
		}
		buf = append(buf, '\n')
		if len(buf) >= 32<<10 {
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

// appendField appends s to buf as a CSV field, quoted if needed. An empty
// field is quoted when it is the only field of a line, since encoding/csv
// skips empty lines.
func appendField(buf []byte, s string, single bool) []byte {
	if s == "" {
		if single {
			return append(buf, `""`...)
		}
		return buf
	}
	// ';' and '|' are quoted too: a header with one of them outside quotes
	// (and no comma) would be read back as delimited by it.
	quote := strings.ContainsAny(s, ",;|\"\r\n\t") || strings.HasPrefix(s, "\ufeff")
	if !quote {
		r0, _ := utf8.DecodeRuneInString(s)
		r1, _ := utf8.DecodeLastRuneInString(s)
		quote = isSpace(r0) || isSpace(r1)
	}
	if !quote {
		return append(buf, s...)
	}
	buf = append(buf, '"')
	for k := 0; k < len(s); k++ {
		if s[k] == '"' {
			buf = append(buf, '"')
		}
		buf = append(buf, s[k])
	}
	return append(buf, '"')
}

// isSpace reports whether strings.TrimSpace would remove r.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || ('\t' <= r && r <= '\r')
	}
	return unicode.IsSpace(r)
}
