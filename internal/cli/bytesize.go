package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// byteSize is a flag of a number of bytes: an integer with an optional
// unit, B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of
// 1024), any case, e.g. 64KiB, 16MiB, 4GiB, 1e9. Zero leaves the library's
// default.
type byteSize int64

func (b *byteSize) String() string {
	if *b == 0 {
		return "0"
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Type() string { return "bytes" }

var byteUnits = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
	{"b", 1},
}

func (b *byteSize) Set(s string) error {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	v := f * mult
	if err != nil || math.IsNaN(v) || v < 1 || v > math.MaxInt64/2 || v != math.Trunc(v) {
		return fmt.Errorf("want a positive whole number of bytes, with an optional unit (64KiB, 16MiB, 4GiB, 1e9)")
	}
	*b = byteSize(v)
	return nil
}
