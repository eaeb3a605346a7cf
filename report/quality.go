package report

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/latentree/latentree/explain"
)

// maxListed bounds the rows of the classification and residual tables.
const maxListed = 30

// writeClassification writes the classification quality of the hidden
// variables that have one (explain.Classification, from the data's
// posteriors): a row per variable with its entropy R², relative entropy,
// expected classification error, smallest modal share and smallest
// average posterior of an assigned state; and per variable, folded, its
// table by assigned state.
func writeClassification(b *bytes.Buffer, in Input) {
	if in.Explanation == nil {
		return
	}
	var qs []*explain.Classification
	for _, h := range in.Explanation.Hidden {
		if h.Classification != nil {
			qs = append(qs, h.Classification)
		}
	}
	if len(qs) == 0 {
		return
	}
	b.WriteString("<section id=\"classification\">\n<h2>Classification quality</h2>\n")
	fmt.Fprintf(b, "<p class=\"note\">From the posteriors p<sub>ik</sub> of the %d data rows: entropy R² (LatentGOLD) 1 − E/E₀, "+
		"E = −Σ p<sub>ik</sub> ln p<sub>ik</sub>/n, E₀ the entropy of the model-estimated shares; relative entropy (Mplus) 1 − E/ln K; "+
		"error: the expected share of rows the modal assignment misclassifies; AvePP: the mean posterior of the assigned state.</p>\n", qs[0].Rows)
	b.WriteString("<table class=\"grid\">\n<tr><th class=\"l\">hidden</th><th>K</th><th>entropy R²</th><th>relative entropy</th><th>error</th><th>smallest modal share</th><th>smallest AvePP</th></tr>\n")
	for i, q := range qs {
		if i == maxListed {
			fmt.Fprintf(b, "<tr><td class=\"l\" colspan=\"7\">… %d more</td></tr>\n", len(qs)-maxListed)
			break
		}
		minShare, minPP := 1.0, 1.0
		for l := range q.States {
			minShare = min(minShare, q.ModalShares[l])
			if q.ModalShares[l] > 0 {
				minPP = min(minPP, q.AvePP[l][l])
			}
		}
		fmt.Fprintf(b, "<tr><td class=\"l\">%s</td><td>%d</td><td>%.3f</td><td>%.3f</td><td>%s</td><td>%s</td><td>%.3f</td></tr>\n",
			esc(q.Name), len(q.States), q.EntropyR2, q.RelativeEntropy, pct(q.Error), pct(minShare), minPP)
	}
	b.WriteString("</table>\n")
	for i, q := range qs {
		if i == maxListed {
			break
		}
		fmt.Fprintf(b, "<details><summary>%s by assigned state</summary>\n<table class=\"grid\">\n<tr><th class=\"l\">assigned</th><th>rows</th><th>modal share</th><th>model share</th>", esc(q.Name))
		for _, s := range q.States {
			fmt.Fprintf(b, "<th>P(%s)</th>", esc(s))
		}
		b.WriteString("</tr>\n")
		for l, s := range q.States {
			fmt.Fprintf(b, "<tr><td class=\"l\">%s</td><td>%.0f</td><td>%s</td><td>%s</td>", esc(s), q.ModalShares[l]*float64(q.Rows), pct(q.ModalShares[l]), pct(q.ModelShares[l]))
			for k := range q.States {
				fmt.Fprintf(b, "<td>%.3f</td>", q.AvePP[l][k])
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table></details>\n")
	}
	b.WriteString("</section>\n")
}

// writeResiduals writes the largest bivariate residuals (explain.Residual),
// largest first, and how many are above explain.BVRFlag.
func writeResiduals(b *bytes.Buffer, in Input) {
	if in.Residuals == nil {
		return
	}
	res := in.Residuals
	flagged := 0
	for _, r := range res {
		if r.BVR > explain.BVRFlag {
			flagged++
		}
	}
	b.WriteString("<section id=\"residuals\">\n<h2>Local dependence</h2>\n")
	fmt.Fprintf(b, "<p class=\"note\">Bivariate residuals of the %d pairs of discrete observed variables: BVR = Pearson χ²/df of the pair's table, "+
		"observed against expected under the model (LatentGOLD's). %d above %s: pairs more (or less) associated than the model allows.</p>\n",
		len(res), flagged, strconv.FormatFloat(explain.BVRFlag, 'f', -1, 64))
	if len(res) > 0 {
		b.WriteString("<table class=\"grid\">\n<tr><th class=\"l\">a</th><th class=\"l\">b</th><th>BVR</th><th>χ²</th><th>df</th><th>rows</th></tr>\n")
		for i, r := range res {
			if i == maxListed {
				fmt.Fprintf(b, "<tr><td class=\"l\" colspan=\"6\">… %d more</td></tr>\n", len(res)-maxListed)
				break
			}
			fmt.Fprintf(b, "<tr><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%.2f</td><td>%.2f</td><td>%d</td><td>%d</td></tr>\n", esc(r.A), esc(r.B), r.BVR, r.Chi2, r.DF, r.Rows)
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("</section>\n")
}

// pct formats a share as a percentage with one decimal.
func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }
