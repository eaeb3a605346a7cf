package stats_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/stats"
)

func ExampleComputeBlocks() {
	dir, _ := os.MkdirTemp("", "shards")
	defer os.RemoveAll(dir)
	// Two shards of one dataset, their columns in different orders.
	os.WriteFile(filepath.Join(dir, "part-0.csv"), []byte("n,c\n10,a\n20,b\n10,b\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "part-1.csv"), []byte("c,n\na,2\nb,10\n"), 0o644)
	r, err := data.OpenBlocks([]string{dir}, data.BlockOptions{BlockRows: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	s, err := stats.ComputeBlocks(r, stats.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	n, _ := s.Index("n")
	fmt.Println(s.Rows(), s.Var(n).States, s.Marginal(n))
	// Output: 5 [2 10 20] [1 3 1]
}
