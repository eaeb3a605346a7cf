package distance

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/latentree/latentree/data"
)

// DefaultMaxMatrixBytes is the value ReadOptions.MaxBytes takes when it is
// zero: 1 GiB of text, a matrix of some 10,000 variables.
const DefaultMaxMatrixBytes = 1 << 30

// matrixLimits are the resolved size limits of ReadMatrix.
type matrixLimits struct {
	total       int64
	line, field int
}

func newMatrixLimits(opt ReadOptions) (matrixLimits, error) {
	l := matrixLimits{total: opt.MaxBytes, line: opt.MaxLineBytes, field: opt.MaxFieldBytes}
	switch {
	case l.total < 0:
		return l, fmt.Errorf("distance: MaxBytes is negative (%d)", l.total)
	case l.line < 0:
		return l, fmt.Errorf("distance: MaxLineBytes is negative (%d)", l.line)
	case l.field < 0:
		return l, fmt.Errorf("distance: MaxFieldBytes is negative (%d)", l.field)
	}
	if l.total == 0 {
		l.total = DefaultMaxMatrixBytes
	}
	if l.line == 0 {
		l.line = data.DefaultMaxLineBytes
	}
	if l.field == 0 {
		l.field = data.DefaultMaxFieldBytes
	}
	return l, nil
}

// readLimited reads r to its end, failing as soon as the input is longer
// than l.total bytes or a line longer than l.line, so that endless input
// (a stream of zeros, or of short lines) takes bounded memory.
func readLimited(r io.Reader, l matrixLimits, src source) ([]byte, error) {
	var (
		out  []byte
		buf  = make([]byte, 64<<10)
		line = 1 // line of the next byte
		run  = 0 // bytes of the current line so far
	)
	for {
		n, err := r.Read(buf)
		b := buf[:n]
		if int64(len(out))+int64(n) > l.total {
			return nil, fmt.Errorf("distance: %s: input longer than %d bytes, the limit (ReadOptions.MaxBytes)", srcName(src), l.total)
		}
		for len(b) > 0 {
			k := bytes.IndexByte(b, '\n')
			if k < 0 {
				run += len(b)
				b = nil
			} else {
				run += k
				b = b[k+1:]
			}
			if run > l.line {
				return nil, src.at(line).errorf("line longer than %d bytes, the limit (raise it with --max-line-bytes; ReadOptions.MaxLineBytes)", l.line)
			}
			if k >= 0 {
				line++
				run = 0
			}
		}
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			if src == "" {
				return nil, fmt.Errorf("distance: reading: %w", err)
			}
			return nil, fmt.Errorf("distance: reading %s: %w", src, err)
		}
	}
}

func srcName(src source) string {
	if src == "" {
		return "input"
	}
	return string(src)
}

// fieldError is the error for a cell longer than the limit.
func (l matrixLimits) fieldError(at lineRef, n int) error {
	return at.errorf("cell of %d bytes, longer than the limit of %d (raise it with --max-field-bytes; ReadOptions.MaxFieldBytes)", n, l.field)
}

// checkFields returns an error for the first white-space-separated word of
// a PHYLIP line longer than the field limit.
func (l matrixLimits) checkFields(at lineRef, line string) error {
	if len(line) <= l.field {
		return nil
	}
	for _, w := range strings.Fields(line) {
		if len(w) > l.field {
			return l.fieldError(at, len(w))
		}
	}
	return nil
}
