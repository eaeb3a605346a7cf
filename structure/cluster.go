package structure

import "math"

// silhouetteGroups clusters m items with dissimilarities lam (m×m; pairs
// that are not testable count as maximally dissimilar) by k-medoids for
// every k in 2..m−1 and returns the clustering with the largest average
// silhouette (Rousseeuw 1987). Deterministic.
func silhouetteGroups(m int, lam []float64, ok []bool) [][]int {
	D := make([]float64, m*m)
	maxFinite := 0.0
	for i, v := range lam {
		if ok[i] && !math.IsInf(v, 0) && v > maxFinite {
			maxFinite = v
		}
	}
	cap := 2*maxFinite + 1
	for a := 0; a < m; a++ {
		for b := 0; b < m; b++ {
			if a == b {
				continue
			}
			v := lam[a*m+b]
			if !ok[a*m+b] || math.IsInf(v, 0) || math.IsNaN(v) {
				v = cap
			}
			D[a*m+b] = v
		}
	}
	bestScore := math.Inf(-1)
	var best []int
	assign := make([]int, m)
	for k := 2; k < m; k++ {
		medoids := kmedoids(m, D, k, assign)
		score := silhouette(m, D, assign, len(medoids))
		if score > bestScore+1e-12 {
			bestScore = score
			best = append(best[:0], assign...)
		}
	}
	if best == nil {
		best = make([]int, m)
		for i := range best {
			best[i] = i
		}
	}
	groups := map[int][]int{}
	var order []int
	for a, c := range best {
		if _, seen := groups[c]; !seen {
			order = append(order, c)
		}
		groups[c] = append(groups[c], a)
	}
	out := make([][]int, 0, len(order))
	for _, c := range order {
		out = append(out, groups[c])
	}
	return out
}

// kmedoids clusters into k groups: greedy BUILD initialisation followed by
// alternating assignment and medoid update. assign receives the cluster of
// each item (0..k−1); it returns the medoids.
func kmedoids(m int, D []float64, k int, assign []int) []int {
	medoids := make([]int, 0, k)
	isMed := make([]bool, m)
	near := make([]float64, m) // distance to the nearest chosen medoid
	// First medoid: smallest total dissimilarity.
	first, bestSum := 0, math.Inf(1)
	for a := 0; a < m; a++ {
		s := 0.0
		for b := 0; b < m; b++ {
			s += D[a*m+b]
		}
		if s < bestSum {
			first, bestSum = a, s
		}
	}
	medoids = append(medoids, first)
	isMed[first] = true
	for a := 0; a < m; a++ {
		near[a] = D[a*m+first]
	}
	for len(medoids) < k {
		bc, bestGain := -1, math.Inf(-1)
		for c := 0; c < m; c++ {
			if isMed[c] {
				continue
			}
			gain := 0.0
			for a := 0; a < m; a++ {
				if d := D[a*m+c]; d < near[a] {
					gain += near[a] - d
				}
			}
			if gain > bestGain {
				bc, bestGain = c, gain
			}
		}
		medoids = append(medoids, bc)
		isMed[bc] = true
		for a := 0; a < m; a++ {
			near[a] = math.Min(near[a], D[a*m+bc])
		}
	}
	for iter := 0; iter < 50; iter++ {
		for a := 0; a < m; a++ {
			bc, bd := 0, math.Inf(1)
			for c, med := range medoids {
				d := D[a*m+med]
				if med == a {
					d = -1
				}
				if d < bd {
					bc, bd = c, d
				}
			}
			assign[a] = bc
		}
		changed := false
		for c := range medoids {
			bm, bs := medoids[c], math.Inf(1)
			for a := 0; a < m; a++ {
				if assign[a] != c {
					continue
				}
				s := 0.0
				for b := 0; b < m; b++ {
					if assign[b] == c {
						s += D[a*m+b]
					}
				}
				if s < bs-1e-12 || (a == medoids[c] && s <= bs) {
					bm, bs = a, s
				}
			}
			if bm != medoids[c] {
				medoids[c] = bm
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return medoids
}

// silhouette returns the average silhouette of a clustering; items alone
// in their cluster score 0.
func silhouette(m int, D []float64, assign []int, k int) float64 {
	size := make([]int, k)
	for _, c := range assign {
		size[c]++
	}
	sum := make([]float64, k)
	total := 0.0
	for a := 0; a < m; a++ {
		if size[assign[a]] == 1 {
			continue
		}
		clear(sum)
		for b := 0; b < m; b++ {
			if b != a {
				sum[assign[b]] += D[a*m+b]
			}
		}
		own := sum[assign[a]] / float64(size[assign[a]]-1)
		other := math.Inf(1)
		for c := 0; c < k; c++ {
			if c != assign[a] && size[c] > 0 {
				other = math.Min(other, sum[c]/float64(size[c]))
			}
		}
		if math.IsInf(other, 1) {
			continue
		}
		if den := math.Max(own, other); den > 0 {
			total += (other - own) / den
		}
	}
	return total / float64(m)
}
