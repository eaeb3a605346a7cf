package noisyor

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestScaleProbe(t *testing.T) {
	if os.Getenv("NOISYOR_PROBE") == "" {
		t.Skip("set NOISYOR_PROBE=sources,effects")
	}
	ns, m := 100, 1000
	if v := os.Getenv("NOISYOR_PROBE_N"); v != "" {
		ns, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("NOISYOR_PROBE_M"); v != "" {
		m, _ = strconv.Atoi(v)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var children [][]int
	var prior, fail []float64
	for range ns {
		k := 10 + rng.IntN(50)
		ch := rng.Perm(m)[:k]
		sortInts(ch)
		children = append(children, ch)
		prior = append(prior, 0.01+0.09*rng.Float64())
		fail = append(fail, 0.2+0.6*rng.Float64())
	}
	n := netFrom(m, prior, children, fail, 0.01)
	t0 := time.Now()
	want := bruteDepthsFast(n)
	t.Logf("structural depths in %v", time.Since(t0))
	res, err := LearnExact(n, LearnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rounds {
		t.Logf("%+v", r)
	}
	t.Logf("learned %d of %d sources in %v", len(res.Network.Sources), ns, res.Time)
	_ = want
}

func bruteDepthsFast(n *Network) []int { return nil }

func TestImageProbe(t *testing.T) {
	if os.Getenv("NOISYOR_PROBE") == "" {
		t.Skip("set NOISYOR_PROBE")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var children [][]int
	var prior, fail []float64
	for range 8 {
		k := 8 + rng.IntN(9)
		ch := rng.Perm(64)[:k]
		sortInts(ch)
		children = append(children, ch)
		prior = append(prior, 0.25)
		fail = append(fail, 0.1)
	}
	n := netFrom(64, prior, children, fail, 0.001)
	for s := range n.Sources {
		for i := range n.Sources[s].Children {
			n.Sources[s].Children[i].Failure = 0.1
		}
	}
	t.Logf("structural depths %v", bruteDepths(n))
	for _, rows := range []int{1000, 10000, 100000} {
		d, _ := n.Sample(rand.NewPCG(uint64(rows), 1), rows)
		b, _ := NewBinary(d)
		t0 := time.Now()
		res, err := Learn(b, LearnOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("rows %d: %d sources in %v", rows, len(res.Network.Sources), time.Since(t0))
		for _, r := range res.Rounds {
			t.Logf("  %+v", r)
		}
		if rows == 100000 {
			matchNetworks(t, n, res.Network, 0.02)
		}
	}
}

func TestImageNetworkProbe(t *testing.T) {
	if os.Getenv("NOISYOR_PROBE") == "" {
		t.Skip("set NOISYOR_PROBE")
	}
	n := ImageNetwork()
	res, err := LearnExact(n, LearnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exact: %d sources, rounds %+v", len(res.Network.Sources), res.Rounds)
	matchNetworks(t, n, res.Network, 1e-9)
	for _, rows := range []int{100, 500, 1000, 2000, 10000, 100000} {
		for _, tol := range []float64{0.01, 0.003} {
			d, _ := n.Sample(rand.NewPCG(uint64(rows), 1), rows)
			b, _ := NewBinary(d)
			t0 := time.Now()
			res, err := Learn(b, LearnOptions{RankTol: tol})
			if err != nil {
				t.Fatal(err)
			}
			depths := []int{}
			for _, s := range res.Network.Sources {
				depths = append(depths, s.Learned.Depth)
			}
			t.Logf("rows %d tol %v: %d sources depths %v in %v", rows, tol, len(res.Network.Sources), depths, time.Since(t0))
			if rows >= 10000 {
				matchNetworks(t, n, res.Network, 0.02)
			}
		}
	}
}

func TestQMRProbe(t *testing.T) {
	if os.Getenv("NOISYOR_QMR") == "" {
		t.Skip("set NOISYOR_QMR")
	}
	n, err := QMRLike(rand.NewPCG(1, 3), QMROptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := QuartetDepths(n)
	res, err := LearnExact(n, LearnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rounds {
		t.Logf("%+v", r)
	}
	t.Logf("table want %+v", DepthTable(n, want))
	var got []int
	for _, s := range res.Network.Sources {
		got = append(got, s.Learned.Depth)
	}
	hist := map[int]int{}
	for _, d := range got {
		hist[d]++
	}
	t.Logf("learned %d sources, depth histogram %v in %v", len(got), hist, res.Time)
}

func TestBiasProbe(t *testing.T) {
	if os.Getenv("NOISYOR_PROBE") == "" {
		t.Skip()
	}
	n := ImageNetwork()
	for _, rows := range []int{10000, 100000} {
		for _, noref := range []bool{false, true} {
			var sum, sumAbs, maxAbs float64
			cnt := 0
			for seed := range 5 {
				d, _ := n.Sample(rand.NewPCG(uint64(seed), 77), rows)
				b, _ := NewBinary(d)
				res, _ := Learn(b, LearnOptions{NoRefine: noref})
				for _, s := range res.Network.Sources {
					for _, c := range s.Children {
						// find truth source with this quartet
						for ts := range n.Sources {
							if n.Failure(ts, s.Learned.Quartet[0]) < 1 && n.Failure(ts, s.Learned.Quartet[1]) < 1 && n.Failure(ts, s.Learned.Quartet[2]) < 1 && n.Failure(ts, s.Learned.Quartet[3]) < 1 {
								e := c.Failure - n.Failure(ts, c.Effect)
								sum += e
								sumAbs += math.Abs(e)
								maxAbs = math.Max(maxAbs, math.Abs(e))
								cnt++
								break
							}
						}
					}
				}
			}
			t.Logf("rows %d norefine %v: mean err %.4f mean abs %.4f max %.4f over %d", rows, noref, sum/float64(cnt), sumAbs/float64(cnt), maxAbs, cnt)
		}
	}
}

func TestQMRSmallProbe(t *testing.T) {
	if os.Getenv("NOISYOR_QMRS") == "" {
		t.Skip()
	}
	ns, _ := strconv.Atoi(os.Getenv("NOISYOR_QMRS"))
	n, err := QMRLike(rand.NewPCG(1, 3), QMROptions{Sources: ns, Effects: ns * 7})
	if err != nil {
		t.Fatal(err)
	}
	want := QuartetDepths(n)
	res, err := LearnExact(n, LearnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rounds {
		t.Logf("%+v", r)
	}
	t.Logf("table want %+v", DepthTable(n, want))
	hist := map[int]int{}
	for _, s := range res.Network.Sources {
		hist[s.Learned.Depth]++
	}
	t.Logf("learned %d sources, depth histogram %v in %v", len(res.Network.Sources), hist, res.Time)
}

func TestMissProbe(t *testing.T) {
	if os.Getenv("NOISYOR_MISS") == "" {
		t.Skip()
	}
	n, _ := QMRLike(rand.NewPCG(1, 3), QMROptions{Sources: 100, Effects: 700})
	want := QuartetDepths(n)
	res, _ := LearnExact(n, LearnOptions{MaxDepth: 0, MaxDepthSet: true})
	got := map[int]bool{}
	for _, s := range res.Network.Sources {
		for ts := range n.Sources {
			if n.Failure(ts, s.Learned.Quartet[0]) < 1 && n.Failure(ts, s.Learned.Quartet[1]) < 1 && n.Failure(ts, s.Learned.Quartet[2]) < 1 && n.Failure(ts, s.Learned.Quartet[3]) < 1 && len(n.Sources[ts].Children) == len(s.Children) {
				got[ts] = true
			}
		}
	}
	for s := range n.Sources {
		if want[s] != 0 || got[s] {
			continue
		}
		ch := n.Sources[s].Children
		k := len(ch)
		// count singly coupled quartets (depth 0: all other sources present)
		cnt, tot := 0, 0
		conflict := func(a, b int) bool {
			for y := range n.Sources {
				if y != s && n.Failure(y, a) < 1 && n.Failure(y, b) < 1 {
					return true
				}
			}
			return false
		}
		cf := make([][]bool, k)
		for i := range k {
			cf[i] = make([]bool, k)
			for j := range k {
				if i != j {
					cf[i][j] = conflict(ch[i].Effect, ch[j].Effect)
				}
			}
		}
		for i := 0; i < k; i++ {
			for j := i + 1; j < k; j++ {
				for l := j + 1; l < k; l++ {
					for m := l + 1; m < k; m++ {
						tot++
						if !cf[i][j] && !cf[i][l] && !cf[i][m] && !cf[j][l] && !cf[j][m] && !cf[l][m] {
							cnt++
						}
					}
				}
			}
		}
		free := 0
		for i := range k {
			c := 0
			for j := range k {
				if cf[i][j] {
					c++
				}
			}
			if c == 0 {
				free++
			}
		}
		t.Logf("missed source %d: %d children, %d conflict-free children, singly-coupled quartets %d of %d", s, k, free, cnt, tot)
	}
}
