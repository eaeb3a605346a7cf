// Package draw draws latent trees as SVG or PNG pictures, with layouts
// written here.
//
// Two layouts are offered. LayoutTidy is a rooted top-down layout in the
// manner of Reingold and Tilford as made linear-time by Walker and by
// Buchheim, Jünger and Leipert: every node lies at y = depth × the level
// gap, every parent exactly over the midpoint of its first and last
// child, and the subtrees of siblings are pushed together until two
// neighbours on some level are as close as their labels allow. LayoutRadial
// puts the root at the centre and every node at radius depth × the ring
// gap; the leaves are spread evenly in angle in depth-first order (so a
// subtree gets an angle in proportion to its number of leaves) and an inner
// node sits at the middle of its leaves' angles. The ring gap is the least
// at which no two leaf labels, written along the radius outside their
// leaf, overlap. LayoutAuto is tidy up to AutoTidyMax nodes and radial
// beyond. Positions returns the layout itself, for callers that draw on
// their own (the HTML report).
//
// Observed nodes are filled blue circles with their name; hidden nodes are
// hollow orange squares, with their name when they have one. In a mixed
// model's drawing (Options.Kinds, from NodeKinds) continuous nodes are
// teal with a second outline, a ring round the circle or square, and a
// legend of the kinds of node present is set under the tree. Options.Labels
// adds a second line under a node, for example the label of a hidden
// variable from package explain ("god · jesus · bible"). Edge widths show
// dependence strength in [0, 1] (Options.Strength; EdgeStrengths computes
// exp(−d) from a model's exact information distances d, which is |ρ| for a
// Gaussian model).
//
// Labels never overlap: label widths are measured from the metrics of
// Liberation Sans (the font the PNG uses, metric-compatible with the Arial
// and Helvetica the SVG falls back to). In the tidy layout the spacing of
// every level comes from them and edges run between levels, below the
// labels; in the radial layout leaf labels are always drawn and the
// labels of inner nodes are placed, root first, where they overlap no
// other label or node mark, and otherwise left to the node's tooltip.
//
// SVG writes a standalone document (no scripts, external fonts or links;
// text escaped, characters XML forbids replaced by U+FFFD) in which every
// node is a group with id "node-<id>" and class "node observed" or
// "node hidden" (with kinds: "node observed discrete", "node hidden
// continuous", ...). PNG renders the same picture with gonum/plot's pure-Go
// raster backend (vgimg): no cgo and no Graphviz.
package draw
