// Command latentree learns latent tree models from data. See
// "latentree --help" and the README.
package main

import (
	"fmt"
	"os"

	"github.com/latentree/latentree/internal/cli"
)

func main() {
	code := cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	// A failure to close standard output (a file on a full or remote file
	// system) loses output that every write reported as written.
	if err := os.Stdout.Close(); err != nil && code == cli.ExitOK {
		fmt.Fprintf(os.Stderr, "latentree: closing standard output: %v\n", err)
		code = cli.ExitFailure
	}
	os.Exit(code)
}
