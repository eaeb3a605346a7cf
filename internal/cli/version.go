package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionInfo is what latentree version prints: the module version, the
// VCS commit it was built from and whether the working tree had local
// changes, and the Go toolchain.
type versionInfo struct {
	Module  string `json:"module"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
	// CommitTime is the commit's time (RFC 3339), empty when unknown.
	CommitTime string `json:"commit_time,omitempty"`
	// Modified is nil when unknown (built without VCS information).
	Modified *bool  `json:"modified"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

const unknown = "unknown"

// readVersion reads the version from the binary's build information.
func readVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo() // nil when the binary has none
	return newVersionInfo(bi)
}

// newVersionInfo extracts the version from build information (nil when the
// binary has none). Main.Version is the module version for go install
// …@version; for a build from a checkout it is a pseudo-version made from
// the commit (Go 1.24 on), or "(devel)" without VCS information.
// vcs.revision and vcs.modified are absent with -buildvcs=false and in
// test binaries.
func newVersionInfo(bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Module: "github.com/latentree/latentree", Version: unknown, Commit: unknown,
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return v
	}
	if bi.Main.Path != "" {
		v.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if s.Value != "" {
				v.Commit = s.Value
			}
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			switch s.Value {
			case "true", "false":
				m := s.Value == "true"
				v.Modified = &m
			}
		}
	}
	return v
}

// text is the version as latentree version and latentree --version print
// it.
func (v versionInfo) text() string {
	modified := unknown
	if v.Modified != nil {
		modified = fmt.Sprint(*v.Modified)
	}
	commit := v.Commit
	if v.CommitTime != "" {
		commit += " (" + v.CommitTime + ")"
	}
	return fmt.Sprintf("latentree %s\nmodule    %s\ncommit    %s\nmodified  %s\ngo        %s %s\n",
		v.Version, v.Module, commit, modified, v.Go, v.Platform)
}

func newVersionCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print latentree's version, the commit it was built from, and the Go version",
		Long: `version prints the module version of latentree (the release, such as v1.2.3,
when installed with go install …@v1.2.3; for a build from a checkout a
pseudo-version made from the commit, ending in +dirty when the working tree had
uncommitted changes, or "(devel)" when the build recorded no VCS information),
the VCS commit it was built from and whether the working tree was modified
("unknown" when the binary carries no VCS information, e.g. built with
-buildvcs=false), and the Go version and platform it was built with.
latentree --version prints the same.

--json prints {"module", "version", "commit", "commit_time", "modified",
"go", "platform"}; "modified" is true, false, or null when unknown.`,
		Example: `  latentree version
  latentree --version
  latentree version --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := readVersion()
			if asJSON {
				return writeJSON(e.stdout, v)
			}
			_, err := io.WriteString(e.stdout, v.text())
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the version as JSON")
	return c
}
