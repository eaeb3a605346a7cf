// Package seed holds latentree's one default seed. A library function whose
// rand.Source is nil draws from a PCG generator seeded with Default on
// the stream named for that use, so that the defaults of different uses
// are different but fixed random sequences. The command line seeds its
// streams with --seed (New); where a command and the library function it
// calls share a stream (Model for noisy-or variational EM, Learn, Sample,
// NoisyOrLik, QuartetLearn), --seed 1 reproduces the library's default.
package seed

import "math/rand/v2"

// Default is the seed of every default generator and the default of the
// command line's --seed.
const Default uint64 = 1

// The streams, one per use of randomness. A Go user passing nil gets
// rand.NewPCG(Default, stream).
const (
	// Model is the stream of model fitting and sampling: EM's random
	// starts and samples (also of the command line's noisyor fit --method
	// vem), Monte Carlo scores, random parameters, and the sampling of
	// rows from a discrete, spectral or noisy-or model.
	Model uint64 = 2
	// Fit is EM's stream in the command line's fit and learn: their
	// outputs (the README's among them) were made with it, so it stays,
	// and --seed 1 there is not a Go user's nil EMOptions.Src (Model).
	Fit uint64 = 0xe3
	// Bootstrap draws the rows of the bootstrap replicates of standard
	// errors (discrete.Model.Bootstrap).
	Bootstrap uint64 = 0xb007
	// RegCL samples the hidden variables of regCLNJ and regCLRG.
	RegCL uint64 = 3
	// States perturbs the split states of the hidden-state search.
	States uint64 = 8
	// Learn drives learn.Learn and its entry points.
	Learn uint64 = 0x1ea7
	// Sample draws the rows a report or a contraction looks at from files.
	Sample uint64 = 0x5e
	// NoisyOrLik seeds the importance sampler of noisy-or likelihoods.
	NoisyOrLik uint64 = 0x6e6f6973
	// QuartetLearn samples the candidate quartets of noisy-or structure
	// learning.
	QuartetLearn uint64 = 0x6e6f
	// Simulate draws the command line's simulated trees and models.
	Simulate uint64 = 0x1a7e17ee
	// NoisyOrNetwork and NoisyOrRows draw the command line's simulated
	// noisy-or networks and their rows.
	NoisyOrNetwork uint64 = 0x5eed0001
	NoisyOrRows    uint64 = 0x5eed0002
)

// New returns a PCG source seeded with seed on stream.
func New(seed, stream uint64) rand.Source { return rand.NewPCG(seed, stream) }

// Or returns src, or for a nil src the default source of stream:
// New(Default, stream).
func Or(src rand.Source, stream uint64) rand.Source {
	if src != nil {
		return src
	}
	return New(Default, stream)
}

// Rand returns a generator drawing from Or(src, stream).
func Rand(src rand.Source, stream uint64) *rand.Rand { return rand.New(Or(src, stream)) }
