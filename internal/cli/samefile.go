package cli

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
)

// checkNotRepeated returns an error if two of the inputs, whose counts or
// statistics are to be added, are the same file (by two names or links) or
// hold the same bytes, unless force: a shard merged twice counts its rows
// twice without any other sign. Standard input ("-") is not checked.
// Contents are compared only between files of equal size.
func checkNotRepeated(inputs []pathFlag, force bool) error {
	if force {
		return nil
	}
	type file struct {
		pathFlag
		info os.FileInfo
		sum  []byte
	}
	var files []file
	for _, p := range inputs {
		if p.path == "-" || p.path == "" {
			continue
		}
		info, err := os.Stat(p.path)
		if err != nil || !info.Mode().IsRegular() {
			continue // reading it gives the error
		}
		files = append(files, file{pathFlag: p, info: info})
	}
	hash := func(f *file) []byte {
		if f.sum == nil {
			h := sha256.New()
			if r, err := os.Open(f.path); err == nil {
				_, err = io.Copy(h, r)
				r.Close()
				if err != nil {
					return []byte(f.path) // unreadable: reading it gives the error
				}
			}
			f.sum = h.Sum(nil)
		}
		return f.sum
	}
	for i := range files {
		for k := range i {
			a, b := &files[k], &files[i]
			switch {
			case os.SameFile(a.info, b.info):
				return usagef("%s (%s) and %s (%s) are the same file: its counts would be added twice (give each shard once, or --force)", a.flag, a.path, b.flag, b.path)
			case a.info.Size() == b.info.Size() && bytes.Equal(hash(a), hash(b)):
				return usagef("%s (%s) and %s (%s) have the same content: a shard given twice would have its counts added twice (give each shard once, or --force if they are different shards with equal counts)", a.flag, a.path, b.flag, b.path)
			}
		}
	}
	return nil
}
