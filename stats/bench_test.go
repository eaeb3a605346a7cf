package stats

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
)

// readBinaryCSV parses a CSV file whose header names the variables and
// whose rows hold 0 or 1, into binary columns. It is a minimal local
// reader for the benchmarks, not a general CSV parser.
func readBinaryCSV(path string) (names []string, cols [][]uint16, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	if !sc.Scan() {
		return nil, nil, fmt.Errorf("%s: no header", path)
	}
	names = strings.Split(strings.TrimSpace(sc.Text()), ",")
	cols = make([][]uint16, len(names))
	line := 1
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		fields := strings.Split(text, ",")
		if len(fields) != len(names) {
			return nil, nil, fmt.Errorf("%s:%d: %d fields, want %d", path, line, len(fields), len(names))
		}
		for j, f := range fields {
			switch f {
			case "0":
				cols[j] = append(cols[j], 0)
			case "1":
				cols[j] = append(cols[j], 1)
			default:
				return nil, nil, fmt.Errorf("%s:%d: value %q is not 0 or 1", path, line, f)
			}
		}
	}
	return names, cols, sc.Err()
}

// newsgroups returns train and test of the 100-word newsgroups data
// concatenated (16,242 rows), or skips the benchmark if absent.
func newsgroups(b *testing.B) *data.Dataset {
	b.Helper()
	var names []string
	var cols [][]uint16
	for _, part := range []string{"train", "test"} {
		path := "../examples/newsgroups/newsgroups100-" + part + ".csv"
		if _, err := os.Stat(path); err != nil {
			b.Skipf("%s not available", path)
		}
		n, c, err := readBinaryCSV(path)
		if err != nil {
			b.Fatal(err)
		}
		if names == nil {
			names, cols = n, c
			continue
		}
		if strings.Join(n, ",") != strings.Join(names, ",") {
			b.Fatalf("%s: header differs from train", path)
		}
		for j := range cols {
			cols[j] = append(cols[j], c[j]...)
		}
	}
	vars := make([]data.Variable, len(names))
	for j, n := range names {
		vars[j] = data.Variable{Name: n, Kind: data.Discrete, States: []string{"0", "1"}}
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// randomDiscrete returns p variables with k uniformly random states and n
// rows (no missing cells).
func randomDiscrete(b *testing.B, p, k, n int, seed uint64) *data.Dataset {
	b.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	vars := make([]data.Variable, p)
	cols := make([][]uint16, p)
	for j := range vars {
		states := make([]string, k)
		for s := range states {
			states[s] = fmt.Sprint(s)
		}
		vars[j] = data.Variable{Name: fmt.Sprintf("x%d", j), Kind: data.Discrete, States: states}
		col := make([]uint16, n)
		if k == 2 {
			for r := 0; r < n; r += 64 {
				w := rng.Uint64()
				for i := r; i < min(r+64, n); i++ {
					col[i] = uint16(w & 1)
					w >>= 1
				}
			}
		} else {
			for r := range col {
				col[r] = uint16(rng.IntN(k))
			}
		}
		cols[j] = col
	}
	d, err := data.FromDiscrete(vars, cols)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// benchCompute times Compute on d and reports the bytes allocated per
// operation (MB-alloc/op).
func benchCompute(b *testing.B, d *data.Dataset, opt Options) *Stats {
	b.Helper()
	var s *Stats
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		var err error
		s, err = Compute(d, opt)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/1e6, "MB-alloc/op")
	return s
}

// BenchmarkPairsNewsgroups computes all pair tables of the newsgroups data
// (16,242 rows × 100 binary words). Target: ≤ 20 ms on 2 cores.
func BenchmarkPairsNewsgroups(b *testing.B) {
	d := newsgroups(b)
	if d.NumRows() != 16242 || d.NumVars() != 100 {
		b.Logf("newsgroups: %d rows × %d variables", d.NumRows(), d.NumVars())
	}
	s := benchCompute(b, d, Options{})
	for _, ij := range [][2]int{{0, 1}, {98, 99}, {57, 3}} {
		if got, want := fmt.Sprint(s.Pair(ij[0], ij[1], nil)), fmt.Sprint(naivePair(d, ij[0], ij[1])); got != want {
			b.Fatalf("Pair%v = %s, want %s", ij, got, want)
		}
	}
}

// BenchmarkPairsBinary1000x100k computes the 499,500 pair tables of 1,000
// random binary variables × 100,000 rows. Targets: ≤ 5 s on 2 cores;
// allocation ≤ 2 × packed data (12.5 MB) + tables (16 MB).
func BenchmarkPairsBinary1000x100k(b *testing.B) {
	if testing.Short() {
		b.Skip("large benchmark")
	}
	const p, n = 1000, 100000
	d := randomDiscrete(b, p, 2, n, 1)
	benchCompute(b, d, Options{})
	packed := float64(p) * float64((n+63)/64*8) / 1e6
	tables := float64(p*(p-1)/2*4*8) / 1e6
	b.ReportMetric(packed, "MB-packed")
	b.ReportMetric(tables, "MB-tables")
}

// BenchmarkPairsBinaryMissing is BenchmarkPairsNewsgroups-sized random
// binary data with 5% missing cells (four popcounts per word and pair).
func BenchmarkPairsBinaryMissing(b *testing.B) {
	d := randomDiscrete(b, 100, 2, 16242, 2)
	rng := rand.New(rand.NewPCG(3, 3))
	for j := 0; j < d.NumVars(); j++ {
		for r, col := 0, d.Discrete(j); r < len(col); r++ {
			if rng.Float64() < 0.05 {
				col[r] = data.Missing
			}
		}
	}
	benchCompute(b, d, Options{})
}

// BenchmarkPairs10States computes the pair tables of 100 variables with 10
// states × 10,000 rows.
func BenchmarkPairs10States(b *testing.B) {
	d := randomDiscrete(b, 100, 10, 10000, 4)
	benchCompute(b, d, Options{})
}

// BenchmarkPairsContinuous computes the moments of 100 continuous
// variables × 10,000 rows, complete and with 5% missing cells.
func BenchmarkPairsContinuous(b *testing.B) {
	for _, miss := range []float64{0, 0.05} {
		b.Run(fmt.Sprintf("missing=%v", miss), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(5, 5))
			d := randDataset(b, rng, 10000, specs(100, []int{0}, []float64{miss}))
			benchCompute(b, d, Options{})
		})
	}
}

// BenchmarkQuartet counts one four-way table of 10-state variables over
// 10,000 rows.
func BenchmarkQuartet(b *testing.B) {
	d := randomDiscrete(b, 4, 10, 10000, 6)
	q := [4]int{0, 1, 2, 3}
	dst := make([]int64, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var err error
		dst, err = Quartet(d, q, dst)
		if err != nil {
			b.Fatal(err)
		}
	}
}
