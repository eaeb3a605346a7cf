package model

import (
	"fmt"
	"sort"
	"strings"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// A Family is a kind of latent tree model, as its package registers it
// with Register: the name its model files carry in their "type" field, how
// to read such a file, and how Fit fits a model of the family.
type Family struct {
	// Name is the family's "type" in model files, as "spectral".
	Name string
	// Read reads a whole model document of this type (written by the
	// model's WriteJSON).
	Read func(doc []byte) (Model, *Provenance, error)
	// Fit fits a model of the family with structure t to d for Fit, which
	// has checked t, d and opt and set opt.EM.Tol and opt.EM.MaxIter.
	Fit func(t *tree.Tree, d *data.Dataset, opt FitOptions) (Model, *EMResult, error)
}

// families holds the registered families by name. It is written only by
// Register, from the init functions of the family packages.
var families = map[string]Family{}

// Register makes a model family known to Read and Fit. A family package
// calls it from its init function (as image formats register with package
// image), so a program reads and fits the families whose packages it
// imports. Register panics if the name is empty or already registered.
func Register(f Family) {
	if f.Name == "" {
		panic("model: Register of a family without a name")
	}
	if _, dup := families[f.Name]; dup {
		panic("model: family " + f.Name + " registered twice")
	}
	families[f.Name] = f
}

// family returns the registered family of the given name.
func family(name string) (Family, error) {
	f, ok := families[name]
	if !ok {
		return Family{}, fmt.Errorf("model: the %s family is not registered (import github.com/latentree/latentree/model/%s)", name, name)
	}
	return f, nil
}

// registered lists the names of the registered families: "a, b or c".
func registered() string {
	known := make([]string, 0, len(families))
	for n := range families {
		known = append(known, n)
	}
	sort.Strings(known)
	if len(known) < 2 {
		return strings.Join(known, "")
	}
	return strings.Join(known[:len(known)-1], ", ") + " or " + known[len(known)-1]
}
