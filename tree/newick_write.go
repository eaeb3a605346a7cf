package tree

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteNewick writes t in Newick format, followed by a newline.
//
// The tree is written from a root chosen as: its only hidden leaf if it has
// one; else the hidden node of degree three or more with the smallest
// identifier; else the observed internal node with the smallest identifier;
// else, with opt.LabelHidden, the hidden node (of degree two) with the
// smallest identifier; else the observed node with the smallest identifier.
// (An unlabelled hidden root of degree two would be removed on reading.) Children are ordered
// by the smallest observed name in their subtrees, so the output depends only
// on the tree and its root. Observed nodes are written with their names
// (internal ones as labels of internal nodes), hidden nodes without labels
// unless opt.LabelHidden. Known edge lengths are written in the shortest
// form that reads back exactly; unknown (NaN) ones are omitted. Labels are
// quoted when they contain whitespace, underscores, punctuation that Newick
// reserves or control characters.
//
// It is an error if t is not a valid tree (see Validate), has no observed
// node, or has more than one hidden leaf (a Newick leaf needs a label; a
// single hidden leaf is written as the root).
func WriteNewick(w io.Writer, t *Tree, opt NewickOptions) error {
	s, err := newickString(t, opt)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, s+"\n")
	return err
}

// Newick returns t in Newick format with the default options, without a
// trailing newline, or the empty string if t cannot be written (see
// WriteNewick).
func (t *Tree) Newick() string {
	s, err := newickString(t, NewickOptions{})
	if err != nil {
		return ""
	}
	return s
}

func newickString(t *Tree, opt NewickOptions) (string, error) {
	if err := t.Validate(); err != nil {
		return "", fmt.Errorf("newick: %w", err)
	}
	root, err := newickRoot(t, opt.LabelHidden)
	if err != nil {
		return "", err
	}
	names := t.ObservedNames()
	rank := make(map[string]int, len(names))
	for i, n := range names {
		rank[n] = i
	}
	r := t.Root(root)
	// minRank[v] is the smallest rank of an observed name in v's subtree.
	minRank := make([]int, t.MaxID())
	for k := len(r.Order) - 1; k >= 0; k-- {
		v := r.Order[k]
		m := math.MaxInt
		if !t.nodes[v].Hidden {
			m = rank[t.nodes[v].Name]
		}
		for _, c := range r.Children[v] {
			m = min(m, minRank[c])
		}
		minRank[v] = m
	}
	for _, v := range r.Order {
		slices.SortFunc(r.Children[v], func(a, b int) int { return minRank[a] - minRank[b] })
	}
	var sb strings.Builder
	label := func(v int) {
		switch {
		case !t.nodes[v].Hidden:
			sb.WriteString(quoteNewick(t.nodes[v].Name))
		case opt.LabelHidden:
			sb.WriteString(quoteNewick(t.Name(v)))
		}
		if v != root {
			if l := r.ParentLength[v]; !math.IsNaN(l) {
				sb.WriteByte(':')
				sb.WriteString(strconv.FormatFloat(l, 'g', -1, 64))
			}
		}
	}
	// Iterative depth-first writing: a frame is a node and the index of its
	// next child.
	type frame struct{ v, next int }
	stack := []frame{{root, 0}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		kids := r.Children[f.v]
		if len(kids) == 0 {
			label(f.v)
			stack = stack[:len(stack)-1]
			continue
		}
		if f.next == len(kids) {
			sb.WriteByte(')')
			label(f.v)
			stack = stack[:len(stack)-1]
			continue
		}
		if f.next == 0 {
			sb.WriteByte('(')
		} else {
			sb.WriteByte(',')
		}
		c := kids[f.next]
		f.next++
		stack = append(stack, frame{c, 0})
	}
	sb.WriteByte(';')
	return sb.String(), nil
}

// newickRoot chooses the node to write a tree from (see WriteNewick).
func newickRoot(t *Tree, labelHidden bool) (int, error) {
	hiddenLeaf, hiddenLeaves := -1, 0
	hub, obsInternal, obs, unary := -1, -1, -1, -1
	for _, v := range t.Nodes() {
		d := len(t.adj[v])
		switch {
		case t.nodes[v].Hidden && d <= 1:
			hiddenLeaves++
			if hiddenLeaf < 0 {
				hiddenLeaf = v
			}
		case t.nodes[v].Hidden && d >= 3:
			if hub < 0 {
				hub = v
			}
		case t.nodes[v].Hidden:
			if unary < 0 {
				unary = v
			}
		case !t.nodes[v].Hidden:
			if obs < 0 {
				obs = v
			}
			if d >= 2 && obsInternal < 0 {
				obsInternal = v
			}
		}
	}
	switch {
	case obs < 0:
		return -1, errors.New("newick: the tree has no observed node")
	case hiddenLeaves > 1:
		return -1, fmt.Errorf("newick: the tree has %d hidden leaves, which Newick cannot represent (at most one, as the root); remove them first, e.g. with SuppressHidden", hiddenLeaves)
	case hiddenLeaf >= 0:
		return hiddenLeaf, nil
	case hub >= 0:
		return hub, nil
	case obsInternal >= 0:
		return obsInternal, nil
	case labelHidden && unary >= 0:
		return unary, nil
	}
	return obs, nil
}

// quoteNewick returns the label as it must be written in Newick: unchanged
// if it is safe unquoted, otherwise in single quotes with quotes doubled.
func quoteNewick(s string) string {
	safe := s != ""
	for i := 0; i < len(s) && safe; i++ {
		c := s[i]
		if isNewickPunct(c) || c == '_' || c < 0x20 || c == 0x7f {
			safe = false
		}
	}
	if safe && !utf8.ValidString(s) {
		safe = false
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
