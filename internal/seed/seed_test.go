package seed

import (
	"math/rand/v2"
	"testing"
)

// TestOr checks that Or keeps a passed source and that the default is
// the PCG of Default on the stream, distinct per stream.
func TestOr(t *testing.T) {
	src := rand.NewPCG(7, 9)
	if Or(src, Model) != rand.Source(src) {
		t.Fatal("Or replaced a passed source")
	}
	want := rand.New(rand.NewPCG(Default, Learn)).Uint64()
	if got := Rand(nil, Learn).Uint64(); got != want {
		t.Fatalf("default Learn stream draws %d, want %d", got, want)
	}
	if Rand(nil, Model).Uint64() == Rand(nil, Learn).Uint64() {
		t.Fatal("two streams draw the same first number")
	}
}

// TestStreamsDistinct checks that no two named streams coincide.
func TestStreamsDistinct(t *testing.T) {
	all := []uint64{Model, Fit, RegCL, States, Learn, Sample, NoisyOrLik, QuartetLearn, Simulate, NoisyOrNetwork, NoisyOrRows}
	seen := map[uint64]bool{}
	for _, s := range all {
		if seen[s] {
			t.Fatalf("stream %#x named twice", s)
		}
		seen[s] = true
	}
}
