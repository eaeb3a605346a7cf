package model

import "errors"

// Project overwrites the parameters of dst (a discrete model on the same
// tree) with CPTs projected from the spectral estimate, wherever the
// estimate determines them, and returns how many nodes it set.
func (s *Spectral) Project(dst *Discrete) (int, error) {
	return 0, errors.New("model: Spectral.Project: not implemented yet")
}
