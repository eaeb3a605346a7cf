package learn_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/learn"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
)

// surveyWithCovariates returns 2,000 rows of five binary items from two
// classes, "high" (P(item = yes) = 0.85) and "low" (0.2), whose log-odds
// of "high" against "low" is −2 + 0.05·age + 0.8·[sex = m], with age ~
// N(40, 10²) and sex uniform.
func surveyWithCovariates() *data.Dataset {
	vars := []data.Variable{}
	for _, n := range []string{"q1", "q2", "q3", "q4", "q5"} {
		vars = append(vars, data.Variable{Name: n, Kind: data.Discrete, States: []string{"no", "yes"}})
	}
	vars = append(vars, data.Variable{Name: "age", Kind: data.Continuous}, data.Variable{Name: "sex", Kind: data.Discrete, States: []string{"f", "m"}})
	const n = 2000
	d, err := data.New(vars, n)
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(4, 2))
	age, sex := d.Continuous(5), d.Discrete(6)
	for i := 0; i < n; i++ {
		age[i] = 40 + 10*rng.NormFloat64()
		sex[i] = uint16(rng.IntN(2))
		eta := -2 + 0.05*age[i] + 0.8*float64(sex[i])
		p := 0.2
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			p = 0.85
		}
		for j := 0; j < 5; j++ {
			if rng.Float64() < p {
				d.Discrete(j)[i] = 1
			}
		}
	}
	return d
}

// The latent class method with covariates: the class is a multinomial
// logit on age and sex (poLCA's formula) and every fit of the table has
// the coefficients (an intercept and 2 terms per class beyond the first:
// 13 = 1 + 2 + 5·2 parameters for 2 classes). Class 0, the larger, is
// "high" here, so the coefficients are those of "low" against "high":
// the truth's with their signs turned, 2, −0.05 and −0.8.
func ExampleLearn_covariates() {
	d := surveyWithCovariates()
	res, err := learn.Learn(d, learn.Options{Method: learn.LCM,
		LCM: learn.LCMOptions{MaxClasses: 2, Covariates: []string{"age", "sex"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range res.LCM.Fits {
		fmt.Printf("%d classes: %d parameters, BIC %.0f\n", f.Classes, f.Params, f.BIC)
	}
	m := res.Model.(*discrete.Model)
	se, err := m.StandardErrors(d, discrete.SEOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	terms := m.Regression.Terms()
	for j, b := range m.Regression.Beta[len(terms):] {
		fmt.Printf("%-12s β %6.2f (SE %.2f)\n", terms[j], b, se.Beta[len(terms)+j])
	}
	_, ll, _ := m.LogLikelihood(d, model.InferOptions{})
	fmt.Printf("log-likelihood %.1f\n", ll)
	// Output:
	// 1 classes: 5 parameters, BIC 13632
	// 2 classes: 13 parameters, BIC 11140
	// (intercept)  β   2.14 (SE 0.24)
	// age          β  -0.05 (SE 0.01)
	// sex=m        β  -0.76 (SE 0.10)
	// log-likelihood -5520.7
}
