package data

import (
	"io"
	"math"

	"github.com/parquet-go/parquet-go"
)

// Entries of a pqCache.
const (
	pqUnknown int32 = -1 // value not seen yet
	pqMissing int32 = -2 // value whose text is a missing token
)

// pqDense is the number of small keys held in a slice rather than a map.
const pqDense = 1024

// pqMaxEntries bounds the entries of a pqCache's maps.
const pqMaxEntries = 1 << 16

// pqCache maps the typed values of a discrete Parquet column to what their
// text maps to: a state code, or missing. The code of a value is that of
// its text, so the cache is only a shortcut past formatting and looking
// up the text; it is renumbered when the first block's states are sorted
// and dropped when the column turns continuous.
type pqCache struct {
	dense []int32          // keys below pqDense
	nums  map[uint64]int32 // other booleans, integers and floats, by bits
	bytes map[string]int32 // byte arrays
}

// pqKey returns the key of a non-null value that is not a byte array.
func pqKey(v parquet.Value) uint64 {
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			return 1
		}
		return 0
	case parquet.Int32:
		return uint64(v.Uint32())
	case parquet.Int64:
		return v.Uint64()
	case parquet.Float:
		return uint64(math.Float32bits(v.Float()))
	case parquet.Double:
		return math.Float64bits(v.Double())
	}
	return math.MaxUint64
}

// num returns the entry of the number (boolean, integer or float) raw.
func (c *pqCache) num(raw uint64) int32 {
	if raw < pqDense {
		if c.dense == nil {
			return pqUnknown
		}
		return c.dense[raw]
	}
	if e, ok := c.nums[raw]; ok {
		return e
	}
	return pqUnknown
}

// byteArray returns the entry of a byte array.
func (c *pqCache) byteArray(b []byte) int32 {
	if e, ok := c.bytes[string(b)]; ok {
		return e
	}
	return pqUnknown
}

// put records the entry of the non-null value of column j of the current
// row of ps.
func (c *pqCache) put(ps *parquetSource, j int, e int32) {
	i := ps.i - 1
	if ps.bytes[j] {
		if c.bytes == nil {
			c.bytes = make(map[string]int32)
		}
		if len(c.bytes) < pqMaxEntries {
			c.bytes[string(ps.vals[j][i].ByteArray())] = e
		}
		return
	}
	k := ps.raw[j][i]
	if k < pqDense {
		if c.dense == nil {
			c.dense = make([]int32, pqDense)
			for i := range c.dense {
				c.dense[i] = pqUnknown
			}
		}
		c.dense[k] = e
		return
	}
	if c.nums == nil {
		c.nums = make(map[uint64]int32)
	}
	if len(c.nums) < pqMaxEntries {
		c.nums[k] = e
	}
}

// recode renumbers the codes of the cache: code c becomes recode[c].
func (c *pqCache) recode(recode []uint16) {
	re := func(e int32) int32 {
		if e >= 0 {
			return int32(recode[e])
		}
		return e
	}
	for i, e := range c.dense {
		c.dense[i] = re(e)
	}
	for k, e := range c.nums {
		c.nums[k] = re(e)
	}
	for k, e := range c.bytes {
		c.bytes[k] = re(e)
	}
}

// States of a cell while a Parquet row is read.
const (
	pqCellMissing = iota
	pqCellCode
	pqCellFloat
	pqCellText
)

// pqCells holds the cells of one row of a Parquet file between the check for
// missing cells and their addition to the columns.
type pqCells struct {
	state []uint8
	code  []uint16
	f     []float64
	text  []string
	bufs  [][]byte
}

// readBlockParquet is readBlock for a Parquet file, read column by column:
// it gives the same blocks and errors, but maps each distinct value to its
// state (or number) once, through its text, instead of formatting and
// parsing every value.
func (b *blockReader) readBlockParquet(ps *parquetSource) (int, error) {
	rd := b.base
	nc := len(b.cols)
	r := &b.pqRow
	if len(r.state) != nc {
		*r = pqCells{state: make([]uint8, nc), code: make([]uint16, nc), f: make([]float64, nc), text: make([]string, nc), bufs: make([][]byte, nc)}
	}
	// Numbers may bypass their text unless a missing token is a number.
	numbers := true
	for _, t := range rd.tokens {
		if _, class := classify(t); class == classFinite {
			numbers = false
		}
	}
	n := 0
	for n < b.opt.BlockRows {
		err := ps.next()
		if err != nil {
			if err == io.EOF {
				break
			}
			return 0, err
		}
		b.rows++
		anyMissing := false
		i := ps.i - 1
		for k, c := range b.cols {
			j := c.pos - 1
			null := ps.null[j][i]
			if !null {
				e := pqUnknown
				switch {
				case c.float:
					if numbers && !ps.bytes[j] {
						if f, ok := ps.asFloat(j, ps.raw[j][i]); ok {
							r.state[k], r.f[k] = pqCellFloat, f
							continue
						}
					}
				case ps.bytes[j]:
					e = c.pq.byteArray(ps.vals[j][i].ByteArray())
				default:
					e = c.pq.num(ps.raw[j][i])
				}
				if e >= 0 {
					r.state[k], r.code[k] = pqCellCode, uint16(e)
					continue
				} else if e == pqMissing {
					r.state[k] = pqCellMissing
					anyMissing = true
					continue
				}
			}
			s, buf, err := ps.text(r.bufs[k], j, ps.value(j))
			r.bufs[k] = buf
			if err != nil {
				return 0, err
			}
			if rd.isMissing(s) {
				if rd.opt.Missing == MissingError {
					return 0, rd.missingError(ps.line(j), c, s)
				}
				if !null && !c.float {
					c.pq.put(ps, j, pqMissing)
				}
				r.state[k] = pqCellMissing
				anyMissing = true
				continue
			}
			r.state[k], r.text[k] = pqCellText, s
		}
		if anyMissing && rd.opt.Missing == MissingDropRows {
			continue
		}
		for k, c := range b.cols {
			switch r.state[k] {
			case pqCellMissing:
				c.addMissing()
			case pqCellCode:
				c.observed++
				c.codes = append(c.codes, r.code[k])
			case pqCellFloat:
				c.observed++
				c.addNumber(r.f[k])
			default:
				if err := c.add(&rd.typing, r.text[k], ps); err != nil {
					return 0, err
				}
				if !c.float {
					c.pq.put(ps, c.pos-1, int32(c.codes[len(c.codes)-1]))
				}
			}
		}
		n++
	}
	b.kept += int64(n)
	return n, nil
}
