package cli

import (
	"cmp"
	"slices"

	"github.com/spf13/cobra"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/noisyor"
)

// noisyorSubcommands builds the subcommands of "latentree noisyor"; each
// file that adds one registers its constructor here in an init function.
var noisyorSubcommands []func(e *env) *cobra.Command

func newNoisyorCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "noisyor",
		Short: "Bipartite noisy-or networks: hidden binary causes of binary effects",
		Long: `noisyor works with bipartite noisy-or networks: hidden binary sources (causes:
diseases, topics, objects in an image) each switch on a set of observed binary
effects (symptoms, words, pixels) with a failure probability per edge and a leak
per effect. learn discovers the number of sources, their children and every
parameter with quartet rank tests (Jernite, Halpern & Sontag, NIPS 2013); fit
runs variational EM given the number of sources; simulate samples networks and
data. score and infer accept noisy-or model files too.`,
		Example: `  latentree noisyor simulate --network image --rows 10000 --out img.csv --model truth.json
  latentree noisyor learn img.csv --out net.json
  latentree score net.json img.csv`,
	}
	for _, f := range noisyorSubcommands {
		c.AddCommand(f(e))
	}
	return c
}

// readBinary reads a CSV of 0/1 effects for the noisy-or commands: every
// column discrete, constant columns kept (a never-seen word is data), and
// missing cells kept when --missing keep says so.
func (e *env) readBinary(path string, df *dataFlags) (*noisyor.Binary, *data.Dataset, error) {
	df.keepConstant = true
	df.discrete = nil
	d, _, err := e.readDataAllDiscrete(path, df)
	if err != nil {
		return nil, nil, err
	}
	b, err := noisyor.NewBinary(d)
	if err != nil {
		return nil, nil, err
	}
	return b, d, nil
}

// readDataAllDiscrete reads path with every column forced discrete.
func (e *env) readDataAllDiscrete(path string, df *dataFlags) (*data.Dataset, *data.ReadReport, error) {
	return e.readCSV(path, df, func(o *data.ReadOptions) { o.MaxDiscreteStates = data.MaxStates })
}

// strongestFirst returns a copy of a source's children in increasing order
// of failure (the strongest edges first), ties in effect order.
func strongestFirst(children []noisyor.Child) []noisyor.Child {
	ch := slices.Clone(children)
	slices.SortStableFunc(ch, func(x, y noisyor.Child) int { return cmp.Compare(x.Failure, y.Failure) })
	return ch
}
