package tree

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteDOTContinuous(t *testing.T) {
	tr, err := ParseNewick("(a,b,(c,d)g)h;", NewickOptions{HiddenInternalLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	cont := make([]bool, tr.MaxID())
	for _, name := range []string{"b", "g", "c"} {
		v, _ := tr.Lookup(name)
		cont[v] = true
	}
	var plain, marked bytes.Buffer
	if err := WriteDOT(&plain, tr, DOTOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteDOT(&marked, tr, DOTOptions{Continuous: cont}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "peripheries") || strings.Contains(plain.String(), "legend") {
		t.Errorf("unmarked DOT has marks:\n%s", plain.String())
	}
	for _, line := range strings.Split(marked.String(), "\n") {
		for _, name := range []string{"a", "b", "c", "d", "g", "h"} {
			if !strings.Contains(line, `label="`+name+`"`) {
				continue
			}
			v, _ := tr.Lookup(name)
			if got := strings.Contains(line, "peripheries=2"); got != cont[v] {
				t.Errorf("node %s: double outline %v, want %v: %s", name, got, cont[v], line)
			}
		}
	}
	if strings.Count(marked.String(), "legend [") != 1 {
		t.Errorf("no legend:\n%s", marked.String())
	}
}
