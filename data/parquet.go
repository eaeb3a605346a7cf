package data

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// parquetBatch is the number of rows read from a Parquet file at once.
const parquetBatch = 256

// parquetSource reads the rows of a Parquet file with a flat schema.
type parquetSource struct {
	name     string
	f        *os.File
	pf       *parquet.File
	names    []string
	unsigned []bool
	groups   []parquet.RowGroup
	g        int
	rows     parquet.Rows
	batch    []parquet.Row
	n, i     int   // rows in the batch, current row
	row      int64 // 1-based number of the current row
	vals     []parquet.Value
	buf      []byte
	off      []int // field j's text is buf[off[2j]:off[2j+1]]
}

// recovered turns a panic of the Parquet library on corrupt input into an
// error naming the file.
func recovered(name string, err *error) {
	if r := recover(); r != nil {
		*err = &ParseError{File: name, Err: fmt.Errorf("corrupt Parquet file: %v", r)}
	}
}

func openParquet(name string, f *os.File) (src *parquetSource, err error) {
	defer recovered(name, &err)
	fi, err := f.Stat()
	if err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		return nil, &ParseError{File: name, Err: fmt.Errorf("not a valid Parquet file: %w", err)}
	}
	s := &parquetSource{name: name, f: f, pf: pf, groups: pf.RowGroups()}
	for j, fld := range pf.Schema().Fields() {
		if !fld.Leaf() || fld.Repeated() {
			return nil, &ParseError{File: name, Column: j + 1, ColumnName: fld.Name(), Err: errors.New("nested or repeated Parquet column: only flat columns can be read")}
		}
		switch fld.Type().Kind() {
		case parquet.Boolean, parquet.Int32, parquet.Int64, parquet.Float, parquet.Double, parquet.ByteArray, parquet.FixedLenByteArray:
		default:
			return nil, &ParseError{File: name, Column: j + 1, ColumnName: fld.Name(), Err: fmt.Errorf("unsupported Parquet type %v", fld.Type())}
		}
		lt := fld.Type().LogicalType()
		it, isInt := logicalInt(lt)
		s.unsigned = append(s.unsigned, isInt && !it.IsSigned)
		s.names = append(s.names, fld.Name())
	}
	if len(s.names) == 0 {
		return nil, &ParseError{File: name, Err: errors.New("the Parquet file has no columns")}
	}
	s.vals = make([]parquet.Value, len(s.names))
	s.off = make([]int, 2*len(s.names))
	s.batch = make([]parquet.Row, parquetBatch)
	return s, nil
}

// logicalInt returns the integer annotation of a logical type, if any.
func logicalInt(lt *format.LogicalType) (*format.IntType, bool) {
	if lt == nil {
		return nil, false
	}
	it, ok := lt.Value.(*format.IntType)
	return it, ok && it != nil
}

func (s *parquetSource) header() []string { return s.names }

func (s *parquetSource) next() (err error) {
	defer recovered(s.name, &err)
	for s.i >= s.n {
		if s.rows == nil {
			if s.g >= len(s.groups) {
				return io.EOF
			}
			s.rows = s.groups[s.g].Rows()
			s.g++
		}
		n, err := s.rows.ReadRows(s.batch)
		s.n, s.i = n, 0
		if err != nil && err != io.EOF {
			return &ParseError{File: s.name, Line: int(s.row) + 1, Err: fmt.Errorf("reading Parquet rows: %w", err)}
		}
		if err == io.EOF || n == 0 {
			if n == 0 {
				cerr := s.rows.Close()
				s.rows = nil
				if cerr != nil {
					return &ParseError{File: s.name, Line: int(s.row) + 1, Err: cerr}
				}
			}
			if n == 0 {
				continue
			}
		}
	}
	row := s.batch[s.i]
	s.i++
	s.row++
	for j := range s.vals {
		s.vals[j] = parquet.NullValue()
	}
	for _, v := range row {
		c := v.Column()
		if c < 0 || c >= len(s.vals) {
			return &ParseError{File: s.name, Line: int(s.row), Err: fmt.Errorf("value of unknown column %d", c)}
		}
		s.vals[c] = v
	}
	// Format every cell into one buffer.
	b := s.buf[:0]
	for j, v := range s.vals {
		s.off[2*j] = len(b)
		if !v.IsNull() {
			switch v.Kind() {
			case parquet.Boolean:
				b = strconv.AppendBool(b, v.Boolean())
			case parquet.Int32:
				if s.unsigned[j] {
					b = strconv.AppendUint(b, uint64(v.Uint32()), 10)
				} else {
					b = strconv.AppendInt(b, int64(v.Int32()), 10)
				}
			case parquet.Int64:
				if s.unsigned[j] {
					b = strconv.AppendUint(b, v.Uint64(), 10)
				} else {
					b = strconv.AppendInt(b, v.Int64(), 10)
				}
			case parquet.Float:
				b = strconv.AppendFloat(b, float64(v.Float()), 'g', -1, 32)
			case parquet.Double:
				b = strconv.AppendFloat(b, v.Double(), 'g', -1, 64)
			case parquet.ByteArray, parquet.FixedLenByteArray:
				b = append(b, v.ByteArray()...)
			default:
				return &ParseError{File: s.name, Line: int(s.row), Column: j + 1, ColumnName: s.names[j], Err: fmt.Errorf("unsupported Parquet value kind %v", v.Kind())}
			}
		}
		s.off[2*j+1] = len(b)
	}
	s.buf = b
	return nil
}

func (s *parquetSource) cell(j int) (string, error) {
	lo, hi := s.off[2*j], s.off[2*j+1]
	if lo == hi {
		return "", nil
	}
	// The text lives in s.buf until the next row; callers clone what they
	// keep.
	v, ok := cleanField(unsafe.String(&s.buf[lo], hi-lo))
	if !ok {
		return "", &ParseError{File: s.name, Line: int(s.row), Column: j + 1, ColumnName: s.names[j], Err: errors.New("invalid UTF-8")}
	}
	return v, nil
}

func (s *parquetSource) line(int) int { return int(s.row) }

func (s *parquetSource) close() (err error) {
	defer recovered(s.name, &err)
	if s.rows != nil {
		s.rows.Close()
		s.rows = nil
	}
	return s.f.Close()
}
