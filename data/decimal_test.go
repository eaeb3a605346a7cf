package data

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
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
		"123456789012345678e-19", "0.0000000000000001234", "1e19", "1e-19", "4.35", "0.30000000000000004",
		"9.", "0.", "-0.e5", "+7.e2", "3.1e-18", "-9.000000000000000001", "0.1234567890123456789", "0.0e-3",
		"1e20", "1e-20", "2.2250738585072014e-5", "-0.00035346489047682894", "6.403721847320076e-06", "1e27", "1e-27",
		"9999999999999999999e27", "1234567890123456789e-27", "2.2250738585072014e-11", "-4.9406564584124654e8"}
	for _, s := range takes {
		if !checkDecimal(t, s) {
			t.Errorf("parseDecimal(%q) declined", s)
		}
	}
	for _, s := range []string{"", "-", ".", "e5", "1e", "1e+", "1..2", "1.2.3", "0x10", "1_0", "inf", "NaN", "1 ", " 1", "12345678901234567890", "18446744073709551615", "1e28", "1e-28", "2.2250738585072014e-12", "5e-324e", "1e99999999999"} {
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

// TestParseDecimalHalfway checks parseDecimal near the points halfway
// between two doubles, where the rounding turns on the last bits of the
// quotient or product and on whether anything is left below them: each
// halfway point (exact, from math/big) spelled with 19 significant digits
// (just above or below it) and with 17 and 18. (The halfway cases of
// TestParseDecimal are doubles, as float64 arithmetic rounds them.)
func TestParseDecimalHalfway(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	n := 0
	for range 20000 {
		x := math.Ldexp(1+rng.Float64(), rng.IntN(140)-30) // 1e-9 to 1e33: decimal exponents -27 to 17
		h := new(big.Float).SetPrec(200).SetFloat64(x)
		h.Add(h, new(big.Float).SetPrec(200).SetFloat64((math.Nextafter(x, math.Inf(1))-x)/2))
		for _, digits := range []int{16, 17, 18} {
			if checkDecimal(t, h.Text('e', digits)) {
				n++
			}
		}
	}
	if n < 50000 {
		t.Errorf("parseDecimal took %d of 60000 spellings", n)
	}
}

// digitRunByDigit is digitRun one digit at a time, as it was before it
// read 8 at a time: the reference for TestDigitRun.
func digitRunByDigit(s string, i int, m uint64, sig int) (int, uint64, int, bool) {
	for ; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			break
		}
		if m == 0 && d == 0 {
			continue
		}
		if sig == 19 {
			return i, m, sig, false
		}
		sig++
		m = m*10 + uint64(d)
	}
	return i, m, sig, true
}

// checkDigitRun checks digitRun(s, i, m, sig) against digitRunByDigit:
// the same ok and, when ok, the same index, mantissa and digit count.
func checkDigitRun(t *testing.T, s string, i int, m uint64, sig int) {
	t.Helper()
	gi, gm, gsig, gok := digitRun(s, i, m, sig)
	wi, wm, wsig, wok := digitRunByDigit(s, i, m, sig)
	if gok != wok || wok && (gi != wi || gm != wm || gsig != wsig) {
		t.Errorf("digitRun(%q, %d, %d, %d) = %d, %d, %d, %v, want %d, %d, %d, %v", s, i, m, sig, gi, gm, gsig, gok, wi, wm, wsig, wok)
	}
}

// TestDigitRun checks the 8-digits-at-a-time reading of digitRun at its
// edges: leading zeros (not significant, so not counted), exactly 19
// significant digits and a 20th, a non-digit at each of the 8 positions
// (bytes next to '0' and '9', '.', 'e', ',', bytes of 0x80 and more),
// runs ending with the string at every length, and a start with digits
// already read.
func TestDigitRun(t *testing.T) {
	for _, s := range []string{
		"", "0", "00000000", "000000000000000000000000", "00000000x", "0000000012345678", "000000001234567890123456789",
		"00000000000000000001", "0000000000000000000012345678901234567890",
		"1234567890123456789", "12345678901234567890", "1234567890123456789,", "12345678901234567890,",
		"9999999999999999999", "99999999999999999999", "10000000000000000000", "1000000000000000000",
		"12345678", "123456789", "1234567", "87654321.", "1.2345678901234567", "1234.5678901", "123e4567,",
	} {
		checkDigitRun(t, s, 0, 0, 0)
	}
	// A non-digit at each position of the first and the second 8 bytes.
	for _, x := range []byte{'/', ':', '.', 'e', 'E', ',', ' ', '+', '-', 0, 0x7f, 0x80, 0xb0, 0xba, 0xc6, 0xff} {
		for p := range 16 {
			b := []byte("1234567890123456789012")
			b[p] = x
			checkDigitRun(t, string(b), 0, 0, 0)
			b[0] = '0' // a leading zero first
			checkDigitRun(t, string(b), 0, 0, 0)
		}
	}
	// Digits to the end of the string, at every length, after leading
	// zeros or not.
	for n := range 24 {
		digits := strings.Repeat("7", n)
		checkDigitRun(t, digits, 0, 0, 0)
		checkDigitRun(t, "000"+digits, 0, 0, 0)
		checkDigitRun(t, "x"+digits, 1, 0, 0)
		checkDigitRun(t, digits+"5", 0, 0, 0)
	}
	// A run after digits already read (the fraction after the integer
	// part), so that the 19 digits are reached within the 8 bytes.
	for sig := 0; sig <= 19; sig++ {
		m := uint64(0)
		if sig > 0 {
			m = pow10u[sig-1] + 3
		}
		for n := range 21 {
			checkDigitRun(t, strings.Repeat("1", n)+".", 0, m, sig)
			checkDigitRun(t, "0000"+strings.Repeat("9", n), 0, m, sig)
		}
	}
	// Random strings of digits with a few other bytes.
	rng := rand.New(rand.NewPCG(8, 8))
	const alphabet = "00000123456789999.e,-"
	for range 20000 {
		b := make([]byte, rng.IntN(30))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		sig := rng.IntN(20)
		m := uint64(0)
		if sig > 0 {
			m = pow10u[sig-1] + rng.Uint64N(pow10u[sig-1])
		}
		checkDigitRun(t, string(b), 0, m, sig)
		checkDigitRun(t, string(b), 0, 0, 0)
	}
	// The same edges through parseDecimal, against strconv.ParseFloat.
	for _, s := range []string{
		"0.00000000123456789", "00000000.12345678", "0000000000000000000012345678", "1234567890123456789",
		"0.1234567890123456789", "123456789.0123456789", "1234567890.123456789", "-00000001234567890123456789e-5",
		"12345678.12345678e-3", "1234567e1", "1234567.8", "0.12345678", "0.000000012345678901", "87654321.000",
		"1.2345678901234567e-3", "98765432109876543.21", "12345678e19", "7777777.7777777e-7",
	} {
		if !checkDecimal(t, s) {
			t.Errorf("parseDecimal(%q) declined", s)
		}
	}
	for _, s := range []string{"12345678901234567890", "1234567890.1234567890", "0.12345678901234567890", "1234567890123456789.0", "12345678.1234567.8"} {
		if _, ok := parseDecimal(s); ok {
			t.Errorf("parseDecimal(%q) taken", s)
		}
	}
}

func FuzzParseDecimal(f *testing.F) {
	f.Add("1.5")
	f.Add("-0.0001234e-5")
	f.Add("18446744073709551615")
	f.Fuzz(func(t *testing.T, s string) { checkDecimal(t, s) })
}

// BenchmarkParseDecimal parses 8,000 shortest spellings of standard
// normal draws (as in BenchmarkReadCSVGaussian), mostly 16-17 digits.
func BenchmarkParseDecimal(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	cells := make([]string, 8000)
	n := 0
	for i := range cells {
		cells[i] = strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64)
		n += len(cells[i])
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, s := range cells {
			if _, ok := parseDecimal(s); !ok {
				b.Fatal(s)
			}
		}
	}
}
