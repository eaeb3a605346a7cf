package report

import (
	"bytes"
	"fmt"

	"github.com/latentree/latentree/explain"
)

// writeCovariates writes the root regression of a discrete model with
// covariates (explain.CovariateEffects, as explain prints it): a row per
// state and term with β, and with standard errors their SE, z and the
// odds ratio's 95% interval.
func writeCovariates(b *bytes.Buffer, in Input) {
	c := explain.CovariateEffects(in.Model)
	if c == nil {
		return
	}
	hasSE := len(c.Coefficients) > 0 && c.Coefficients[0].HasSE
	b.WriteString("<section id=\"covariates\">\n<h2>Covariates</h2>\n")
	fmt.Fprintf(b, "<p class=\"note\">%s. Odds ratio exp(β)", esc(c.Description()))
	if hasSE {
		b.WriteString(", z = β/SE, 95% interval exp(β ± 1.96 SE) (Wald).</p>\n")
	} else {
		b.WriteString("; no standard errors (fit with --se).</p>\n")
	}
	b.WriteString("<table class=\"grid\">\n<tr><th class=\"l\">state</th><th class=\"l\">term</th><th>β</th>")
	if hasSE {
		b.WriteString("<th>SE</th><th>z</th><th>odds ratio (95% CI)</th></tr>\n")
	} else {
		b.WriteString("<th>odds ratio</th></tr>\n")
	}
	for _, x := range c.Coefficients {
		fmt.Fprintf(b, "<tr><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%.4f</td>", esc(x.State), esc(x.Term), x.Beta)
		if hasSE {
			fmt.Fprintf(b, "<td>%.4f</td><td>%.2f</td>", x.SE, x.Z)
		}
		fmt.Fprintf(b, "<td>%s</td></tr>\n", esc(x.OddsRatioText()))
	}
	b.WriteString("</table>\n</section>\n")
}
