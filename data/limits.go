package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLineBytes is the value ReadOptions.MaxLineBytes takes when it
// is zero: 16 MiB.
const DefaultMaxLineBytes = 16 << 20

// DefaultMaxFieldBytes is the value ReadOptions.MaxFieldBytes takes when it
// is zero: 64 KiB.
const DefaultMaxFieldBytes = 64 << 10

var (
	errInvalidUTF8 = errors.New("invalid UTF-8")
	errNUL         = errors.New("NUL byte in the cell (a binary file, or a file in UTF-16?)")
)

// limits are the resolved size limits of a reader.
type limits struct {
	line  int
	field int
}

func newLimits(opt ReadOptions) (limits, error) {
	l := limits{line: opt.MaxLineBytes, field: opt.MaxFieldBytes}
	if l.line < 0 {
		return l, fmt.Errorf("data: MaxLineBytes is negative (%d)", l.line)
	}
	if l.field < 0 {
		return l, fmt.Errorf("data: MaxFieldBytes is negative (%d)", l.field)
	}
	if l.line == 0 {
		l.line = DefaultMaxLineBytes
	}
	if l.field == 0 {
		l.field = DefaultMaxFieldBytes
	}
	return l, nil
}

// fieldError is the error for a cell of n bytes, longer than the limit.
func (l limits) fieldError(n int) error {
	return fmt.Errorf("cell of %d bytes, longer than the limit of %d (raise it with --max-field-bytes; ReadOptions.MaxFieldBytes)", n, l.field)
}

// lineTooLong is the error of a rowLimiter: the row starting on line Line
// is longer than Max bytes.
type lineTooLong struct {
	Line int
	Max  int
}

func (e *lineTooLong) Error() string {
	return fmt.Sprintf("row longer than %d bytes, the limit (raise it with --max-line-bytes; ReadOptions.MaxLineBytes)", e.Max)
}

// rowLimiter passes CSV text through, failing once a row (up to a line
// break outside quotes, so that a quoted field's line breaks count in its
// row) is longer than max bytes: encoding/csv holds a whole row in memory,
// so without a limit one long line, or a stream without line breaks, would
// exhaust it.
type rowLimiter struct {
	r      io.Reader
	max    int
	run    int  // bytes of the current row so far
	quoted bool // inside quotes
	line   int  // line of the next byte
	start  int  // line where the current row starts
	err    error
}

func newRowLimiter(r io.Reader, max int) *rowLimiter {
	return &rowLimiter{r: r, max: max, line: 1, start: 1}
}

func (l *rowLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	b := p[:n]
	q := -1 // index of the next quote in b at or after i, or len(b)
	for i := 0; i < len(b); {
		if q < i {
			if k := bytes.IndexByte(b[i:], '"'); k >= 0 {
				q = i + k
			} else {
				q = len(b)
			}
		}
		if l.quoted {
			end := min(q+1, len(b))
			l.line += bytes.Count(b[i:end], []byte{'\n'})
			l.run += end - i
			l.quoted = q == len(b)
			i = end
		} else if k := bytes.IndexByte(b[i:q], '\n'); k >= 0 {
			l.run += k
			if l.run > l.max {
				break
			}
			l.line++
			l.start, l.run = l.line, 0
			i += k + 1
			continue
		} else {
			end := min(q+1, len(b))
			l.run += end - i
			l.quoted = q < len(b)
			i = end
		}
		if l.run > l.max {
			break
		}
	}
	if l.run > l.max {
		l.err = &lineTooLong{Line: l.start, Max: l.max}
		// The bytes before the long row are passed on; the reader fails
		// when it asks for more.
		return n, nil
	}
	return n, err
}
