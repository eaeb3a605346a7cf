package model_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/spectral"
	"github.com/latentree/latentree/simulate"
)

// FuzzRead reads arbitrary bytes as a model file of any registered family
// (discrete, Gaussian, spectral, mixed), seeded with a small file of each: it
// must return a model or an error, never panic, and a model it returns
// must write and read back.
func FuzzRead(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 1))
	tr, err := simulate.DoubleStar(2, 2)
	if err != nil {
		f.Fatal(err)
	}
	d, err := simulate.Symmetric(rng, tr.Clone(), simulate.SymmetricOptions{})
	if err != nil {
		f.Fatal(err)
	}
	g, err := simulate.Gaussian(rng, tr.Clone(), simulate.GaussianOptions{})
	if err != nil {
		f.Fatal(err)
	}
	rows, err := d.Sample(rng, 200)
	if err != nil {
		f.Fatal(err)
	}
	sp, err := spectral.Fit(tr.Clone(), rows, spectral.Options{})
	if err != nil {
		f.Fatal(err)
	}
	mx, err := simulate.RandomMixed(rng, 6, simulate.MinimalOptions{}, simulate.MixedOptions{ContinuousHidden: 1})
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range []model.Model{d, g, sp, mx} {
		var b bytes.Buffer
		if err := m.WriteJSON(&b, nil); err != nil {
			f.Fatal(err)
		}
		if _, _, err := model.Read(bytes.NewReader(b.Bytes())); err != nil {
			f.Fatalf("the seed of a %T does not read: %v", m, err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"format":"latentree-model","version":1,"type":"discrete"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		m, _, err := model.Read(bytes.NewReader(in))
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Error("empty error message")
			}
			return
		}
		var b bytes.Buffer
		if err := m.WriteJSON(&b, nil); err != nil {
			return // a model read may still be unwritable (e.g. non-finite values); no panic is the property
		}
		if _, _, err := model.Read(&b); err != nil {
			t.Errorf("a model read from the input does not read back after writing: %v", err)
		}
	})
}
