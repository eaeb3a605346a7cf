package explain

import (
	"errors"
	"math"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/noisyor"
)

// Noisyor explains the sources of a noisy-or network: each source's
// effects by failure probability (lowest first), and its states "off" and
// "on" with their shares (the prior, or the mean posterior over the rows
// of Options.Data, whose columns must be the effects, 0/1) and the effects
// whose probability of being on ("on") or off ("off") rises most.
func Noisyor(n *noisyor.Network, opt Options) (*Explanation, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	if err := n.Validate(); err != nil {
		return nil, err
	}
	e := &Explanation{Kind: KindNoisyor, Hidden: make([]Hidden, len(n.Sources))}
	shares := make([]float64, len(n.Sources)) // P(source on)
	for s, src := range n.Sources {
		shares[s] = src.Prior
	}
	var classes []*Classification
	if opt.Data != nil && len(n.Sources) > 0 {
		b, err := noisyor.NewBinary(opt.Data)
		if err != nil {
			return nil, err
		}
		post, err := n.Posteriors(b, noisyor.LikOptions{Workers: opt.Workers})
		if err != nil {
			return nil, err
		}
		// Each source's posterior as a two-state conditional (off, on); a
		// row with probability 0 has NaN posteriors.
		classes = make([]*Classification, len(n.Sources))
		for s, src := range n.Sources {
			c := model.Conditional{Node: s, Name: src.Name, Labels: []string{"off", "on"}, Prob: make([]float64, 2*len(post))}
			for r, row := range post {
				p := math.NaN()
				if len(row) == len(n.Sources) {
					p = row[s]
				}
				c.Prob[2*r], c.Prob[2*r+1] = 1-p, p
			}
			q, err := Classify(c)
			if err != nil {
				return nil, errors.New("explain: every row of the data has probability 0 under the network")
			}
			classes[s] = q
			shares[s] = q.ModelShares[1]
			e.Rows = q.Rows
		}
		e.FromData = true
	}
	// q[s][a] = P(source s does not turn effect a on) = 1 − p_s(1 − f).
	parents := n.Parents()
	top := opt.top()
	for s, src := range n.Sources {
		p := src.Prior
		rel := make([]scored[Related], len(src.Children))
		var on, off []scored[Rise]
		for i, c := range src.Children {
			a := c.Effect
			// rest = P(effect off | s off) = (1 − ν) ∏ over the other parents.
			rest := 1 - n.LeakOf(a)
			for _, par := range parents[a] {
				if par.Source != s {
					rest *= 1 - n.Sources[par.Source].Prior*(1-par.Failure)
				}
			}
			f := c.Failure
			joint := []float64{(1 - p) * rest, (1 - p) * (1 - rest), p * rest * f, p * (1 - rest*f)}
			pa := []float64{joint[0] + joint[2], joint[1] + joint[3]}
			mi := mutualInfo(joint, []float64{1 - p, p}, pa, 2)
			name := n.Effects[a]
			rel[i] = scored[Related]{-f, Related{Name: name, MI: mi, Failure: f}}
			if d := rest * p * (1 - f); d > riseTol { // P(a=0 | s off) − P(a=0)
				off = append(off, scored[Rise]{d, Rise{Name: name, State: "0", Prob: rest, Base: pa[0]}})
			}
			if d := rest * (1 - p) * (1 - f); d > riseTol { // P(a=1 | s on) − P(a=1)
				on = append(on, scored[Rise]{d, Rise{Name: name, State: "1", Prob: 1 - rest*f, Base: pa[1]}})
			}
		}
		hl := Hidden{Node: s, Name: src.Name, Related: nonNil(topN(rel, top))}
		hl.Label = label(hl.Related, opt.labelWords())
		hl.States = []State{
			{Label: "off", Share: 1 - shares[s], Rising: nonNil(topN(off, top))},
			{Label: "on", Share: shares[s], Rising: nonNil(topN(on, top))},
		}
		if classes != nil {
			hl.Classification = classes[s]
		}
		e.Hidden[s] = hl
	}
	return e, nil
}
