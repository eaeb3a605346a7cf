package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/draw"
	"github.com/latentree/latentree/explain"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

func init() { viewCommands = append(viewCommands, newDrawCmd) }

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func newDrawCmd(e *env) *cobra.Command {
	var (
		out, format, layout, title, root string
		labels, asJSON                   bool
		width, height                    float64
	)
	c := &cobra.Command{
		Use:   "draw TREE.nwk|TREE.json|MODEL.json --out FILE.svg|FILE.png|FILE.dot",
		Short: "Draw a tree or model as an SVG or PNG picture, or write it as Graphviz DOT",
		Long: `draw reads a tree (Newick, latentree tree JSON) or a model (the JSON that
learn --out and fit --out write; "-" reads standard input) and draws it:
observed variables as filled circles with their names, hidden variables as
hollow squares. With a model, edge widths show the strength of the
dependence along each edge, exp(−d) for the exact information distance d
(|ρ| for a Gaussian model), the drawing is rooted at the model's root, and
--labels writes under every hidden variable its label from explain (its most
related observed variables). A mixed model (discrete and continuous
variables) marks its continuous nodes, observed and hidden, with a second
outline in teal, and a legend of the four kinds of node is drawn under the
tree.

The format comes from --out's extension (.svg, .png, or .dot or .gv for a
Graphviz DOT graph of the tree, continuous nodes of a mixed model with a
double outline; Graphviz lays it out, so the layout, label, title and size
flags do not apply) or --format; --out - writes SVG to standard output.
--layout tidy draws top-down (parents centred over their children), radial
puts the root at the centre and the leaves around a circle; auto (the
default) is tidy up to 150 nodes and radial beyond. Labels never overlap: in the radial
layout, labels of inner nodes that have no free place are left to the node's
tooltip (SVG). The SVG is standalone (no fonts or links); the PNG is rendered
without cgo or Graphviz, at most 4096 pixels a side unless --width or --height
are given (each at most 65536, and a PNG at most 67,108,864 pixels).

A summary line goes to standard output, or with --json a JSON summary
({"input", "out", "format", "layout", "nodes", "observed", "hidden",
"labels", "bytes"}), on standard error when the picture goes to standard
output.`,
		Example: `  latentree draw learned.nwk --out tree.svg
  latentree draw model.json --out model.png --labels
  latentree draw model.json --out - --layout radial --title "newsgroups" > tree.svg
  latentree draw learned.nwk --out tree.svg --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("--out is required (FILE.svg, FILE.png, or - for SVG on standard output)")
			}
			lay, err := draw.ParseLayout(layout)
			if err != nil {
				return usagef("--layout %q: want auto, tidy or radial", layout)
			}
			f := strings.ToLower(format)
			if f == "" {
				switch ext := strings.ToLower(filepath.Ext(out)); {
				case out == "-":
					f = "svg"
				case ext == ".svg" || ext == ".png" || ext == ".dot":
					f = ext[1:]
				case ext == ".gv":
					f = "dot"
				default:
					return usagef("--out %s: cannot tell the format from the extension %q; name the file .svg, .png or .dot or give --format", out, ext)
				}
			}
			if f != "svg" && f != "png" && f != "dot" {
				return usagef("--format %q: want svg, png or dot", format)
			}
			if f == "dot" {
				// Graphviz lays the graph out and sizes it itself.
				for _, name := range []string{"labels", "layout", "title", "width", "height", "root"} {
					if cmd.Flags().Changed(name) {
						return usagef("--%s applies to SVG and PNG pictures, not to DOT (Graphviz lays the graph out)", name)
					}
				}
			}
			if err := (&draw.Options{Width: width, Height: height}).Validate(); err != nil {
				return drawOptionError(err)
			}
			if err := e.checkPaths([]pathFlag{{"TREE", args[0]}}, []pathFlag{{"--out", out}}); err != nil {
				return err
			}
			// Standard input is read once and given to both readers.
			src := e
			if args[0] == "-" {
				b, err := readAll(e.stdin, "<stdin>")
				if err != nil {
					return err
				}
				src = &env{stdin: bytes.NewReader(b), stdout: e.stdout, stderr: e.stderr}
			}
			t, err := src.readTree(args[0])
			if err != nil {
				return err
			}
			opt := draw.Options{Layout: lay, Width: width, Height: height, Title: title}
			var m model.Model
			if args[0] == "-" {
				src.stdin.(*bytes.Reader).Seek(0, io.SeekStart)
			}
			if mm, _, merr := src.readModel(args[0]); merr == nil {
				m = mm
			} else if labels {
				return usagef("--labels needs a model file (what learn --out and fit --out write): %v", merr)
			}
			if m != nil {
				t = m.Structure()
				opt.Root, opt.RootSet = m.RootNode(), true
				opt.Kinds = draw.NodeKinds(m)
				if opt.Strength, err = draw.EdgeStrengths(m); err != nil {
					return err
				}
				if labels {
					x, err := explain.Model(m, explain.Options{})
					if err != nil {
						return err
					}
					opt.Labels = x.Labels()
				}
			}
			if root != "" {
				v, ok := t.Lookup(root)
				if !ok {
					return usagef("--root %q is not a node of the tree", root)
				}
				opt.Root, opt.RootSet = v, true
			}
			write := draw.SVG
			switch f {
			case "png":
				write = draw.PNG
			case "dot":
				write = func(w io.Writer, t *tree.Tree, opt draw.Options) error {
					var cont []bool
					for v, k := range opt.Kinds {
						if k == data.Continuous {
							if cont == nil {
								cont = make([]bool, len(opt.Kinds))
							}
							cont[v] = true
						}
					}
					return tree.WriteDOT(w, t, tree.DOTOptions{Continuous: cont})
				}
			}
			var size int64
			if err := e.writeTo(out, func(w io.Writer) error {
				cw := &countingWriter{w: w}
				err := write(cw, t, opt)
				size = cw.n
				return err
			}); err != nil {
				var oe *draw.OptionError
				if errors.As(err, &oe) {
					return drawOptionError(err)
				}
				return err
			}
			if asJSON {
				used := lay
				if used == draw.LayoutAuto {
					used = draw.LayoutTidy
					if t.NumNodes() > draw.AutoTidyMax {
						used = draw.LayoutRadial
					}
				}
				doc := map[string]any{
					"input": args[0], "out": out, "format": f, "layout": used.String(),
					"nodes": t.NumNodes(), "observed": t.NumObserved(), "hidden": t.NumHidden(),
					"labels": len(opt.Labels) > 0, "bytes": size,
				}
				if f == "dot" {
					delete(doc, "layout") // Graphviz's
				}
				return writeJSON(e.summaryWriter([]pathFlag{{"--out", out}}), doc)
			}
			if out != "-" {
				fmt.Fprintf(e.stdout, "drew %d nodes (%d hidden) to %s\n", t.NumNodes(), t.NumHidden(), out)
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVarP(&out, "out", "o", "", "output file: .svg, .png or .dot, or - for SVG on standard output (required)")
	fl.StringVar(&format, "format", "", "svg, png or dot (default: from --out's extension)")
	fl.StringVar(&layout, "layout", "auto", "auto, tidy or radial")
	fl.BoolVar(&labels, "labels", false, "write each hidden variable's label from explain under it (model files)")
	fl.StringVar(&title, "title", "", "title drawn above the tree")
	fl.StringVar(&root, "root", "", "root the drawing at this node (default: the model's root, or the tree's centre)")
	fl.Float64Var(&width, "width", 0, "picture width in pixels (default: from the layout)")
	fl.Float64Var(&height, "height", 0, "picture height in pixels (default: from the layout)")
	fl.BoolVar(&asJSON, "json", false, "print a JSON summary (on standard error when the picture goes to standard output)")
	return c
}

// drawOptionError is a usage error for draw.Options' errors, naming the
// flag of a *draw.OptionError.
func drawOptionError(err error) error {
	var oe *draw.OptionError
	if errors.As(err, &oe) {
		return usagef("--%s %v: want %s", strings.ToLower(oe.Option), oe.Value, oe.Want)
	}
	return usageError{err}
}
