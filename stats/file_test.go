package stats

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
)

func encode(t testing.TB, s *Stats) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteBinary(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestBinaryRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for _, tc := range []struct {
		name string
		sp   []colSpec
		opt  Options
	}{
		{"mixed", specs(9, []int{2, 0, 5, 2}, []float64{0, 0.3}), Options{}},
		{"mixed no pairs", specs(9, []int{2, 0, 5, 2}, []float64{0, 0.3}), Options{NoPairs: true}},
		{"discrete", specs(6, []int{2, 3}, []float64{0.1}), Options{}},
		{"continuous", specs(5, []int{0}, []float64{0, 0.2}), Options{}},
	} {
		d := randDataset(t, rng, 400, tc.sp)
		s := mustCompute(t, d, tc.opt)
		b := encode(t, s)
		if !IsBinary(b) {
			t.Errorf("%s: IsBinary false", tc.name)
		}
		r, err := ReadBinary(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sameStats(t, r, s, 0)
		if !tc.opt.NoPairs {
			checkNaive(t, d, r)
		}
		// Exact: the same bytes again, and the same JSON.
		if !bytes.Equal(encode(t, r), b) {
			t.Errorf("%s: second encoding differs", tc.name)
		}
		j1, _ := s.MarshalJSON()
		j2, _ := r.MarshalJSON()
		if !bytes.Equal(j1, j2) {
			t.Errorf("%s: JSON of the read statistics differs", tc.name)
		}
		// Compact: well under the JSON size.
		if len(b) > len(j1)/2 {
			t.Errorf("%s: binary %d bytes, JSON %d", tc.name, len(b), len(j1))
		}
	}
	// Empty statistics and statistics without rows.
	var z Stats
	r, err := ReadBinary(bytes.NewReader(encode(t, &z)))
	if err != nil || r.NumVars() != 0 || r.Rows() != 0 {
		t.Errorf("empty round trip: %v", err)
	}
	d := randDataset(t, rng, 0, specs(3, []int{2, 0}, []float64{0}))
	s := mustCompute(t, d, Options{})
	if r, err := ReadBinary(bytes.NewReader(encode(t, s))); err != nil {
		t.Errorf("no rows: %v", err)
	} else {
		sameStats(t, r, s, 0)
	}
}

// TestBinaryMerge: merging statistics read from files equals merging them
// in memory, bit for bit, and equals computing on the concatenation.
func TestBinaryMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	const rows = 2000
	u := mergeUniverse(t, rng, rows)
	p := u.NumVars()
	ident := make([]int, p)
	for j := range ident {
		ident[j] = j
	}
	cuts := []int{0, 700, 1300, rows}
	var mem, file Stats
	for k := 0; k+1 < len(cuts); k++ {
		perm := ident
		if k > 0 {
			perm = rng.Perm(p)
		}
		sh := mustCompute(t, shard(t, rng, u, cuts[k], cuts[k+1], perm), Options{})
		if err := mem.Merge(sh); err != nil {
			t.Fatal(err)
		}
		r, err := ReadBinary(bytes.NewReader(encode(t, sh)))
		if err != nil {
			t.Fatal(err)
		}
		if err := file.Merge(r); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(encode(t, &mem), encode(t, &file)) {
		t.Error("merge of read files differs from merge in memory")
	}
	sameStats(t, &file, mustCompute(t, u, Options{}), 1e-12)
}

// reseal recomputes the checksum of an encoding after its content was
// changed on purpose.
func reseal(b []byte) []byte {
	b = append([]byte(nil), b...)
	if len(b) < headerSize+4 {
		return b
	}
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], crc32.Checksum(b[:n], castagnoli))
	return b
}

func TestBinaryErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	d := randDataset(t, rng, 300, specs(6, []int{2, 0, 3}, []float64{0, 0.2}))
	good := encode(t, mustCompute(t, d, Options{}))
	read := func(b []byte) error {
		s, err := ReadBinary(bytes.NewReader(b))
		if err == nil && s == nil {
			t.Fatal("nil statistics without error")
		}
		return err
	}
	expect := func(name string, b []byte, want string) {
		t.Helper()
		err := read(b)
		if err == nil {
			t.Errorf("%s: accepted", name)
			return
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not mention %q", name, err, want)
		}
	}
	// Every truncation.
	for n := 0; n < len(good); n++ {
		err := read(good[:n])
		if err == nil {
			t.Fatalf("truncated to %d of %d bytes: accepted", n, len(good))
		}
		if n > 0 && !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("truncated to %d bytes: error %q", n, err)
		}
	}
	expect("empty", nil, "empty")
	// Every single bit flip.
	for i := range good {
		for bit := 0; bit < 8; bit++ {
			b := append([]byte(nil), good...)
			b[i] ^= 1 << bit
			if read(b) == nil {
				t.Fatalf("bit %d of byte %d flipped: accepted", bit, i)
			}
		}
	}
	b := append([]byte(nil), good...)
	b[headerSize+5] ^= 0x10
	expect("flipped payload bit", b, "checksum")
	expect("trailing data", append(append([]byte(nil), good...), 0), "trailing")
	b = append([]byte(nil), good...)
	b[0] = 'L'
	if err := read(b); !errors.Is(err, ErrNotBinary) {
		t.Errorf("wrong magic: %v", err)
	}
	if err := read([]byte(`{"format":"latentree-stats","version":1}`)); !errors.Is(err, ErrNotBinary) {
		t.Errorf("JSON statistics: %v", err)
	}
	if err := read([]byte("a,b\n1,2\n")); !errors.Is(err, ErrNotBinary) {
		t.Errorf("CSV: %v", err)
	}
	b = append([]byte(nil), good...)
	binary.LittleEndian.PutUint16(b[len(binaryMagic):], 2)
	expect("version 2", reseal(b), "version 2 not supported")
	b = append([]byte(nil), good...)
	binary.LittleEndian.PutUint16(b[len(binaryMagic)+2:], 0x8001)
	expect("unknown flag", reseal(b), "unknown flags")
	b = append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(b[len(binaryMagic)+4:], 1<<62)
	expect("huge length", b, "truncated")

	// Content errors behind a valid checksum, from hand-made payloads.
	file := func(flags uint16, payload []byte) []byte {
		h := []byte(binaryMagic)
		h = binary.LittleEndian.AppendUint16(h, BinaryVersion)
		h = binary.LittleEndian.AppendUint16(h, flags)
		h = binary.LittleEndian.AppendUint64(h, uint64(len(payload)))
		h = append(h, payload...)
		return binary.LittleEndian.AppendUint32(h, crc32.Checksum(h, castagnoli))
	}
	disc := func(rows, count uint64, name string, states []string, marg ...uint64) []byte {
		p := binary.AppendUvarint(nil, rows)
		p = binary.AppendUvarint(p, 1)
		p = appendString(p, name)
		p = append(p, kindDiscrete)
		p = binary.AppendUvarint(p, uint64(len(states)))
		for _, s := range states {
			p = appendString(p, s)
		}
		p = binary.AppendUvarint(p, count)
		for _, m := range marg {
			p = binary.AppendUvarint(p, m)
		}
		return p
	}
	if s, err := ReadBinary(bytes.NewReader(file(0, disc(3, 3, "x", []string{"a", "b"}, 1, 2)))); err != nil || s.Marginal(0)[1] != 2 {
		t.Fatalf("hand-made file: %v", err)
	}
	expect("marginal sum", file(0, disc(3, 3, "x", []string{"a", "b"}, 1, 1)), "marginal sums to 2")
	expect("count above rows", file(0, disc(3, 4, "x", []string{"a", "b"}, 2, 2)), "count 4 outside")
	expect("duplicate state", file(0, disc(3, 3, "x", []string{"a", "a"}, 1, 2)), "duplicate state")
	expect("no name", file(0, disc(3, 3, "", []string{"a"}, 3)), "no name")
	expect("bad UTF-8", file(0, disc(3, 3, "\xff", []string{"a"}, 3)), "UTF-8")
	expect("missing marginal", file(0, disc(3, 3, "x", []string{"a", "b"}, 1)), "cut short")
	expect("extra bytes", file(0, append(disc(3, 3, "x", []string{"a"}, 3), 0)), "unread bytes")
	p := disc(3, 3, "x", []string{"a"}, 3)
	p[len(p)-1] = 0x83 // non-minimal varint 0x83 0x00 for 3
	expect("non-canonical varint", file(0, append(p, 0)), "non-canonical")
	// Two variables with pairs: a table count above the marginal.
	p = binary.AppendUvarint(nil, 2)
	p = binary.AppendUvarint(p, 2)
	for _, n := range []string{"x", "y"} {
		p = appendString(p, n)
		p = append(p, kindDiscrete, 1)
		p = appendString(p, "a")
		p = append(p, 2, 2)
	}
	expect("pair table", file(flagPairs, append(append([]byte(nil), p...), 3)), "more than its marginal")
	if _, err := ReadBinary(bytes.NewReader(file(flagPairs, append(append([]byte(nil), p...), 2)))); err != nil {
		t.Errorf("valid pair table: %v", err)
	}
	expect("pair table cut", file(flagPairs, p), "pair statistics need")
	// A continuous variable with a NaN mean.
	p = binary.AppendUvarint(nil, 2)
	p = binary.AppendUvarint(p, 1)
	p = appendString(p, "z")
	p = append(p, kindContinuous, 2)
	p = appendFloat(p, math.NaN())
	p = appendFloat(p, 1)
	expect("NaN mean", file(0, p), "invalid moments")
	q := binary.AppendUvarint(nil, 2)
	q = binary.AppendUvarint(q, 1)
	q = appendString(q, "z")
	q = append(q, 9)
	expect("unknown kind", file(0, q), "unknown kind")
}

// TestBinaryKindMismatch: a variable discrete in one file and continuous in
// another cannot be merged.
func TestBinaryKindMismatch(t *testing.T) {
	a, err := data.New([]data.Variable{{Name: "x", Kind: data.Discrete, States: []string{"0", "1"}}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := data.New([]data.Variable{{Name: "x", Kind: data.Continuous}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := ReadBinary(bytes.NewReader(encode(t, mustCompute(t, a, Options{}))))
	sb, _ := ReadBinary(bytes.NewReader(encode(t, mustCompute(t, b, Options{}))))
	if err := sa.Merge(sb); err == nil || !strings.Contains(err.Error(), `"x" is discrete in one shard and continuous`) {
		t.Errorf("kind mismatch: %v", err)
	}
}

func FuzzReadBinary(f *testing.F) {
	rng := rand.New(rand.NewPCG(14, 2))
	for _, sp := range [][]colSpec{
		specs(4, []int{2, 0, 3}, []float64{0, 0.3}),
		specs(3, []int{2}, []float64{0}),
		specs(3, []int{0}, []float64{0.1}),
	} {
		d := randDataset(f, rng, 20, sp)
		for _, opt := range []Options{{}, {NoPairs: true}} {
			s, err := Compute(d, opt)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(encode(f, s))
		}
	}
	var z Stats
	f.Add(encode(f, &z))
	// A file of mixed data without the state moments (flag bit 1 clear),
	// as written before they were kept.
	f.Add(encode(f, withoutStateMoments(f, mustCompute(f, randDataset(f, rng, 20, specs(3, []int{2, 0}, []float64{0.2})), Options{}))))
	f.Fuzz(func(t *testing.T, b []byte) {
		check := func(b []byte) {
			s, err := ReadBinary(bytes.NewReader(b))
			if err != nil {
				if s != nil {
					t.Fatal("statistics with an error")
				}
				return
			}
			// What is accepted is canonical: it encodes to the same bytes,
			// and reads back to the same statistics.
			e := encode(t, s)
			if !bytes.Equal(e, b) {
				t.Fatalf("accepted input re-encodes differently:\n%x\n%x", b, e)
			}
			if _, err := ReadBinary(bytes.NewReader(e)); err != nil {
				t.Fatalf("re-encoding rejected: %v", err)
			}
			// Accepted statistics are usable.
			var m Stats
			if err := m.Merge(s); err != nil {
				t.Fatalf("merge: %v", err)
			}
			if err := m.Merge(s); err != nil {
				t.Fatalf("merge with itself: %v", err)
			}
		}
		check(b)
		// With the checksum fixed, mutations reach the decoder.
		check(reseal(b))
	})
}
