package tree

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// NewickError is a syntax or content error in Newick input.
type NewickError struct {
	Offset int    // byte offset of the error in the input, from 0
	Line   int    // line number, from 1
	Column int    // column in characters, from 1
	Msg    string // what went wrong or what was expected
}

// Error implements error.
func (e *NewickError) Error() string {
	return fmt.Sprintf("newick: line %d, column %d (byte %d): %s", e.Line, e.Column, e.Offset, e.Msg)
}

// ReadNewick reads one tree in Newick format from r. See ParseNewick.
func ReadNewick(r io.Reader, opt NewickOptions) (*Tree, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("newick: %w", err)
	}
	return ParseNewick(string(b), opt)
}

// ParseNewick parses one tree in Newick format.
//
// Leaves must be labelled; they become observed nodes. Unlabelled internal
// nodes become hidden nodes and labelled ones observed nodes (but see
// NewickOptions.HiddenInternalLabels). Labels are unquoted, with
// underscores standing for spaces, or quoted with single quotes, a quote
// inside being doubled. Branch lengths become edge lengths (NaN when
// absent); they must be finite and not negative. A length on the root is
// ignored. Comments in square brackets and whitespace between tokens are
// skipped. The tree must end with a semicolon (unless Lenient), after
// which only whitespace and comments may follow. Labels must be distinct.
// An unlabelled root of degree two is removed unless KeepRoot.
//
// Errors are *NewickError values locating the problem in s.
func ParseNewick(s string, opt NewickOptions) (*Tree, error) {
	p := &newickParser{src: s}
	if err := p.parse(opt); err != nil {
		return nil, err
	}
	return p.build(opt)
}

// Token kinds.
const (
	tokEOF = iota
	tokOpen
	tokClose
	tokComma
	tokColon
	tokSemi
	tokLabel
)

type newickToken struct {
	kind   int
	off    int
	text   string // label text, after unquoting and underscore conversion
	quoted bool
}

// pnode is a node of the parsed tree, before building the Tree.
type pnode struct {
	parent   int
	label    string
	hasLabel bool
	labelOff int
	length   float64
	children int
}

type newickParser struct {
	src   string
	pos   int
	nodes []pnode
}

func (p *newickParser) errAt(off int, format string, args ...any) error {
	line, col := 1, 1
	for i, r := range p.src {
		if i >= off {
			break
		}
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &NewickError{Offset: off, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// next returns the next token, skipping whitespace and comments.
func (p *newickParser) next() (newickToken, error) {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if isNewickSpace(c) {
			p.pos++
			continue
		}
		if c == '[' {
			end := strings.IndexByte(p.src[p.pos+1:], ']')
			if end < 0 {
				return newickToken{}, p.errAt(p.pos, "unterminated comment: expected ']'")
			}
			p.pos += end + 2
			continue
		}
		break
	}
	off := p.pos
	if off == len(p.src) {
		return newickToken{kind: tokEOF, off: off}, nil
	}
	c := p.src[off]
	switch c {
	case '(':
		p.pos++
		return newickToken{kind: tokOpen, off: off}, nil
	case ')':
		p.pos++
		return newickToken{kind: tokClose, off: off}, nil
	case ',':
		p.pos++
		return newickToken{kind: tokComma, off: off}, nil
	case ':':
		p.pos++
		return newickToken{kind: tokColon, off: off}, nil
	case ';':
		p.pos++
		return newickToken{kind: tokSemi, off: off}, nil
	case ']':
		return newickToken{}, p.errAt(off, "unexpected ']' outside a comment")
	case '\'':
		var sb strings.Builder
		i := off + 1
		for {
			j := strings.IndexByte(p.src[i:], '\'')
			if j < 0 {
				return newickToken{}, p.errAt(off, "unterminated quoted label: expected '")
			}
			sb.WriteString(p.src[i : i+j])
			i += j + 1
			if i < len(p.src) && p.src[i] == '\'' {
				sb.WriteByte('\'')
				i++
				continue
			}
			break
		}
		p.pos = i
		return newickToken{kind: tokLabel, off: off, text: sb.String(), quoted: true}, nil
	}
	i := off
	for i < len(p.src) && !isNewickPunct(p.src[i]) {
		i++
	}
	p.pos = i
	return newickToken{kind: tokLabel, off: off, text: p.src[off:i]}, nil
}

func describeToken(tok newickToken) string {
	switch tok.kind {
	case tokEOF:
		return "end of input"
	case tokOpen:
		return "'('"
	case tokClose:
		return "')'"
	case tokComma:
		return "','"
	case tokColon:
		return "':'"
	case tokSemi:
		return "';'"
	}
	return fmt.Sprintf("label %q", tok.text)
}

// parse reads the input into p.nodes (node 0 is the root; parents come
// before children), using an explicit stack so that deep nesting cannot
// exhaust the goroutine stack.
func (p *newickParser) parse(opt NewickOptions) error {
	var stack []int // open internal nodes
	newNode := func() int {
		parent := -1
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
			p.nodes[parent].children++
		}
		p.nodes = append(p.nodes, pnode{parent: parent, length: math.NaN(), labelOff: -1})
		return len(p.nodes) - 1
	}
	const (
		stSubtree = iota // expecting a subtree
		stLabel          // after ')': optional label, length, then separator
		stLength         // after a label: optional length, then separator
		stSep            // expecting ',', ')' or ';'
	)
	state := stSubtree
	cur := -1 // the node whose label and length are being read
	for {
		tok, err := p.next()
		if err != nil {
			return err
		}
		switch state {
		case stSubtree:
			switch tok.kind {
			case tokOpen:
				stack = append(stack, newNode())
				continue
			case tokLabel:
				cur = newNode()
				p.setLabel(cur, tok)
				state = stLength
				continue
			case tokComma, tokClose, tokColon:
				if len(stack) > 0 || tok.kind == tokColon {
					return p.errAt(tok.off, "leaf without a label: expected a label or '(' before %s", describeToken(tok))
				}
			}
			if len(p.nodes) == 0 && (tok.kind == tokEOF || tok.kind == tokSemi) {
				return p.errAt(tok.off, "expected a tree, found %s", describeToken(tok))
			}
			return p.errAt(tok.off, "expected a label or '(', found %s", describeToken(tok))
		case stLabel:
			if tok.kind == tokLabel {
				p.setLabel(cur, tok)
				state = stLength
				continue
			}
			fallthrough
		case stLength:
			if tok.kind == tokColon {
				lt, err := p.next()
				if err != nil {
					return err
				}
				if lt.kind != tokLabel || lt.quoted {
					return p.errAt(lt.off, "expected a branch length after ':', found %s", describeToken(lt))
				}
				x, err := strconv.ParseFloat(lt.text, 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return p.errAt(lt.off, "invalid branch length %q: expected a finite number", lt.text)
				}
				if x < 0 {
					return p.errAt(lt.off, "negative branch length %s", lt.text)
				}
				p.nodes[cur].length = x
				state = stSep
				continue
			}
			fallthrough
		case stSep:
			switch tok.kind {
			case tokComma:
				if len(stack) == 0 {
					return p.errAt(tok.off, "',' outside parentheses: expected ';' after the tree")
				}
				state = stSubtree
				continue
			case tokClose:
				if len(stack) == 0 {
					return p.errAt(tok.off, "unbalanced ')': expected ';' after the tree")
				}
				cur = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				state = stLabel
				continue
			case tokSemi, tokEOF:
				if len(stack) > 0 {
					return p.errAt(tok.off, "expected ',' or ')' before %s (%d unclosed '(')", describeToken(tok), len(stack))
				}
				if tok.kind == tokEOF && !opt.Lenient {
					return p.errAt(tok.off, "expected ';' at the end of the tree")
				}
				if tok.kind == tokSemi {
					return p.finish()
				}
				return nil
			}
			var want []string
			switch state {
			case stLabel:
				want = append(want, "a label", "':'")
			case stLength:
				want = append(want, "':'")
			}
			if len(stack) > 0 {
				want = append(want, "','", "')'")
			} else {
				want = append(want, "';'")
			}
			return p.errAt(tok.off, "expected %s, found %s", alternatives(want), describeToken(tok))
		}
	}
}

// finish checks that nothing but whitespace and comments follows the tree.
func (p *newickParser) finish() error {
	tok, err := p.next()
	if err != nil {
		return err
	}
	if tok.kind != tokEOF {
		return p.errAt(tok.off, "unexpected %s after the end of the tree (only one tree may be read)", describeToken(tok))
	}
	return nil
}

func (p *newickParser) setLabel(id int, tok newickToken) {
	text := tok.text
	if !tok.quoted {
		text = strings.ReplaceAll(text, "_", " ")
	}
	p.nodes[id].label = text
	p.nodes[id].hasLabel = true
	p.nodes[id].labelOff = tok.off
}

// build turns the parsed nodes into a Tree.
func (p *newickParser) build(opt NewickOptions) (*Tree, error) {
	nodes := make([]Node, len(p.nodes))
	for k, n := range p.nodes {
		switch {
		case n.children == 0:
			if !n.hasLabel || n.label == "" {
				return nil, p.errAt(n.labelOff, "leaf with an empty label")
			}
			nodes[k] = Node{Name: n.label}
		case !n.hasLabel || n.label == "":
			nodes[k] = Node{Hidden: true}
		case opt.HiddenInternalLabels:
			nodes[k] = Node{Hidden: true, Name: n.label}
			if isNumber(n.label) {
				nodes[k].Name = "" // a support value, not a name
			}
		default:
			nodes[k] = Node{Name: n.label}
		}
	}
	suppress := !opt.KeepRoot && p.nodes[0].children == 2 && nodes[0].Hidden && nodes[0].Name == ""
	t := &Tree{}
	ids := make([]int, len(p.nodes))
	for k, n := range nodes {
		if k == 0 && suppress {
			ids[0] = -1
			continue
		}
		id, err := t.AddNode(n)
		if err != nil {
			if errors.Is(err, ErrDuplicateName) {
				hint := ""
				if p.nodes[k].children > 0 && !opt.HiddenInternalLabels {
					hint = " (if internal labels are support values, read with HiddenInternalLabels)"
				}
				return nil, p.errAt(p.nodes[k].labelOff, "duplicate label %q%s", n.Name, hint)
			}
			return nil, p.errAt(p.nodes[k].labelOff, "%v", err)
		}
		ids[k] = id
	}
	var rootKids []int
	for k := 1; k < len(p.nodes); k++ {
		parent := p.nodes[k].parent
		if ids[parent] < 0 {
			rootKids = append(rootKids, k)
			continue
		}
		// A new edge of the parsed tree: it cannot fail.
		if err := t.AddEdge(ids[parent], ids[k], p.nodes[k].length); err != nil {
			return nil, internalError("reading Newick", err)
		}
	}
	if suppress {
		a, b := rootKids[0], rootKids[1]
		l := p.nodes[a].length + p.nodes[b].length
		if math.IsInf(l, 0) {
			return nil, p.errAt(0, "the branch lengths at the removed root add up to more than the largest float64")
		}
		if err := t.AddEdge(ids[a], ids[b], l); err != nil { // two distinct children
			return nil, internalError("reading Newick", err)
		}
	}
	return t, nil
}

// isNumber reports whether a label is a decimal number such as a bootstrap
// support value (0.95, 100, 1e-3).
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case c >= '0' && c <= '9', c == '.', c == '+', c == '-':
	default:
		return false
	}
	x, err := strconv.ParseFloat(s, 64)
	return err == nil && !math.IsNaN(x) && !math.IsInf(x, 0)
}

// alternatives joins "x", "y", "z" as "x, y or z".
func alternatives(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
