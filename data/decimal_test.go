package data

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/latentree/latentree/internal/testenv"
)

// checkDecimal checks that parseDecimal, when it takes s, gives the bits
// strconv.ParseFloat gives.
func checkDecimal(t *testing.T, s string) bool {
	t.Helper()
	got, ok := parseDecimal(s)
	if !ok {
		return false
	}
	want, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Errorf("parseDecimal(%q) = %v, but strconv.ParseFloat refuses it: %v", s, got, err)
	} else if math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("parseDecimal(%q) = %v (%#x), want %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
	}
	return true
}

func TestParseDecimal(t *testing.T) {
	takes := []string{"0", "-0", "+0", "0.0", "-0.000", "1", "-1", "+1", "1.", ".5", "-.5", "1e3", "1E+3", "1e-3",
		"9007199254740993", "9007199254740992", "9007199254740991", "9999999999999999999", "184467440737095516.5",
		"-1.3036872722824084", "0.1", "0.3", "2.2250738585072014e-3", "1.7976931348623157e19",
		"123456789012345678e-19", "0.0000000000000001234", "1e19", "1e-19", "4.35", "0.30000000000000004"}
	for _, s := range takes {
		if !checkDecimal(t, s) {
			t.Errorf("parseDecimal(%q) declined", s)
		}
	}
	for _, s := range []string{"", "-", ".", "e5", "1e", "1e+", "1..2", "1.2.3", "0x10", "1_0", "inf", "NaN", "1 ", " 1", "12345678901234567890", "18446744073709551615", "1e20", "1e-20", "2.2250738585072014e-5", "5e-324e", "1e99999999999"} {
		if _, ok := parseDecimal(s); ok {
			t.Errorf("parseDecimal(%q) taken", s)
		}
	}
	// Random doubles in their shortest and fixed spellings, halfway
	// cases and integers near 2^53 and 2^64: 50,000 draws, 200,000 with
	// LATENTREE_LONG=1 (FuzzParseDecimal, which CI runs, explores
	// further).
	rng := rand.New(rand.NewPCG(3, 25))
	n, draws := 0, testenv.Pick(50000, 200000)
	for range draws {
		x := math.Float64frombits(rng.Uint64())
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		x = math.Ldexp(math.Abs(x)/math.Pow(2, float64(math.Ilogb(x))), rng.IntN(120)-60)
		if rng.IntN(2) == 0 {
			x = -x
		}
		for _, s := range []string{
			strconv.FormatFloat(x, 'g', -1, 64), strconv.FormatFloat(x, 'e', rng.IntN(19), 64),
			strconv.FormatFloat(x, 'f', rng.IntN(12), 64), strconv.FormatFloat(x, 'e', 17+rng.IntN(3), 64),
		} {
			if checkDecimal(t, s) {
				n++
			}
		}
		// A halfway point between two doubles, in decimal.
		lo := math.Abs(x)
		h := strconv.FormatFloat((lo+math.Nextafter(lo, math.Inf(1)))/2, 'e', 18, 64)
		checkDecimal(t, h)
		u := uint64(1)<<53 + rng.Uint64N(1<<12) - 1<<11
		checkDecimal(t, strconv.FormatUint(u, 10))
		checkDecimal(t, strconv.FormatUint(rng.Uint64(), 10))
	}
	if n < 2*draws {
		t.Errorf("parseDecimal took %d of %d spellings", n, 4*draws)
	}
}

func FuzzParseDecimal(f *testing.F) {
	f.Add("1.5")
	f.Add("-0.0001234e-5")
	f.Add("18446744073709551615")
	f.Fuzz(func(t *testing.T, s string) { checkDecimal(t, s) })
}
