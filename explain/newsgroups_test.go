package explain

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/experiment"
	"github.com/latentree/latentree/learn"
)

// newsgroupsTrain finds newsgroups100-train.csv as `latentree experiment
// newsgroups` does (experiment.FindDataFile), or skips the test.
func newsgroupsTrain(t *testing.T) string {
	t.Helper()
	const name = "newsgroups100-train.csv"
	p, dirs := experiment.FindDataFile(name)
	if p == "" {
		t.Skipf("%s not found (set %s to its directory; looked in %s)", name, experiment.DataEnvVar, strings.Join(dirs, ", "))
	}
	return p
}

// TestNewsgroupsTopics is the acceptance test of issue 13: on the
// 20 Newsgroups 100-word data, a model learned with CLNJ (the paper's
// threshold contraction, 55 hidden variables, about 7 s; the default BIC
// contraction gives the same topics in about 90 s) has hidden variables
// whose five most related words (by mutual information) read as the
// religion, sports and computing topics.
func TestNewsgroupsTopics(t *testing.T) {
	path := newsgroupsTrain(t)
	if testing.Short() {
		t.Skip("learns a model on 8,121 rows (about 7 s)")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, _, err := data.ReadCSV(f, data.ReadOptions{Name: path, MaxDiscreteStates: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := learn.Learn(d, learn.Options{Contract: learn.ContractOptions{Rule: learn.ContractThreshold}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	e, err := Model(res.Model, Options{Data: d})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("explained %d hidden variables (shares from %d rows) in %v", len(e.Hidden), e.Rows, time.Since(start))
	if len(e.Hidden) != res.Tree.NumHidden() {
		t.Fatalf("%d hidden explained of %d", len(e.Hidden), res.Tree.NumHidden())
	}
	topics := []struct {
		name  string
		words []string
	}{
		{"religion", []string{"god", "jesus", "bible", "christian", "religion"}},
		{"sports", []string{"baseball", "hockey", "games", "team", "season", "players", "nhl", "league"}},
		{"computing", []string{"windows", "dos", "files", "program", "software", "graphics", "computer", "drive", "card", "disk"}},
	}
	for _, topic := range topics {
		var found []string
		for _, h := range e.Hidden {
			if len(h.Related) != DefaultTop {
				t.Fatalf("%s: %d related, want %d", h.Name, len(h.Related), DefaultTop)
			}
			n := 0
			for _, r := range h.Related {
				for _, w := range topic.words {
					if r.Name == w {
						n++
					}
				}
			}
			if n >= 3 {
				found = append(found, h.Name+" ("+h.Label+")")
			}
		}
		if len(found) == 0 {
			t.Errorf("no hidden variable has three %s words among its top five", topic.name)
			continue
		}
		t.Logf("%s: %s", topic.name, strings.Join(found, ", "))
	}
}
