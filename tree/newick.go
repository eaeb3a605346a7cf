package tree

// NewickOptions controls reading and writing Newick. The zero value gives
// the defaults described for each field.
type NewickOptions struct {
	// HiddenInternalLabels makes the labels of internal nodes names of
	// hidden nodes when reading (by default a labelled internal node is an
	// observed variable). Labels that are numbers, such as bootstrap
	// support values, are then dropped.
	HiddenInternalLabels bool
	// KeepRoot keeps an unlabelled root of degree two when reading. By
	// default it is removed and its two edges are merged into one whose
	// length is the sum of theirs, since latent trees are unrooted.
	KeepRoot bool
	// Lenient accepts a tree without the final semicolon when reading.
	Lenient bool
	// LabelHidden writes the names of hidden nodes (Tree.Name, so "#id" for
	// unnamed ones) as labels of internal nodes. By default hidden nodes are
	// written without a label. Read such output with HiddenInternalLabels to
	// get hidden nodes back; observed nodes written as internal nodes (those
	// of degree two or more, and an observed root) then become hidden too.
	LabelHidden bool
}

func isNewickSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// isNewickPunct reports whether c cannot appear in an unquoted label.
func isNewickPunct(c byte) bool {
	switch c {
	case '(', ')', '[', ']', '\'', ':', ';', ',':
		return true
	}
	return isNewickSpace(c)
}
