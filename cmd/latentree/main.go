// Command latentree learns latent tree models from data. See
// "latentree --help" and the README.
package main

import (
	"os"

	"github.com/latentree/latentree/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
