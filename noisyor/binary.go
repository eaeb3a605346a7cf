package noisyor

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/latentree/latentree/data"
)

// Binary is a binary dataset packed 64 rows to a word, the form the
// quartet learner (noisyor/quartetlearn), EM and the likelihoods count
// from.
type Binary struct {
	// Names are the effects' names, in the dataset's column order.
	Names []string
	// Rows is the number of rows.
	Rows int
	// Ones[a] has bit r set when effect a is 1 in row r.
	Ones [][]uint64
	// Zeros[a] has bit r set when effect a is 0 in row r (observed and 0).
	Zeros [][]uint64
	// Missing counts the missing cells of each effect.
	Missing []int
}

// State labels read as 0 and as 1 (compared case-insensitively).
var (
	zeroLabels = []string{"0", "false", "no", "f", "n", "0.0"}
	oneLabels  = []string{"1", "true", "yes", "t", "y", "1.0"}
)

// binaryCode returns 0 or 1 for a state label, or -1.
func binaryCode(label string) int {
	l := strings.ToLower(strings.TrimSpace(label))
	for _, z := range zeroLabels {
		if l == z {
			return 0
		}
	}
	for _, o := range oneLabels {
		if l == o {
			return 1
		}
	}
	return -1
}

// NewBinary packs d, whose columns must all be discrete with states
// labelled 0/1 (also false/true, no/yes). Missing cells are kept as neither
// 0 nor 1; the learner and the likelihoods marginalise them. A column with
// a state that is not binary is an error naming the column and the value.
func NewBinary(d *data.Dataset) (*Binary, error) {
	if d == nil {
		return nil, errors.New("noisyor: nil dataset")
	}
	m, rows := d.NumVars(), d.NumRows()
	words := (rows + 63) / 64
	b := &Binary{Names: d.Names(), Rows: rows, Ones: make([][]uint64, m), Zeros: make([][]uint64, m), Missing: make([]int, m)}
	for a := range m {
		v := d.Var(a)
		if v.Kind != data.Discrete {
			return nil, fmt.Errorf("noisyor: column %q is continuous; noisy-or effects are binary (0/1)", v.Name)
		}
		code := make([]int, len(v.States))
		for s, label := range v.States {
			code[s] = binaryCode(label)
			if code[s] < 0 {
				return nil, fmt.Errorf("noisyor: column %q has value %q; noisy-or effects are binary (0/1, false/true, no/yes)", v.Name, label)
			}
		}
		ones, zeros := make([]uint64, words), make([]uint64, words)
		for r, c := range d.Discrete(a) {
			if c == data.Missing {
				b.Missing[a]++
				continue
			}
			if int(c) >= len(code) {
				return nil, fmt.Errorf("noisyor: column %q row %d has invalid state code %d", v.Name, r+1, c)
			}
			if code[c] == 1 {
				ones[r>>6] |= 1 << (r & 63)
			} else {
				zeros[r>>6] |= 1 << (r & 63)
			}
		}
		b.Ones[a], b.Zeros[a] = ones, zeros
	}
	return b, nil
}

// NumEffects returns the number of effects.
func (b *Binary) NumEffects() int { return len(b.Names) }

// HasMissing reports whether any cell is missing.
func (b *Binary) HasMissing() bool {
	for _, k := range b.Missing {
		if k > 0 {
			return true
		}
	}
	return false
}

// Value returns the value of effect a in row r: 0, 1, or -1 when missing.
func (b *Binary) Value(a, r int) int {
	w, bit := r>>6, uint64(1)<<(r&63)
	switch {
	case b.Ones[a][w]&bit != 0:
		return 1
	case b.Zeros[a][w]&bit != 0:
		return 0
	}
	return -1
}

// CountOnes returns the number of rows where effect a is 1.
func (b *Binary) CountOnes(a int) int {
	s := 0
	for _, w := range b.Ones[a] {
		s += bits.OnesCount64(w)
	}
	return s
}

// CountZeros returns the number of rows where effect a is 0.
func (b *Binary) CountZeros(a int) int {
	s := 0
	for _, w := range b.Zeros[a] {
		s += bits.OnesCount64(w)
	}
	return s
}
