package tree

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
)

// DOTOptions controls WriteDOT. The zero value gives the defaults described
// for each field.
type DOTOptions struct {
	// GraphName is the name of the graph; "tree" if empty.
	GraphName string
	// UnlabelledHidden draws hidden nodes without a label. By default they
	// are labelled with Tree.Name ("#id" for unnamed ones).
	UnlabelledHidden bool
	// NoLengths leaves out the edge labels that show known lengths.
	NoLengths bool
	// Continuous marks the continuous nodes of a model with discrete and
	// continuous variables (indexed by node identifier): they are drawn
	// with a double outline in teal, and a legend node (an unconnected
	// note naming the marks) is added. Nil marks none.
	Continuous []bool
}

// WriteDOT writes t as an undirected Graphviz graph: observed nodes are
// boxes labelled with their names, hidden nodes small circles (continuous
// ones, by DOTOptions.Continuous, with a double outline), and edges of
// known length are labelled with it (printf format %.3g). Nodes are written
// in increasing order of identifier as n<id>, and edges as by Tree.Edges.
// Any state of the tree can be drawn, including forests.
func WriteDOT(w io.Writer, t *Tree, opt DOTOptions) error {
	name := opt.GraphName
	if name == "" {
		name = "tree"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "graph %s {\n", quoteDOT(name))
	b.WriteString("  node [fontsize=10];\n")
	anyCont := false
	for _, id := range t.Nodes() {
		cont := ""
		if id < len(opt.Continuous) && opt.Continuous[id] {
			cont, anyCont = ", peripheries=2, color=\"#17877a\"", true
		}
		switch {
		case !t.nodes[id].Hidden:
			fmt.Fprintf(&b, "  n%d [label=%s, shape=box%s];\n", id, quoteDOT(t.nodes[id].Name), cont)
		case opt.UnlabelledHidden:
			fmt.Fprintf(&b, "  n%d [label=\"\", shape=circle, width=0.12, height=0.12%s];\n", id, cont)
		default:
			fmt.Fprintf(&b, "  n%d [label=%s, shape=circle, width=0.3, height=0.3, margin=0.02, fontsize=8%s];\n", id, quoteDOT(t.Name(id)), cont)
		}
	}
	if anyCont {
		b.WriteString("  legend [shape=note, fontsize=9, label=\"box: observed, circle: hidden\\ndouble teal outline: continuous\\nsingle outline: discrete\"];\n")
	}
	for _, e := range t.Edges() {
		if opt.NoLengths || math.IsNaN(e.Length) {
			fmt.Fprintf(&b, "  n%d -- n%d;\n", e.U, e.V)
		} else {
			fmt.Fprintf(&b, "  n%d -- n%d [label=%s];\n", e.U, e.V, quoteDOT(fmt.Sprintf("%.3g", e.Length)))
		}
	}
	b.WriteString("}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// quoteDOT returns s as a DOT double-quoted string that Graphviz displays as
// s: quotes and backslashes are escaped, and line breaks become \n.
func quoteDOT(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
