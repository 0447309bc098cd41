package main

import (
	"io"
	"os"

	"github.com/neardup/neardup/internal/decompress"
)

// decompressed calls f with r read decompressed when it is compressed
// (gzip, zstd, bzip2 or xz, told from its first bytes: decompress.Reader) and
// as it is otherwise. A damaged start of a compressed stream is a usage
// error naming the input, name as messages call it.
func decompressed(r io.Reader, name string, f func(io.Reader) error) error {
	z, err := decompress.NewReader(r)
	if err != nil {
		return usagef("read %s: %v", name, ioCause(err))
	}
	defer z.Close()
	return f(z)
}

// readFileLimit returns the contents of the file path, decompressed when
// it is compressed, and false without them when they are longer than
// limit bytes.
func readFileLimit(path string, limit int) ([]byte, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close() // read only: nothing to report on closing
	z, err := decompress.NewReader(f)
	if err != nil {
		return nil, false, err
	}
	defer z.Close()
	b, err := io.ReadAll(io.LimitReader(z, int64(limit)+1))
	if err != nil {
		return nil, false, err
	}
	if len(b) > limit {
		return nil, false, nil
	}
	return b, true, nil
}
