package explain_test

import (
	"fmt"
	"os"

	"github.com/latentree/latentree/explain"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/tree"
)

// A hidden topic h over three words: god and bible rise when h is 1.
func Example() {
	t, _ := tree.ParseNewick("(god,bible,car)h;", tree.NewickOptions{HiddenInternalLabels: true})
	h, _ := t.Lookup("h")
	m, _ := discrete.New(t, h, []int{2, 2, 2, 2})
	m.Prior = []float64{0.9, 0.1}
	for name, cpt := range map[string][]float64{
		"god":   {0.98, 0.02, 0.4, 0.6}, // P(god | h=0), P(god | h=1)
		"bible": {0.99, 0.01, 0.6, 0.4},
		"car":   {0.95, 0.05, 0.96, 0.04},
	} {
		v, _ := t.Lookup(name)
		m.CPT[v] = cpt
	}
	e, err := explain.Model(m, explain.Options{LabelWords: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Labels()["h"])
	e.WriteText(os.Stdout)
	// Output:
	// god · bible
	// discrete model, 1 hidden variable; state shares are the model's probabilities
	// per state: the observed values whose probability rises most, "x p (q)": P(x | state) = p, P(x) = q
	//
	// h (god · bible), depth 0
	//   related (mutual information, nats): god 0.118, bible 0.078, car 0.000
	//   state 0 (90%): god=0 0.98 (0.92), bible=0 0.99 (0.95), car 0.05 (0.05)
	//     profile (most probable value, its probability): god=0 0.98, bible=0 0.99, car=0 0.95
	//   state 1 (10%): god 0.60 (0.08), bible 0.40 (0.05), car=0 0.96 (0.95)
	//     profile (most probable value, its probability): god=1 0.60, bible=0 0.60, car=0 0.96
}
