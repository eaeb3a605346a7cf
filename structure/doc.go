// Package structure learns the structure of latent tree models from
// information distances between observed variables: Chow–Liu trees and
// minimum spanning trees, neighbor joining (Saitou and Nei 1987), and the
// methods of Choi, Tan, Anandkumar and Willsky (JMLR 2011): recursive
// grouping (RG, exact and relaxed), CLBlind and CLGrouping (CLRG, CLNJ).
//
// Every learner takes a distance.Matrix and returns a tree.Tree whose
// observed nodes are the matrix's variables and whose hidden nodes were
// introduced by the method, with estimated distances as edge lengths, and
// a Report of what it did. Infinite distances (independent pairs) are
// replaced by a large finite value and reported; NaN and negative entries
// are errors.
//
// Learn can contract short edges by a length threshold ε′ (Options.
// Contract), which needs nothing but distances. When data are at hand,
// ContractByScore contracts an edge at a hidden node only when a caller's
// score of the fitted model (for example −BIC; see learn.ContractByBIC)
// improves, so that contraction cannot make the model worse.
package structure
