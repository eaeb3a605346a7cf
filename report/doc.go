// Package report writes a latent tree model as one self-contained HTML
// file: an interactive tree (zoom and pan, collapse and expand subtrees,
// search a variable, click a node for its panel: explanation, CPT or
// correlations, state shares), the model's summary (method, options, data
// file and hash, rows, scores, timings), the EM trace as a plot and notes on
// the quality of the data.
//
// The file needs no network: its style sheet, script (plain JavaScript
// written for it) and plots are inline, and the model travels as a JSON
// block the script reads. The tree is laid out in the browser (a layered
// layout, leaves one row apart, re-laid out when a subtree is collapsed) and
// drawn as one SVG, so that a tree of 2,000 nodes stays responsive.
//
// Element ids and classes are stable, for tests and style sheets: every
// tree node is a <g class="node" data-name="NAME">, the search box is
// #search and the node panel #panel (its title #panel-name).
package report
