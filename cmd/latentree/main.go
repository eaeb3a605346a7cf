// Command latentree learns latent tree models from data. See
// "latentree --help" and the README.
package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/latentree/latentree/internal/cli"
)

func main() {
	collectLate()
	code := cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	// A failure to close standard output (a file on a full or remote file
	// system) loses output that every write reported as written.
	if err := os.Stdout.Close(); err != nil && code == cli.ExitOK {
		fmt.Fprintf(os.Stderr, "latentree: closing standard output: %v\n", err)
		code = cli.ExitFailure
	}
	os.Exit(code)
}

// firstCollection is the memory at which the first garbage collection
// starts (collectLate).
const firstCollection = 64 << 20

// collectLate defers the first garbage collection until the program's
// memory reaches firstCollection, after which the collector runs by its
// default rule (GOGC=100). With that rule the first collection starts at a
// 4 MB heap, and a short command (learn --structure-only on 80 variables ×
// 1,000 rows allocates about 20 MB in 20 ms) spends a tenth of its time in
// collections that free memory it would never have needed back; a command
// that grows past firstCollection pays one collection more than with the
// default, at a heap of 64 MiB. It leaves the collector alone when GOGC or
// GOMEMLIMIT is set.
func collectLate() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(firstCollection)
	// The first collection (at the limit) frees sentinel and runs its
	// cleanup, which restores the default rule. The sentinel holds a
	// pointer and is larger than 16 bytes, so that it is not in a block
	// of the tiny allocator (whose objects' cleanups may never run).
	sentinel := &struct {
		p *int
		_ [24]byte
	}{}
	runtime.AddCleanup(sentinel, func(struct{}) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}, struct{}{})
}
