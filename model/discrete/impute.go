package discrete

import (
	"errors"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// Impute fills every missing cell of d with its most likely state given
// the observed cells of its row, and records each filled cell's posterior
// distribution. On sparse data the most likely state is nearly always the
// common one: the probabilities say how sure each filled value is.
func (m *Model) Impute(d *data.Dataset, opt model.ImputeOptions) (*model.Imputation, error) {
	if m.Regression != nil {
		return nil, errors.New("model: imputation with a model with covariates is not implemented (posteriors of the hidden variables are)")
	}
	return model.ImputeDiscrete(m.Tree, m.StateLabels, m.Conditionals, d, opt)
}
