package data

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSamplePacked: SamplePacked draws the rows Sample draws (same seed),
// with every kind of column (missing cells, several widths, continuous),
// its Scan gives them at any block size, and it refuses n ≤ 0.
func TestSamplePacked(t *testing.T) {
	d, _, err := ReadCSV(strings.NewReader(packCSV(packRows(3000, 5))), packReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	p := mustPack(t, d)
	for _, n := range []int{1, 17, 1000, 2999} {
		want, err := p.Sample(n, rand.New(rand.NewPCG(uint64(n), 1)))
		if err != nil {
			t.Fatal(err)
		}
		sp, err := p.SamplePacked(n, rand.New(rand.NewPCG(uint64(n), 1)))
		if err != nil {
			t.Fatal(err)
		}
		checkPacked(t, sp, want)
		if err := sp.SetBlockRows(7); err != nil {
			t.Fatal(err)
		}
		checkPacked(t, sp, want)
	}
	if all, err := p.SamplePacked(3000, rand.New(rand.NewPCG(1, 1))); err != nil || all != p {
		t.Errorf("n = rows: %v, want p itself", err)
	}
	if _, err := p.SamplePacked(0, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("n = 0 accepted")
	}
}
