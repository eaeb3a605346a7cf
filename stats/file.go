package stats

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unicode/utf8"

	"github.com/latentree/latentree/data"
)

// The binary statistics format (files ending in .lts). See "Statistics
// files" in the package documentation for the layout.
const (
	// BinaryVersion is the version of the binary format WriteBinary writes
	// and ReadBinary reads.
	BinaryVersion = 1
	// binaryMagic starts every file: a non-ASCII byte, so that the file is
	// not mistaken for text, the name, and CR LF, SUB, LF, which a
	// text-mode transfer or an editor would alter.
	binaryMagic = "\x89LTS\r\n\x1a\n"
	// headerSize is the size of the fixed header: magic, version, flags,
	// payload length.
	headerSize = len(binaryMagic) + 2 + 2 + 8
	// flagPairs marks files with pair statistics.
	flagPairs = 1 << 0
	// flagStateMoments marks files with the per-state moments of the
	// discrete–continuous pairs (set only when there are such pairs).
	flagStateMoments = 1 << 1
	// knownFlags are the flags this version defines; others are an error.
	knownFlags = flagPairs | flagStateMoments
	// kind bytes of the variable records.
	kindDiscrete   = 0
	kindContinuous = 1
)

// ErrNotBinary is returned (wrapped) by ReadBinary when the input does not
// start with the magic bytes of the binary statistics format.
var ErrNotBinary = errors.New("stats: not a latentree statistics file (wrong magic bytes)")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteBinary writes s in the binary statistics format, version
// BinaryVersion. The encoding is deterministic: equal statistics give equal
// bytes. ReadBinary reads it back exactly (floating-point values bit for
// bit).
func (s *Stats) WriteBinary(w io.Writer) error {
	if s == nil || s.index == nil {
		// A zero Stats is an empty dataset without variables.
		s = newStats(nil, false)
	}
	var p []byte
	p = binary.AppendUvarint(p, uint64(s.rows))
	p = binary.AppendUvarint(p, uint64(len(s.vars)))
	for j, v := range s.vars {
		p = appendString(p, v.Name)
		if v.Kind == data.Discrete {
			p = append(p, kindDiscrete)
			p = binary.AppendUvarint(p, uint64(len(v.States)))
			for _, l := range v.States {
				p = appendString(p, l)
			}
			p = binary.AppendUvarint(p, uint64(s.count[j]))
			for _, c := range s.marg[j] {
				p = binary.AppendUvarint(p, uint64(c))
			}
			continue
		}
		p = append(p, kindContinuous)
		p = binary.AppendUvarint(p, uint64(s.count[j]))
		p = appendFloat(p, s.mean[j])
		p = appendFloat(p, s.m2[j])
	}
	var flags uint16
	if s.pairs {
		flags |= flagPairs
		for _, c := range s.dtab {
			p = binary.AppendUvarint(p, uint64(c))
		}
		for _, c := range s.mixN {
			p = binary.AppendUvarint(p, uint64(c))
		}
		for _, c := range s.cp {
			p = binary.AppendUvarint(p, uint64(c.n))
			for _, x := range [...]float64{c.mi, c.mj, c.m2i, c.m2j, c.c} {
				p = appendFloat(p, x)
			}
		}
		if s.hasMix && len(s.mixM) > 0 {
			flags |= flagStateMoments
			for _, c := range s.mixM {
				p = binary.AppendUvarint(p, uint64(c.n))
				p = appendFloat(p, c.mi)
				p = appendFloat(p, c.m2i)
			}
		}
	}
	h := make([]byte, 0, headerSize+len(p)+4)
	h = append(h, binaryMagic...)
	h = binary.LittleEndian.AppendUint16(h, BinaryVersion)
	h = binary.LittleEndian.AppendUint16(h, flags)
	h = binary.LittleEndian.AppendUint64(h, uint64(len(p)))
	h = append(h, p...)
	h = binary.LittleEndian.AppendUint32(h, crc32.Checksum(h, castagnoli))
	_, err := w.Write(h)
	return err
}

func appendString(p []byte, s string) []byte {
	p = binary.AppendUvarint(p, uint64(len(s)))
	return append(p, s...)
}

func appendFloat(p []byte, x float64) []byte {
	return binary.LittleEndian.AppendUint64(p, math.Float64bits(x))
}

// ReadBinary reads statistics written by WriteBinary, reading r to its
// end. It checks the magic bytes (ErrNotBinary), the version, the length
// and the checksum (so that a truncated or corrupted file is an error, not
// wrong statistics), that nothing follows the checksum, that the encoding
// is canonical (the one WriteBinary writes), and then the statistics
// themselves as UnmarshalJSON does: names and state labels, counts
// non-negative and consistent, moments finite.
func ReadBinary(r io.Reader) (*Stats, error) {
	br := bufio.NewReader(r)
	head := make([]byte, headerSize)
	if n, err := io.ReadFull(br, head); err != nil {
		if n >= len(binaryMagic) && string(head[:len(binaryMagic)]) == binaryMagic || n < len(binaryMagic) && n > 0 && binaryMagic[:n] == string(head[:n]) {
			return nil, fmt.Errorf("stats: truncated statistics file: %d-byte header cut after %d bytes", headerSize, n)
		}
		if n == 0 {
			return nil, errors.New("stats: empty input, not a statistics file")
		}
		return nil, ErrNotBinary
	}
	if string(head[:len(binaryMagic)]) != binaryMagic {
		return nil, ErrNotBinary
	}
	le := binary.LittleEndian
	version := le.Uint16(head[len(binaryMagic):])
	if version != BinaryVersion {
		return nil, fmt.Errorf("stats: statistics file version %d not supported (this build reads version %d)", version, BinaryVersion)
	}
	flags := le.Uint16(head[len(binaryMagic)+2:])
	size := le.Uint64(head[len(binaryMagic)+4:])
	if size > math.MaxInt64-8 {
		return nil, fmt.Errorf("stats: corrupt statistics file: payload length %d", size)
	}
	// Read the payload, checksum and one more byte, without trusting size
	// for the allocation.
	rest, err := io.ReadAll(io.LimitReader(br, int64(size)+5))
	if err != nil {
		return nil, fmt.Errorf("stats: reading statistics file: %w", err)
	}
	if uint64(len(rest)) < size+4 {
		return nil, fmt.Errorf("stats: truncated statistics file: %d bytes of payload and checksum, want %d", len(rest), size+4)
	}
	if uint64(len(rest)) > size+4 {
		return nil, errors.New("stats: trailing data after the statistics file's checksum")
	}
	payload := rest[:size]
	crc := crc32.Update(crc32.Checksum(head, castagnoli), castagnoli, payload)
	if got := le.Uint32(rest[size:]); got != crc {
		return nil, fmt.Errorf("stats: corrupt statistics file: checksum %08x, content gives %08x", got, crc)
	}
	if flags&^knownFlags != 0 {
		return nil, fmt.Errorf("stats: statistics file has unknown flags %#x (written by a newer version?)", flags&^knownFlags)
	}
	if flags&flagStateMoments != 0 && flags&flagPairs == 0 {
		return nil, errors.New("stats: corrupt statistics file: state moments flagged without pair statistics")
	}
	js, err := decodePayload(payload, flags&flagPairs != 0, flags&flagStateMoments != 0)
	if err != nil {
		return nil, err
	}
	return fromJSON(js)
}

// decoder reads the payload of a statistics file.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("stats: corrupt statistics file at payload byte %d: %s", d.off, fmt.Sprintf(format, args...))
	}
}

// remaining is the number of unread bytes.
func (d *decoder) remaining() int { return len(d.b) - d.off }

func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n == 0 {
		d.fail("%s cut short", what)
		return 0
	}
	if n < 0 {
		d.fail("varint overflow for %s", what)
		return 0
	}
	if n != uvarintLen(v) {
		d.fail("non-canonical varint for %s", what)
		return 0
	}
	d.off += n
	return v
}

// count reads a non-negative int64.
func (d *decoder) count(what string) int64 {
	v := d.uvarint(what)
	if v > math.MaxInt64 {
		d.fail("%s %d out of range", what, v)
		return 0
	}
	return int64(v)
}

// length reads a number of items that each take at least one byte of the
// payload.
func (d *decoder) length(what string) int {
	v := d.uvarint(what)
	if d.err == nil && v > uint64(d.remaining()) {
		d.fail("%s %d exceeds the %d bytes left", what, v, d.remaining())
		return 0
	}
	return int(v)
}

func (d *decoder) float(what string) float64 {
	if d.err != nil {
		return 0
	}
	if d.remaining() < 8 {
		d.fail("%s cut short", what)
		return 0
	}
	x := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off:]))
	d.off += 8
	return x
}

func (d *decoder) str(what string) string {
	n := d.length(what + " length")
	if d.err != nil {
		return ""
	}
	s := string(d.b[d.off : d.off+n])
	if !utf8.ValidString(s) {
		d.fail("%s is not valid UTF-8", what)
		return ""
	}
	d.off += n
	return s
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// decodePayload decodes the payload into the JSON form, which fromJSON
// checks.
func decodePayload(b []byte, pairs, groups bool) (*jsonStats, error) {
	d := &decoder{b: b}
	js := &jsonStats{Format: jsonFormat, Version: jsonVersion, Pairs: pairs}
	js.Rows = d.count("number of rows")
	nv := d.length("number of variables")
	if d.err != nil {
		return nil, d.err
	}
	js.Variables = make([]jsonVar, nv)
	vars := make([]data.Variable, nv)
	totalStates := 0
	for j := range js.Variables {
		jv := &js.Variables[j]
		jv.Name = d.str(fmt.Sprintf("name of variable %d", j+1))
		if d.err != nil {
			return nil, d.err
		}
		if d.remaining() < 1 {
			d.fail("variable %q cut short", jv.Name)
			return nil, d.err
		}
		kind := d.b[d.off]
		d.off++
		switch kind {
		case kindDiscrete:
			jv.Kind = "discrete"
			ns := d.length(fmt.Sprintf("number of states of %q", jv.Name))
			if d.err == nil && (ns < 1 || ns > data.MaxStates) {
				d.fail("variable %q has %d states (want 1 to %d)", jv.Name, ns, data.MaxStates)
			}
			if d.err != nil {
				return nil, d.err
			}
			totalStates += ns
			jv.States = make([]string, ns)
			for k := range jv.States {
				jv.States[k] = d.str(fmt.Sprintf("state %d of %q", k+1, jv.Name))
			}
			jv.Count = d.count(fmt.Sprintf("count of %q", jv.Name))
			jv.Marginal = make([]int64, ns)
			for k := range jv.Marginal {
				jv.Marginal[k] = d.count(fmt.Sprintf("marginal of %q", jv.Name))
			}
			vars[j] = data.Variable{Name: jv.Name, Kind: data.Discrete, States: jv.States}
		case kindContinuous:
			jv.Kind = "continuous"
			jv.Count = d.count(fmt.Sprintf("count of %q", jv.Name))
			mean, m2 := d.float("mean of "+jv.Name), d.float("m2 of "+jv.Name)
			jv.Mean, jv.M2 = &mean, &m2
			vars[j] = data.Variable{Name: jv.Name, Kind: data.Continuous}
		default:
			d.fail("variable %q has unknown kind byte %d", jv.Name, kind)
		}
		if d.err != nil {
			return nil, d.err
		}
	}
	if pairs {
		if totalStates > 1<<31 {
			d.fail("%d states in all", totalStates)
			return nil, d.err
		}
		// The sizes below follow from the header; each value takes at
		// least one byte, which bounds the allocations by the input.
		lay := newLayout(vars)
		cells := lay.tableCells()
		nd, nc := len(lay.dvars), len(lay.cvars)
		mixed := int64(nd) * int64(nc)
		cont := int64(nc) * int64(nc-1) / 2
		if need := cells + mixed + 41*cont; need > int64(d.remaining()) {
			d.fail("the pair statistics need at least %d bytes, %d are left", need, d.remaining())
			return nil, d.err
		}
		js.DiscretePairs = make([]int64, cells)
		for i := range js.DiscretePairs {
			js.DiscretePairs[i] = d.count("pair table count")
		}
		js.MixedCounts = make([]int64, mixed)
		for i := range js.MixedCounts {
			js.MixedCounts[i] = d.count("mixed pair count")
		}
		if cont > 0 {
			m := &jsonMoment{
				N: make([]int64, cont), MeanI: make([]float64, cont), MeanJ: make([]float64, cont),
				M2I: make([]float64, cont), M2J: make([]float64, cont), C: make([]float64, cont),
			}
			for t := range m.N {
				m.N[t] = d.count("continuous pair count")
				m.MeanI[t] = d.float("continuous pair mean")
				m.MeanJ[t] = d.float("continuous pair mean")
				m.M2I[t] = d.float("continuous pair m2")
				m.M2J[t] = d.float("continuous pair m2")
				m.C[t] = d.float("continuous pair co-moment")
			}
			js.ContinuousPairs = m
		}
		groupCells := lay.mixCells()
		if groups && groupCells == 0 {
			d.fail("state moments flagged without discrete–continuous pairs")
			return nil, d.err
		}
		if groups {
			if need := 17 * groupCells; need > int64(d.remaining()) {
				d.fail("the state moments need at least %d bytes, %d are left", need, d.remaining())
				return nil, d.err
			}
			g := &jsonGroups{N: make([]int64, groupCells), Mean: make([]float64, groupCells), M2: make([]float64, groupCells)}
			for t := range g.N {
				g.N[t] = d.count("state moment count")
				g.Mean[t] = d.float("state moment mean")
				g.M2[t] = d.float("state moment m2")
			}
			js.MixedMoments = g
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.remaining() != 0 {
		return nil, fmt.Errorf("stats: corrupt statistics file: %d unread bytes at the end of the payload", d.remaining())
	}
	return js, nil
}

// IsBinary reports whether b starts with the magic bytes of the binary
// statistics format.
func IsBinary(b []byte) bool { return bytes.HasPrefix(b, []byte(binaryMagic)) }
