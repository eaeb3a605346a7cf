package distance

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// endless repeats a pattern; past stop bytes it fails, so that a reader
// without limits fails the test instead of exhausting memory.
type endless struct {
	pat  []byte
	off  int
	n    int
	stop int
}

var errPastStop = errors.New("read past the test's stop")

func (e *endless) Read(p []byte) (int, error) {
	if e.n >= e.stop {
		return 0, errPastStop
	}
	for i := range p {
		p[i] = e.pat[e.off]
		e.off = (e.off + 1) % len(e.pat)
	}
	e.n += len(p)
	return len(p), nil
}

// Endless input is refused once it passes a limit, with memory bounded by
// that limit: a stream without line breaks (latentree learn
// --distance-matrix - < /dev/zero) by MaxLineBytes, one of short lines by
// MaxBytes; a long cell, CSV or PHYLIP, by MaxFieldBytes.
func TestReadMatrixLimits(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *endless
		opt  ReadOptions
		want string
		lim  uint64
	}{
		{"zeros", &endless{pat: []byte{0}, stop: 64 << 20}, ReadOptions{Name: "-"}, "-:1: line longer than 16777216 bytes", 16 << 20},
		{"short lines", &endless{pat: []byte("a,b\n"), stop: 64 << 20}, ReadOptions{MaxBytes: 8 << 20}, "input longer than 8388608 bytes", 8 << 20},
		{"phylip lines", &endless{pat: []byte("3\n"), stop: 64 << 20}, ReadOptions{Name: "m.phy", MaxBytes: 1 << 20}, "m.phy: input longer than 1048576 bytes", 1 << 20},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ReadMatrix(c.r, c.opt)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		// Allocation is bounded by the limit: the bytes kept, with the
		// copies of a growing slice, stay under 8 times it.
		if a := after.TotalAlloc - before.TotalAlloc; a > 8*c.lim {
			t.Errorf("%s: %d bytes allocated, more than 8 × the limit of %d", c.name, a, c.lim)
		}
	}
	long := strings.Repeat("x", 100)
	for _, c := range []struct{ in, want string }{
		{",a," + long + "\na,0,1\n" + long + ",1,0\n", "line 1: cell of 100 bytes"},
		{"2\na 0 1\n" + long + " 1 0\n", "line 3: cell of 100 bytes"},
	} {
		_, err := ReadMatrix(strings.NewReader(c.in), ReadOptions{MaxFieldBytes: 99})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.20q: error %v, want %q", c.in, err, c.want)
		}
		if _, err := ReadMatrix(strings.NewReader(c.in), ReadOptions{MaxFieldBytes: 100}); err != nil {
			t.Errorf("%.20q at the limit: %v", c.in, err)
		}
	}
	for _, opt := range []ReadOptions{{MaxBytes: -1}, {MaxLineBytes: -1}, {MaxFieldBytes: -1}} {
		if _, err := ReadMatrix(strings.NewReader("1\na 0\n"), opt); err == nil {
			t.Errorf("%+v: no error", opt)
		}
	}
}
