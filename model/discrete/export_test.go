package discrete

// StarModel exports starModel to the external tests.
var StarModel = starModel

// PermuteStates renames node v's states (perm[i] becomes state i) for
// tests that match fitted states to true ones.
func (m *Model) PermuteStates(v int, perm []int) { m.permuteStates(v, perm) }
