package explain

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// WriteText writes the explanation for people: a line per hidden variable
// with its label, its related observed variables, and a line per state,
// such as
//
//	h12 (god · jesus · bible), parent h3, depth 2
//	  related (mutual information, nats): god 0.121, jesus 0.083, ...
//	  state 1 (7% of rows): god 0.61 (0.05), jesus 0.47 (0.03), ...
//
// where "god 0.61 (0.05)" says that P(god = 1) is 0.61 in the state and
// 0.05 overall. A value other than 1 (or true, yes) is named: "god=0".
func (e *Explanation) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	hidden := "hidden variable"
	if e.Kind == KindNoisyor {
		hidden = "source"
	}
	if len(e.Hidden) != 1 {
		hidden += "s"
	}
	fmt.Fprintf(bw, "%s model, %d %s", e.Kind, len(e.Hidden), hidden)
	switch {
	case e.Kind == KindGaussian:
		fmt.Fprintf(bw, "\n")
	case e.FromData:
		fmt.Fprintf(bw, "; state shares are mean posteriors over %d rows\n", e.Rows)
	default:
		fmt.Fprintf(bw, "; state shares are the model's probabilities\n")
	}
	switch {
	case e.Kind == KindMixed:
		fmt.Fprintf(bw, "related: first canonical correlation (signed correlation between continuous variables)\n")
		fmt.Fprintf(bw, "per state: the discrete values whose probability rises most, \"x p (q)\": P(x | state) = p, P(x) = q;\n")
		fmt.Fprintf(bw, "  and the continuous variables whose mean shifts most, \"y +z SD\": (E[y | state] − E[y]) / SD(y) = z\n")
	case len(e.Hidden) > 0 && len(e.Hidden[0].States) > 0:
		fmt.Fprintf(bw, "per state: the observed values whose probability rises most, \"x p (q)\": P(x | state) = p, P(x) = q\n")
	}
	for _, h := range e.Hidden {
		fmt.Fprintf(bw, "\n%s (%s)", h.Name, h.Label)
		if h.Kind != "" {
			fmt.Fprintf(bw, ", %s", h.Kind)
		}
		if h.Parent != "" {
			fmt.Fprintf(bw, ", parent %s", h.Parent)
		}
		if e.Kind != KindNoisyor {
			fmt.Fprintf(bw, ", depth %d", h.Depth)
		}
		fmt.Fprintln(bw)
		var rel []string
		what := ""
		for _, r := range h.Related {
			switch e.Kind {
			case KindGaussian:
				what = "correlation"
				rel = append(rel, fmt.Sprintf("%s %+.2f", r.Name, r.Corr))
			case KindNoisyor:
				what = "failure probability"
				rel = append(rel, fmt.Sprintf("%s %.2f", r.Name, r.Failure))
			case KindMixed:
				what = "canonical correlation"
				if r.Corr != 0 {
					rel = append(rel, fmt.Sprintf("%s %+.2f", r.Name, r.Corr))
				} else {
					rel = append(rel, fmt.Sprintf("%s %.2f", r.Name, r.Strength))
				}
			default:
				what = "mutual information, nats"
				rel = append(rel, fmt.Sprintf("%s %.3f", r.Name, r.MI))
			}
		}
		if len(rel) > 0 {
			fmt.Fprintf(bw, "  related (%s): %s\n", what, strings.Join(rel, ", "))
		}
		for _, s := range h.States {
			var rise []string
			for _, r := range s.Rising {
				name := r.Name
				if !isTrue(r.State) {
					name += "=" + r.State
				}
				rise = append(rise, fmt.Sprintf("%s %.2f (%.2f)", name, r.Prob, r.Base))
			}
			list := strings.Join(rise, ", ")
			if list == "" && (e.Kind != KindMixed || len(s.Shifts) == 0) {
				list = "none"
			}
			if len(s.Shifts) > 0 {
				shift := make([]string, len(s.Shifts))
				for i, x := range s.Shifts {
					shift[i] = fmt.Sprintf("%s %+.2f SD", x.Name, x.Z)
				}
				if list != "" {
					list += "; "
				}
				list += "means: " + strings.Join(shift, ", ")
			}
			of := ""
			if e.FromData {
				of = " of rows"
			}
			fmt.Fprintf(bw, "  state %s (%s%s): %s\n", s.Label, percent(s.Share), of, list)
			if len(s.Profile) > 0 {
				prof := make([]string, len(s.Profile))
				what := "most probable value, its probability"
				for i, a := range s.Profile {
					if a.Continuous {
						prof[i] = fmt.Sprintf("%s %.3g±%.2g", a.Name, a.Mean, a.SD)
						what = "most probable value, its probability; continuous: mean±SD"
						continue
					}
					prof[i] = fmt.Sprintf("%s=%s %.2f", a.Name, a.Mode, a.Prob)
				}
				fmt.Fprintf(bw, "    profile (%s): %s\n", what, strings.Join(prof, ", "))
			}
		}
		if h.Classification != nil {
			h.Classification.writeText(bw, "  ")
		}
	}
	return bw.Flush()
}

// writeText writes the classification quality as a line of measures and a
// table with a row per assigned state: its rows, their share (modal), the
// model-estimated share of the state, and the mean posterior of every
// state among those rows (AvePP, its own state's entry the AvePP of Mplus).
func (q *Classification) writeText(w io.Writer, indent string) {
	fmt.Fprintf(w, "%sclassification of %d rows: entropy R² %.3f (LatentGOLD), relative entropy %.3f (Mplus), error %s\n",
		indent, q.Rows, q.EntropyR2, q.RelativeEntropy, percent(q.Error))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s  assigned\trows\tmodal\tmodel\tmean posterior: %s\t\n", indent, strings.Join(q.States, " "))
	for l, name := range q.States {
		post := make([]string, len(q.States))
		for k := range q.States {
			post[k] = fmt.Sprintf("%.2f", q.AvePP[l][k])
		}
		n := int(math.Round(q.ModalShares[l] * float64(q.Rows)))
		fmt.Fprintf(tw, "%s  %s\t%d\t%s\t%s\t%s\t\n", indent, name, n, percent(q.ModalShares[l]), percent(q.ModelShares[l]), strings.Join(post, " "))
	}
	tw.Flush()
}

// isTrue reports whether a state label reads as "present".
func isTrue(s string) bool {
	switch strings.ToLower(s) {
	case "1", "true", "yes", "t", "y", "1.0":
		return true
	}
	return false
}

// percent formats a share as a percentage, with a decimal below 10%.
func percent(x float64) string {
	switch p := 100 * x; {
	case p >= 9.95:
		return fmt.Sprintf("%.0f%%", p)
	case p >= 0.05 || p == 0:
		return fmt.Sprintf("%.1f%%", p)
	default:
		return "<0.1%"
	}
}
