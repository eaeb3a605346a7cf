package stats

import (
	"math/rand/v2"
	"testing"
)

// packWordCells is packWord cell by cell.
func packWordCells(x []uint16) (one, miss uint64, bad bool) {
	for k, c := range x {
		one |= uint64(c&1) << uint(k)
		miss |= uint64(c>>15) << uint(k)
		bad = bad || c > 1 && c != 0xFFFF
	}
	return one &^ miss, miss, bad
}

// packWord on 64 codes, four at a time, agrees with packing cell by cell
// on codes 0, 1 and Missing and on invalid codes (2, 0x8000, 0xFFFE,
// 0x7FFF, 0x0101) anywhere in the word.
func TestPackWordAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vals := []uint16{0, 1, 0xFFFF, 2, 0x8000, 0xFFFE, 0x7FFF, 0x0101, 3}
	x := make([]uint16, 64)
	for trial := range 20000 {
		for k := range x {
			x[k] = vals[rng.IntN(3)]
		}
		if trial%2 == 1 {
			x[rng.IntN(64)] = vals[3+rng.IntN(len(vals)-3)]
		}
		for _, n := range []int{64, 1 + trial%63} {
			one, miss, bad := packWord(x[:n])
			wOne, wMiss, wBad := packWordCells(x[:n])
			if one != wOne || miss != wMiss || (bad != 0) != wBad {
				t.Fatalf("%v: got %x %x %d, want %x %x %v", x[:n], one, miss, bad, wOne, wMiss, wBad)
			}
		}
	}
}

func BenchmarkPackWord(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]uint16, 1<<16)
	for k := range x {
		x[k] = uint16(rng.IntN(2))
	}
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		var s uint64
		for lo := 0; lo < len(x); lo += 64 {
			one, _, _ := packWord(x[lo : lo+64])
			s += one
		}
		_ = s
	}
}
