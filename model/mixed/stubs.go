package mixed

import (
	"errors"
)

// errTODO marks operations of the mixed family not built yet.
var errTODO = errors.New("mixed: not implemented yet")

// InformationDistances returns the exact information distances between
// the given nodes.
func (m *Model) InformationDistances(nodes []int) ([]float64, error) {
	return nil, errTODO
}
