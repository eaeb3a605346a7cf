package explain_test

import (
	"fmt"

	"github.com/latentree/latentree/explain"
	"github.com/latentree/latentree/model"
)

// The classification quality of four rows' posteriors over two classes.
func ExampleClassify() {
	post := model.Conditional{Name: "class", Labels: []string{"a", "b"}, Prob: []float64{
		0.9, 0.1,
		0.8, 0.2,
		0.3, 0.7,
		0.4, 0.6,
	}}
	q, err := explain.Classify(post)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("model shares %.2f, modal shares %.2f\n", q.ModelShares, q.ModalShares)
	fmt.Printf("entropy R² %.3f (LatentGOLD), relative entropy %.3f (Mplus), error %.2f\n", q.EntropyR2, q.RelativeEntropy, q.Error)
	fmt.Printf("classification table %.1f\n", q.Table)
	fmt.Printf("mean posteriors by assigned class %.2f\n", q.AvePP)
	// Output:
	// model shares [0.60 0.40], modal shares [0.50 0.50]
	// entropy R² 0.216 (LatentGOLD), relative entropy 0.239 (Mplus), error 0.25
	// classification table [[1.7 0.7] [0.3 1.3]]
	// mean posteriors by assigned class [[0.85 0.15] [0.35 0.65]]
}
