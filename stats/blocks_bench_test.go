package stats

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/parquet-go/parquet-go"
)

const benchVars, benchRows = 100, 1_000_000

// benchCSV writes benchVars binary columns × benchRows rows of CSV.
func benchCSV(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for j := range benchVars {
		if j > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, "v%03d", j)
	}
	w.WriteByte('\n')
	rng := rand.New(rand.NewPCG(1, 2))
	line := make([]byte, 2*benchVars)
	for range benchRows {
		x := rng.Uint64()
		for j := range benchVars {
			if j%64 == 0 && j > 0 {
				x = rng.Uint64()
			}
			line[2*j] = '0' + byte(x>>(j%64)&1)
			line[2*j+1] = ','
		}
		line[len(line)-1] = '\n'
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
}

// benchParquet writes the same shape as Parquet boolean columns.
func benchParquet(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	g := parquet.Group{}
	for j := range benchVars {
		g[fmt.Sprintf("v%03d", j)] = parquet.Leaf(parquet.BooleanType)
	}
	w := parquet.NewWriter(f, parquet.NewSchema("bench", g))
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]parquet.Row, 4096)
	for lo := 0; lo < benchRows; lo += len(rows) {
		n := min(len(rows), benchRows-lo)
		for i := range n {
			r := rows[i][:0]
			x := rng.Uint64()
			for j := range benchVars {
				if j%64 == 0 && j > 0 {
					x = rng.Uint64()
				}
				r = append(r, parquet.BooleanValue(x>>(j%64)&1 == 1).Level(0, 0, j))
			}
			rows[i] = r
		}
		if _, err := w.WriteRows(rows[:n]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	f.Close()
}

func benchComputeBlocks(b *testing.B, write func(*testing.B, string), name string) {
	path := filepath.Join(b.TempDir(), name)
	write(b, path)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	b.ResetTimer()
	for b.Loop() {
		r, err := data.OpenBlocks([]string{path}, data.BlockOptions{})
		if err != nil {
			b.Fatal(err)
		}
		s, err := ComputeBlocks(r, Options{})
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
		if s.Rows() != benchRows {
			b.Fatalf("%d rows", s.Rows())
		}
	}
	b.StopTimer()
	close(done)
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}

// BenchmarkComputeBlocksCSV streams statistics of 100 binary variables ×
// 1,000,000 rows of CSV (about 200 MB) and reports MB/s and the peak heap
// in use.
func BenchmarkComputeBlocksCSV(b *testing.B) {
	benchComputeBlocks(b, benchCSV, "bench.csv")
}

// BenchmarkComputeBlocksParquet is the same from a Parquet file of boolean
// columns.
func BenchmarkComputeBlocksParquet(b *testing.B) {
	benchComputeBlocks(b, benchParquet, "bench.parquet")
}
