package data

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestOpenBlocksParquetHugeFooter: a Parquet file whose footer declares far
// more bytes than the file holds (found by FuzzOpenBlocks, where the
// Parquet library allocated the declared ~800 MB and stalled the fuzzer)
// fails at once with an error naming the file.
func TestOpenBlocksParquetHugeFooter(t *testing.T) {
	dir := t.TempDir()
	valid := pqBytes(t, samplePQ())
	big := slices.Clone(valid)
	binary.LittleEndian.PutUint32(big[len(big)-8:], uint32(len(big))) // one more than fits
	cases := map[string][]byte{
		"par1par1.parquet": []byte("PAR1PAR1"),
		"fuzz.parquet":     []byte("PAR1\x15\x04\x19\\H\x05pPAR1"),
		"max.parquet":      append([]byte("PAR1\x00\x00\x00\x00"), "\xff\xff\xff\x7fPAR1"...),
		"big.parquet":      big,
		"nomagic.parquet":  append(slices.Clone(valid[:len(valid)-4]), "PAR2"...),
	}
	for name, b := range cases {
		p := writeTemp(t, dir, name, b)
		start := time.Now()
		_, err := readAll([]string{p}, BlockOptions{ReadOptions: ReadOptions{Missing: MissingKeep}})
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: %v to fail", name, d)
		}
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v does not name the file", name, err)
		}
	}
}

// TestOpenBlocksParquetTyped reads the same Parquet file in blocks of
// several sizes, with missing tokens that are numbers or text, and checks
// the blocks against the text of the values.
func TestOpenBlocksParquetTyped(t *testing.T) {
	dir := t.TempDir()
	p := writeTemp(t, dir, "a.parquet", pqBytes(t, samplePQ()))
	c := writeTemp(t, dir, "a.csv", []byte(samplePQCSV()))
	for _, tokens := range [][]string{nil, {"3", "v"}, {"true"}} {
		for _, rows := range []int{1, 3, 7, 40, 1000} {
			opt := BlockOptions{ReadOptions: ReadOptions{Missing: MissingKeep, MissingTokens: tokens}, BlockRows: rows}
			got, err := readAll([]string{p}, opt)
			want, cerr := readAll([]string{c}, opt)
			if err != nil || cerr != nil {
				if err == nil || cerr == nil || strings.ReplaceAll(err.Error(), p, "F") != strings.ReplaceAll(cerr.Error(), c, "F") {
					t.Errorf("tokens %q, %d rows: Parquet error %v, CSV error %v", tokens, rows, err, cerr)
				}
				continue
			}
			if g, w := dump(got), dump(want); g != w {
				t.Errorf("tokens %q, %d rows: Parquet blocks\n%s\nCSV blocks\n%s", tokens, rows, g, w)
			}
		}
	}
}

// samplePQCSV is samplePQ as CSV.
func samplePQCSV() string {
	var sb strings.Builder
	sb.WriteString("a,b,c,x\n")
	for _, r := range samplePQ() {
		if r.A != nil {
			sb.WriteString(strconvI(*r.A))
		}
		sb.WriteByte(',')
		if r.B != nil {
			sb.WriteString(*r.B)
		}
		sb.WriteByte(',')
		if r.C {
			sb.WriteString("true")
		} else {
			sb.WriteString("false")
		}
		sb.WriteByte(',')
		sb.WriteString(strconvF(r.X))
		sb.WriteByte('\n')
	}
	return sb.String()
}

func strconvI(v int64) string   { return strconv.FormatInt(v, 10) }
func strconvF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// dump describes blocks: variables, kinds, states and cells.
func dump(blocks []*Dataset) string {
	var sb strings.Builder
	for _, d := range blocks {
		for j, v := range d.Vars() {
			fmt.Fprintf(&sb, "%s %v %q: ", v.Name, v.Kind, v.States)
			if v.Kind == Discrete {
				fmt.Fprintln(&sb, d.Discrete(j))
			} else {
				fmt.Fprintln(&sb, d.Continuous(j))
			}
		}
	}
	return sb.String()
}
