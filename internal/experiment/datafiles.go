package experiment

import (
	"os"
	"path/filepath"
	"slices"
)

// DataEnvVar names the environment variable holding the directory of the
// papers' data files (the 20 Newsgroups splits).
const DataEnvVar = "LATENTREE_DATA"

// FindDataFile looks for a data file of the papers by name (for example
// "newsgroups100-train.csv") in the directories DataDirs lists for the
// environment, the working directory and the running executable. It
// returns the path found, or "" and the directories it looked in.
func FindDataFile(name string) (path string, looked []string) {
	cwd, _ := os.Getwd()
	exe, _ := os.Executable()
	dirs := DataDirs(os.Getenv(DataEnvVar), cwd, exe)
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, dirs
		}
	}
	return "", dirs
}

// DataDirs returns the directories where FindDataFile looks, in order:
// envDir (if set), then examples/newsgroups (where a clone of the
// repository ships the 20 Newsgroups splits) and shared/data under cwd and
// each of its parents, then the same under the executable's directory and
// its parents. Duplicates are listed once.
func DataDirs(envDir, cwd, exe string) []string {
	var dirs []string
	add := func(d string) {
		if d != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	add(envDir)
	walk := func(start string) {
		if start == "" {
			return
		}
		for d := filepath.Clean(start); ; d = filepath.Dir(d) {
			add(filepath.Join(d, "examples", "newsgroups"))
			add(filepath.Join(d, "shared", "data"))
			if filepath.Dir(d) == d {
				return
			}
		}
	}
	walk(cwd)
	if exe != "" {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		walk(filepath.Dir(exe))
	}
	return dirs
}
