package data

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Format is how a data file or directory is laid out, as DetectFormat
// tells it.
type Format int

const (
	// CSV is a plain CSV (or TSV) text file: ReadCSV reads it into memory,
	// OpenBlocks in blocks.
	CSV Format = iota
	// GzipCSV is a gzip-compressed CSV file, read by OpenBlocks.
	GzipCSV
	// Parquet is a Parquet file, read by OpenBlocks.
	Parquet
	// Dir is a directory whose files OpenBlocks reads as shards.
	Dir
)

var formatNames = [...]string{CSV: "csv", GzipCSV: "gzip-csv", Parquet: "parquet", Dir: "directory"}

func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Blocks reports whether the format is read only in row blocks
// (OpenBlocks): every format but a plain CSV file.
func (f Format) Blocks() bool { return f != CSV }

// DetectFormat reports the format of the file or directory at path. A file
// is Parquet or GzipCSV by its first bytes ("PAR1", or the gzip magic
// 1f 8b), else by its name (".parquet" or ".pq"; ".gz" or ".gzip"; in any
// case), else CSV. The error is that of os.Stat or of opening the file.
func DetectFormat(path string) (Format, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return CSV, err
	}
	if fi.IsDir() {
		return Dir, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return CSV, err
	}
	defer f.Close()
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	return fileFormat(head[:n], path), nil
}

// fileFormat is the format of a file whose first bytes (up to 4) are head.
func fileFormat(head []byte, path string) Format {
	switch {
	case len(head) == 4 && string(head) == "PAR1":
		return Parquet
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return GzipCSV
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return Parquet
	case ".gz", ".gzip":
		return GzipCSV
	}
	return CSV
}
