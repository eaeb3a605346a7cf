// Package vem fits bipartite noisy-or networks (noisyor.Network) by
// variational EM, the baseline of Šingliar & Hauskrecht (JMLR 7, 2006)
// with the positive-finding bound of Jaakkola & Jordan (JAIR 10, 1999):
// given the number of sources K, every source may be a parent of every
// effect, each row's posterior is bounded by a factorised one, and the
// bound is raised by alternating E- and M-steps from random starts, the
// best of which Fit returns (the comment at the top of vem.go gives the
// bound and the updates).
//
// How to choose. Fit needs K and many restarts (the problem has poor
// local optima) and gives a lower bound, not the likelihood. The quartet
// learner (noisyor/quartetlearn) finds the number of sources and the
// structure itself, with guarantees when every source is singly coupled at
// some depth, and is much faster; noisyor's Network.FitEM gives
// maximum-likelihood parameters for a known structure. Fit is the
// comparison baseline of Jernite, Halpern & Sontag (NIPS 2013), and a
// choice when sources have too few children for quartets.
//
// Randomness comes only from Options.Src (math/rand/v2); the result does
// not depend on the number of workers.
package vem
