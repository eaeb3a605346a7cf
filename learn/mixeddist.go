package learn

import (
	"fmt"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/stats"
)

// hasKinds reports whether st has discrete and continuous variables.
func hasKinds(st *stats.Stats) (disc, cont bool) {
	for j := range st.NumVars() {
		if st.Var(j).Kind == data.Discrete {
			disc = true
		} else {
			cont = true
		}
	}
	return disc, cont
}

// binned reports whether the distances of st are computed on the data
// with continuous columns cut into quantile bins: the Mixed distance of a
// rank k above 2 (more than one canonical correlation), which statistics
// cannot give for continuous variables (see distance.QuantileBins).
func (o *Options) binned(st *stats.Stats, rank int) bool {
	disc, cont := hasKinds(st)
	kind := o.Distance.Kind
	return cont && rank > 2 && (kind == distance.Mixed || kind == distance.Auto && disc)
}

// informationDistances returns the information distances of the
// distance-based methods and the rank used (see Result.DistanceRank): from
// st, or, for the Mixed distance of rank k > 2, from the statistics of d
// with its continuous columns cut into distance.BinsFor(k) quantile bins
// (the discrete rank-k distance; d nil is then an error).
func (o *Options) informationDistances(st *stats.Stats, d *data.Dataset) (*distance.Matrix, []distance.Degenerate, int, error) {
	rank := o.distanceRank(st)
	info := distance.InfoOptions{Kind: o.Distance.Kind, Rank: rank, Pseudo: o.Distance.Pseudo, Workers: o.Workers}
	if !o.binned(st, rank) {
		dm, deg, err := distance.Information(st, info)
		return dm, deg, rank, err
	}
	if d == nil {
		return nil, nil, 0, fmt.Errorf("learn: the mixed distance of rank %d (hidden variables of %d states) cuts the continuous columns into quantile bins, which needs the data rows, not only their statistics; learn from the data, or use 2 hidden states (rank 2)", rank, rank)
	}
	b, err := distance.QuantileBins(d, distance.BinsFor(rank))
	if err != nil {
		return nil, nil, 0, err
	}
	bst, err := stats.Compute(b, o.statsOptions())
	if err != nil {
		return nil, nil, 0, err
	}
	info.Kind = distance.Discrete
	dm, deg, err := distance.Information(bst, info)
	return dm, deg, rank, err
}

// quartetData returns d and st, or, when d mixes discrete and continuous
// columns, d with the continuous ones cut into distance.BinsFor(k) quantile bins (k of Spectral@k, 2 by
// default) and its statistics: quartet tests work on discrete tables. A
// bin is a function of its variable, so the quartet's conditional
// independences are kept; the rank of a quartet's table is that of the
// discrete hidden variables on its middle path (a middle path through
// continuous hidden variables only does not have low rank, and such
// quartets may be resolved wrongly). All-continuous data are left as they
// are (quartet tests refuse them, as before mixed data were supported).
func (o *Options) quartetData(d *data.Dataset, st *stats.Stats) (*data.Dataset, *stats.Stats, error) {
	if disc, cont := hasKinds(st); !disc || !cont {
		return d, st, nil
	}
	b, err := distance.QuantileBins(d, distance.BinsFor(max(2, o.Quartet.K)))
	if err != nil {
		return nil, nil, err
	}
	bst, err := stats.Compute(b, o.statsOptions())
	if err != nil {
		return nil, nil, err
	}
	return b, bst, nil
}
