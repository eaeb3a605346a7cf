// Package modeltest checks that a model family implements the Model
// interface consistently: the tests every family package runs on its
// models.
package modeltest

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// Mismatch checks that d, which lacks the model variables named in lack and
// has the columns named in more that m does not know, is an error naming
// both for every operation of m.
func Mismatch(t *testing.T, m model.Model, d *data.Dataset, lack, more string) {
	t.Helper()
	for name, f := range map[string]func() error{
		"LogLikelihood": func() error { _, _, err := m.LogLikelihood(d, model.InferOptions{}); return err },
		"Score":         func() error { _, err := m.Score(d, model.InferOptions{}); return err },
		"Impute":        func() error { _, err := m.Impute(d, model.ImputeOptions{}); return err },
		"Conditionals":  func() error { _, err := m.Conditionals(d, nil, model.InferOptions{}); return err },
	} {
		err := f()
		var me *model.MismatchError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), lack) || !strings.Contains(err.Error(), more) {
			t.Errorf("%T %s: %v, want both %s and %s named", m, name, err, lack, more)
		}
	}
}

// Interface runs every Model method of orig, a model with hidden nodes,
// through the interface, after a JSON round trip through model.Read (so
// orig's family must be registered).
func Interface(t *testing.T, orig model.Model) {
	t.Helper()
	var buf bytes.Buffer
	if err := orig.WriteJSON(&buf, &model.Provenance{Method: "test"}); err != nil {
		t.Fatal(err)
	}
	m, prov, err := model.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if prov == nil || prov.Method != "test" {
		t.Errorf("%T: provenance %+v", m, prov)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.NumParams() != orig.NumParams() || m.Kind() != orig.Kind() || m.Structure().Name(m.RootNode()) != orig.Structure().Name(orig.RootNode()) {
		t.Errorf("%T: read back differs", m)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	d, err := m.Sample(rng, 30)
	if err != nil {
		t.Fatal(err)
	}
	ll, total, err := m.LogLikelihood(d, model.InferOptions{})
	if err != nil || len(ll) != 30 {
		t.Fatal(err)
	}
	sc, err := m.Score(d, model.InferOptions{})
	if err != nil || sc.LogLik != total || sc.Params != m.NumParams() {
		t.Errorf("%T: score %+v, %v", m, sc, err)
	}
	tr := m.Structure()
	hid := tr.Hidden()
	cond, err := m.Conditionals(d, hid, model.InferOptions{})
	if err != nil || len(cond) != len(hid) || cond[0].Name != tr.Name(hid[0]) {
		t.Fatalf("%T: conditionals %v", m, err)
	}
	imp, err := m.Impute(d, model.ImputeOptions{})
	if err != nil || len(imp.Cells) != 0 || imp.Data.NumRows() != 30 {
		t.Errorf("%T: impute of complete data %v", m, err)
	}
	obs := tr.Observed()
	dist, err := m.InformationDistances(obs)
	if err != nil || len(dist) != len(obs)*len(obs) || !(dist[1] > 0) {
		t.Errorf("%T: distances %v %v", m, dist, err)
	}
	if _, err := m.InformationDistances([]int{1000}); err == nil {
		t.Errorf("%T: distance to a node not in the tree accepted", m)
	}
}
