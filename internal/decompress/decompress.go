// Package decompress reads inputs that may be compressed: a stream that
// starts with the magic bytes of gzip, zstd, bzip2 or xz is read
// decompressed, any other as it is. The commands read their documents
// through it, so that corpora kept as .jsonl.gz, .jsonl.zst or .txt.xz
// need no zcat in front.
//
// The format is told from the first bytes, not from a file's name: none of
// the magic numbers below starts a valid UTF-8 text, but for bzip2's, which
// is ASCII and so is checked over ten bytes.
package decompress

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// The formats a Reader decompresses, as Format names them.
const (
	Gzip  = "gzip"
	Zstd  = "zstd"
	Bzip2 = "bzip2"
	Xz    = "xz"
)

// sniffLen is how many bytes Sniff needs to tell every format.
const sniffLen = 10

// Sniff returns the compression format whose stream head starts with, or
// "" when it starts with none of them (or is too short to tell).
func Sniff(head []byte) string {
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return Gzip
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return Zstd
	case len(head) >= 4 && head[0]&0xf0 == 0x50 && bytes.Equal(head[1:4], []byte{0x2a, 0x4d, 0x18}):
		// A zstd skippable frame (magic 0x184D2A50 to 0x184D2A5F), which
		// some tools write before the first frame.
		return Zstd
	case len(head) >= sniffLen && bytes.Equal(head[:3], []byte("BZh")) && head[3] >= '1' && head[3] <= '9' &&
		(bytes.Equal(head[4:10], []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}) || // a block
			bytes.Equal(head[4:10], []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90})): // the end: an empty stream
		return Bzip2
	case len(head) >= 6 && bytes.Equal(head[:6], []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return Xz
	}
	return ""
}

// TrimExt returns name without a final .gz, .zst, .zstd, .bz2 or .xz (in any
// case), so that the format of "docs.csv.gz" can be told from ".csv".
func TrimExt(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".gz", ".zst", ".zstd", ".bz2", ".xz":
		return strings.TrimSuffix(name, filepath.Ext(name))
	}
	return name
}

// Reader reads a stream decompressed when it is compressed, and as it is
// otherwise. Concatenated streams of one format (pigz, pbzip2, zstd's
// multiple frames, xz's streams) read as one. A damaged or cut-short
// compressed stream gives an *Error; an error of the underlying reader is
// returned as it is.
type Reader struct {
	format string
	src    *srcReader
	r      io.Reader
	close  func()
}

// NewReader returns a Reader of r. It reads the first bytes of r to tell
// the format, and for gzip the stream's header, whose damage it reports as
// an *Error. The Reader buffers r: read r only through it.
func NewReader(r io.Reader) (*Reader, error) {
	src := &srcReader{r: r}
	br := bufio.NewReaderSize(src, 64<<10)
	head, err := br.Peek(sniffLen)
	if err != nil && len(head) == 0 && !errors.Is(err, io.EOF) {
		return nil, err
	}
	z := &Reader{format: Sniff(head), src: src, r: br, close: func() {}}
	switch z.format {
	case Gzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, z.wrap(err)
		}
		z.r, z.close = zr, func() { zr.Close() }
	case Zstd:
		// Decoded in the reading goroutine, with the decoder's bound on
		// the window (512 MiB: a stream that asks for more is refused as
		// damaged).
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, z.wrap(err)
		}
		z.r, z.close = zr, zr.Close
	case Bzip2:
		a := newReadAhead(bzip2.NewReader(br))
		z.r, z.close = a, a.Close
	case Xz:
		// The stream header is read here, so a damaged one is reported
		// now. The dictionary is what the stream asks for (64 MiB at
		// xz -9, the largest preset).
		zr, err := xz.NewReader(br)
		if err != nil {
			return nil, z.wrap(err)
		}
		a := newReadAhead(zr)
		z.r, z.close = a, a.Close
	}
	return z, nil
}

// Format returns the stream's compression format, "" when it is not
// compressed.
func (z *Reader) Format() string { return z.format }

// Read reads the decompressed bytes.
func (z *Reader) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	if err != nil && err != io.EOF {
		err = z.wrap(err)
	}
	return n, err
}

// Close releases the decompressor; it does not close the underlying
// reader, which the Reader no longer reads once Close returns (bzip2 and
// xz are decoded ahead of Read, in a goroutine of their own).
func (z *Reader) Close() error {
	z.close()
	return nil
}

// wrap returns err as the caller should see it: an error of the
// underlying reader as it is, any other (the decompressor's) as an *Error.
func (z *Reader) wrap(err error) error {
	if z.format == "" || z.src.err != nil && errors.Is(err, z.src.err) {
		return err
	}
	if errors.Is(err, io.EOF) {
		// A stream that ends inside a header.
		err = io.ErrUnexpectedEOF
	}
	return &Error{Format: z.format, Err: err}
}

// Error is a compressed stream that cannot be decompressed: damaged, or
// ending early (Err is then io.ErrUnexpectedEOF).
type Error struct {
	Format string // Gzip, Zstd, Bzip2 or Xz
	Err    error  // the decompressor's error
}

// Error says what is wrong with the stream.
func (e *Error) Error() string {
	if errors.Is(e.Err, io.ErrUnexpectedEOF) {
		return e.Format + " data ends early (is the file cut short?)"
	}
	return e.Format + " data is damaged: " + e.Err.Error()
}

// Unwrap returns the decompressor's error.
func (e *Error) Unwrap() error { return e.Err }

// srcReader is the underlying reader, with the last error it gave other
// than io.EOF, which Reader passes on unwrapped.
type srcReader struct {
	r   io.Reader
	err error
}

// Read reads from the underlying reader and keeps its error.
func (s *srcReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}
