// Package report writes a latent tree model as one self-contained HTML
// file: an interactive tree (zoom and pan, collapse and expand subtrees,
// search a variable, click a node for its panel: explanation, CPT or
// correlations, state shares), the model's summary (method, options, data
// file and hash, rows, scores, timings), the EM trace as a plot, notes on
// the quality of the data, and with data the classification quality of the
// discrete hidden variables (explain.Classification) and the largest
// bivariate residuals of the observed pairs (Input.Residuals).
//
// The file needs no network: its style sheet, script (plain JavaScript
// written for it) and plots are inline, and the model travels as a JSON
// block the script reads. The tree is laid out in the browser and drawn as
// one SVG, so that a tree of 2,000 nodes stays responsive: depth across,
// leaves a row apart, each label (measured in the page, cut with an
// ellipsis past its width) right of its node and the children right of
// the label, so that no label meets another label, node or edge; it is
// laid out again when a subtree is collapsed. Nodes are marked as package
// draw marks them (observed variables filled circles, hidden ones hollow
// squares, filled when collapsed; in a mixed model continuous nodes teal
// with a second outline), with a legend under the tree. The first
// view shows the whole tree fitted to the window when its labels are
// readable so; a larger tree opens with the levels from the root that fit,
// its labels on up to four narrower lines when that shows more of it.
//
// Element ids and classes are stable, for tests and style sheets: every
// tree node is a <g class="node" data-name="NAME">, the search box is
// #search and the node panel #panel (its title #panel-name).
package report
