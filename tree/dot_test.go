package tree

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func dotFixture(t *testing.T) *Tree {
	tr := New()
	a, _ := tr.AddObserved(`x"y`)
	h := tr.AddHidden()
	b, _ := tr.AddObserved(`b\n`)
	g, _ := tr.AddNode(Node{Name: "h", Hidden: true})
	c, _ := tr.AddObserved("c\nd")
	for _, e := range []Edge{{a, h, 0.5}, {h, b, math.NaN()}, {h, g, 1.23456}, {g, c, 1e-5}} {
		if err := tr.AddEdge(e.U, e.V, e.Length); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func TestWriteDOT(t *testing.T) {
	var sb strings.Builder
	if err := WriteDOT(&sb, dotFixture(t), DOTOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `graph "tree" {
  node [fontsize=10];
  n0 [label="x\"y", shape=box];
  n1 [label="#1", shape=circle, width=0.3, height=0.3, margin=0.02, fontsize=8];
  n2 [label="b\\n", shape=box];
  n3 [label="h", shape=circle, width=0.3, height=0.3, margin=0.02, fontsize=8];
  n4 [label="c\nd", shape=box];
  n0 -- n1 [label="0.5"];
  n1 -- n2;
  n1 -- n3 [label="1.23"];
  n3 -- n4 [label="1e-05"];
}
`
	if sb.String() != want {
		t.Errorf("WriteDOT =\n%s\nwant\n%s", sb.String(), want)
	}
}

func TestWriteDOTOptions(t *testing.T) {
	tr := dotFixture(t)
	tr.RemoveNode(4) // a forest is drawn as it is
	var sb strings.Builder
	if err := WriteDOT(&sb, tr, DOTOptions{GraphName: `my "g"`, UnlabelledHidden: true, NoLengths: true}); err != nil {
		t.Fatal(err)
	}
	want := `graph "my \"g\"" {
  node [fontsize=10];
  n0 [label="x\"y", shape=box];
  n1 [label="", shape=circle, width=0.12, height=0.12];
  n2 [label="b\\n", shape=box];
  n3 [label="", shape=circle, width=0.12, height=0.12];
  n0 -- n1;
  n1 -- n2;
  n1 -- n3;
}
`
	if sb.String() != want {
		t.Errorf("WriteDOT =\n%s\nwant\n%s", sb.String(), want)
	}
	if err := WriteDOT(failingWriter{}, tr, DOTOptions{}); err == nil {
		t.Error("write error not returned")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("write failed") }
