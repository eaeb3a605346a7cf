package data_test

import (
	"errors"
	"io"
	"testing"

	"github.com/latentree/latentree/data"
)

// fakeBlocks returns n one-row blocks, failing with err at block fail (if
// positive), and counts the calls to Next.
type fakeBlocks struct {
	n, fail, calls int
	err            error
}

func (f *fakeBlocks) Next() (*data.Dataset, error) {
	f.calls++
	if f.calls == f.fail {
		return nil, f.err
	}
	if f.calls > f.n {
		return nil, io.EOF
	}
	vars := []data.Variable{{Name: "x", Kind: data.Discrete, States: []string{"0", "1"}}}
	return data.FromDiscrete(vars, [][]uint16{{uint16(f.calls % 2)}})
}

func (f *fakeBlocks) Names() []string { return []string{"x"} }
func (f *fakeBlocks) Close() error    { return nil }

// TestReadAhead: every block in order; the reader's error and fn's error
// are returned, and reading stops soon after.
func TestReadAhead(t *testing.T) {
	r := &fakeBlocks{n: 50}
	var got []uint16
	if err := data.ReadAhead(r, func(d *data.Dataset) error {
		got = append(got, d.Discrete(0)[0])
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 50 {
		t.Fatalf("%d blocks, want 50", len(got))
	}
	for i, x := range got {
		if x != uint16((i+1)%2) {
			t.Fatalf("block %d out of order", i)
		}
	}
	bad := errors.New("bad block")
	r = &fakeBlocks{n: 50, fail: 7, err: bad}
	seen := 0
	if err := data.ReadAhead(r, func(*data.Dataset) error { seen++; return nil }); !errors.Is(err, bad) || seen != 6 {
		t.Errorf("reader error: got %v after %d blocks, want %v after 6", err, seen, bad)
	}
	stop := errors.New("stop")
	r = &fakeBlocks{n: 50}
	seen = 0
	if err := data.ReadAhead(r, func(*data.Dataset) error {
		seen++
		if seen == 3 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) || r.calls > 5 {
		t.Errorf("fn error: got %v, %d reads, want %v and at most 5 reads", err, r.calls, stop)
	}
}
