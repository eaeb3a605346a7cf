// Package readmetest checks that the README can be followed word for word
// from a fresh clone.
//
// Its test parses README.md into command blocks (```sh fences) and the
// output blocks that follow them (a plain ``` fence after nothing but
// blank lines), and the Go snippets (```go fences). Always, it checks that
// every command block is valid shell, refers to no file outside the
// repository, and that every Go snippet compiles. With LATENTREE_README=1
// it also clones the repository to a temporary directory (or, when the
// working tree has changes, copies the files a clone would hold) and runs
// every command block there, in order, with bash -e (as a user's shell
// runs them: a pipe into head is fine), the installed latentree first on
// PATH; it compares
// each output block, line by line in order, with what the commands printed
// (standard output and error) after masking what depends on timing
// (durations, speeds). A block preceded by the line
//
//	<!-- readme-test: skip REASON -->
//
// is not run (the Slurm loop, which .ci/run runs as scripts/slurm-em.sh).
//
// TestArchitectureLevels keeps docs/architecture.md's table of packages
// by level true to the import graph.
//
//	LATENTREE_README=1 go test ./internal/readmetest -timeout 30m -v
package readmetest
