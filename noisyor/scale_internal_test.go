package noisyor

import (
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
