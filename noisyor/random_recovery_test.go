package noisyor

import (
	"math/rand/v2"
	"testing"
)

// TestLearnRandomLearnableNetworks: networks from RandomNetwork with
// Learnable (the CLI's `noisyor simulate --network random --learnable`),
// sampled at 100,000 rows, are recovered exactly: every source with its
// exact children, parameters within 0.05.
func TestLearnRandomLearnableNetworks(t *testing.T) {
	trials := 2
	if testing.Short() {
		trials = 1
	}
	for trial := range trials {
		n, err := RandomNetwork(rand.NewPCG(uint64(trial), 5), RandomOptions{Learnable: true})
		if err != nil {
			t.Fatal(err)
		}
		d, err := n.Sample(rand.NewPCG(uint64(trial), 6), 100000)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewBinary(d)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Learn(b, LearnOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("trial %d: %d sources, %d edges; learned %d sources, %d edges", trial, n.NumSources(), n.NumEdges(), res.Network.NumSources(), res.Network.NumEdges())
		matchNetworks(t, n, res.Network, 0.05)
	}
}
