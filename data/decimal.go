package data

import (
	"math"
	"math/bits"
)

// pow10u are the powers of ten that fit in a uint64.
var pow10u = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// pow5u are the powers of five that fit in a uint64: 10^k is 5^k·2^k.
var pow5u = func() (p [28]uint64) {
	p[0] = 1
	for k := 1; k < len(p); k++ {
		p[k] = 5 * p[k-1]
	}
	return p
}()

// signOf is, for a leading byte, its length as a sign (bit 0) and whether
// it is a minus sign (bit 1).
var signOf = [256]uint8{'+': 1, '-': 3}

// parseDecimal parses the common spellings of numbers in data files, an
// optional sign, decimal digits with at most one point, and an optional
// exponent, when the significant digits fit in a uint64 and the decimal
// exponent is at most 27 in size; it reports false for anything else,
// which strconv.ParseFloat then parses. The result is the float64 nearest
// the decimal value (ties to even), as strconv.ParseFloat gives it: the
// quotient or product of the digits and a power of five (10^k is 5^k·2^k,
// and the 2^k goes to the binary exponent) is computed exactly in 128 bits
// and rounded once.
func parseDecimal(s string) (float64, bool) {
	f, n, ok := decimalPrefix(s)
	return f, ok && n == len(s)
}

// decimalPrefix is parseDecimal of the longest prefix of s in its syntax
// (sign, digits with at most one point, exponent), and the prefix's
// length; ok is false where parseDecimal of the prefix would be.
func decimalPrefix(s string) (f float64, n int, ok bool) {
	// The sign, without a branch: it is as often + as -.
	i, neg := 0, uint64(0)
	if len(s) > 0 {
		v := signOf[s[0]]
		i, neg = int(v&1), uint64(v>>1)
	}
	var m uint64
	sig, exp := 0, 0
	// The integer digits, then the fraction's: every fraction digit
	// lowers the exponent.
	start := i
	if i+1 < len(s) && s[i+1] == '.' && s[i]-'0' <= 9 {
		// One integer digit, the most common case, without digitRun.
		m = uint64(s[i] - '0')
		sig = int(nonzero(m))
		i++
	} else if i, m, sig, ok = digitRun(s, i, m, sig); !ok {
		return 0, 0, false
	}
	digits := i - start
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		if i, m, sig, ok = digitRun(s, i, m, sig); !ok {
			return 0, 0, false
		}
		exp -= i - start
		digits += i - start
		if i < len(s) && s[i] == '.' {
			return 0, 0, false
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		e, ed := 0, 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if e > 1000 {
				return 0, 0, false
			}
			e = e*10 + int(s[i]-'0')
			ed++
		}
		if ed == 0 {
			return 0, 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	n = i
	if m == 0 {
		return math.Float64frombits(neg << 63), n, true
	}
	// The branches below on the digits (which of a and dn is larger, the
	// rounding) are left to arithmetic: they go either way at random.
	var q uint64      // the value's leading 64 bits, top bit set
	var e2 int        // the value is q·2^e2, and more if sticky is 1
	var sticky uint64 // 1 if the value is more than q·2^e2, else 0
	switch {
	case exp >= 0 && exp < len(pow5u):
		hi, lo := bits.Mul64(m, pow5u[exp])
		if hi == 0 {
			lz := bits.LeadingZeros64(lo)
			q, e2 = lo<<lz, exp-lz
		} else {
			lz := bits.LeadingZeros64(hi)
			q, e2 = hi<<lz|lo>>(64-lz), exp+64-lz
			if lz == 0 {
				q = hi
			}
			sticky = nonzero(lo << lz)
		}
	case exp < 0 && -exp < len(pow5u):
		d := pow5u[-exp]
		la, ld := bits.LeadingZeros64(m), bits.LeadingZeros64(d)
		a, dn := m<<la, d<<ld
		// a·2^64/dn if a < dn, else a·2^63/dn: the quotient has its top
		// bit set either way (up is 1 in the second case: a-dn is then
		// below 2^63, and above it in the first).
		up := (a-dn)>>63 ^ 1
		var r uint64
		q, r = bits.Div64(a>>up, a<<(64-up), dn)
		e2 = exp + ld - la - 64 + int(up)
		sticky = nonzero(r)
	default:
		return 0, 0, false
	}
	// Round q to 53 bits, ties to even: up when the rest is more than
	// half (0x400, or 0x400 and sticky, which sets the rest's bit 0) or
	// half and mant odd.
	mant, rest := q>>11, q&0x7ff|sticky
	mant += (rest + 0x3ff + mant&1) >> 11
	if mant == 1<<53 {
		mant >>= 1
		e2++
	}
	// mant·2^(e2+11), mant in [2^52, 2^53): a normal float64 whose biased
	// exponent is e2+11+52+1023, built from its bits.
	be := e2 + 11 + 52 + 1023
	if be < 1 || be > 2046 {
		return 0, 0, false
	}
	b := neg<<63 | uint64(be)<<52 | mant&(1<<52-1)
	return math.Float64frombits(b), n, true
}

// nonzero is 1 if x is not 0, else 0.
func nonzero(x uint64) uint64 {
	return (x | -x) >> 63
}

// digitRun reads the digits of s from i on into the mantissa m, of which
// sig digits are significant (leading zeros are not), and returns the
// index after them; ok is false past 19 significant digits. Past the
// leading zeros it reads up to 8 digits at a time while 8 bytes are left,
// then the last ones one by one.
func digitRun(s string, i int, m uint64, sig int) (int, uint64, int, bool) {
	if m == 0 {
		for i < len(s) && s[i] == '0' {
			i++
		}
	}
	// From here on every digit is significant.
	for i+8 <= len(s) {
		b := s[i : i+8]
		// The 8 bytes as a little-endian word: the first is the lowest.
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		// x holds the digits' values. A byte below '0' sets its top bit
		// in x (and may borrow from the byte above it, past the first
		// non-digit); a byte above '9' sets it in w+0x46 (0x3a+0x46 =
		// 0x80), or in x if it is 0x80 or more. The lowest top bit set is
		// the first non-digit's: the digits below it neither borrow nor
		// carry.
		x := w - '0'*ones8
		k := bits.TrailingZeros64((x|(w+0x46*ones8))&(0x80*ones8)) >> 3 // 8 if none
		if k == 0 {
			return i, m, sig, true
		}
		if sig+k > 19 {
			return i, m, sig, false
		}
		// The k digits moved to the top bytes (the bytes below them are
		// then leading zeros of an 8-digit number), then combined in
		// pairs into 16-bit lanes, those in pairs into 32-bit lanes, and
		// those two: the more significant digit is in the lower byte.
		x <<= 64 - 8*uint(k)
		x = (x*10 + x>>8) & 0x00ff00ff00ff00ff
		x = (x*100 + x>>16) & 0x0000ffff0000ffff
		x = (x*10000 + x>>32) & 0xffffffff
		m = m*pow10u[k] + x
		sig += k
		i += k
		if k < 8 {
			return i, m, sig, true
		}
	}
	for ; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			break
		}
		// Not a leading zero: those were skipped, and m > 0 after the
		// loop above.
		if sig == 19 {
			return i, m, sig, false
		}
		sig++
		m = m*10 + uint64(d)
	}
	return i, m, sig, true
}

// ones8 has a 1 in each byte.
const ones8 = 0x0101010101010101
