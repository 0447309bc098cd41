// Package pqread opens Parquet files and reads their rows with
// github.com/parquet-go/parquet-go, turning a panic of its decoder into an
// error: the files read may be damaged, and a damaged file is the file's
// error, not the end of the program. The commands (dedup's inputs) and
// package eval (labelled pairs and corpora kept as Parquet) read through
// it.
package pqread

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// Open opens the Parquet file f of size bytes. The length of the footer
// that the file's last bytes give is checked against its size first: the
// decoder would allocate it whole, so a damaged one (a byte changed) could
// ask for gigabytes.
func Open(f io.ReaderAt, size int64) (pf *parquet.File, err error) {
	if size < 12 {
		return nil, fmt.Errorf("damaged: %d bytes, too few for a Parquet file", size)
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if !bytes.Equal(tail[4:], []byte("PAR1")) {
		return nil, errors.New("damaged: it does not end with PAR1 (cut short, or no Parquet file)")
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return nil, fmt.Errorf("damaged: its footer would be %d bytes, in a file of %d", n, size)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged: %v", r)
		}
	}()
	return parquet.OpenFile(f, size)
}

// ReadRows reads the next rows of a row group into buf, as rows.ReadRows
// does (io.EOF after the last).
func ReadRows(rows parquet.Rows, buf []parquet.Row) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, fmt.Errorf("damaged: %v", r)
		}
	}()
	return rows.ReadRows(buf)
}

// WriteFile writes rows as a new Parquet file at path, of the schema of
// T (see parquet.SchemaOf): for tests and tools that make sample files.
func WriteFile[T any](path string, rows []T) error {
	var b bytes.Buffer
	w := parquet.NewGenericWriter[T](&b)
	if _, err := w.Write(rows); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// ReadError is a row of a Parquet file that could not be read.
type ReadError struct {
	Row int   // its number, from 1
	Err error // why
}

// Error says which row could not be read, and why.
func (e *ReadError) Error() string { return fmt.Sprintf("row %d: %v", e.Row, e.Err) }

// Unwrap returns why the row could not be read.
func (e *ReadError) Unwrap() error { return e.Err }

// Rows calls f with each row of pf in order and its number, from 1, and
// stops at f's first error, which it returns as it is. A row that cannot
// be read (a damaged page) stops it with a *ReadError. row is only valid
// during the call.
func Rows(pf *parquet.File, f func(n int, row parquet.Row) error) error {
	n := 0
	buf := make([]parquet.Row, 256)
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			k, err := ReadRows(rows, buf)
			for _, row := range buf[:k] {
				n++
				if ferr := f(n, row); ferr != nil {
					rows.Close()
					return ferr
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rows.Close()
				return &ReadError{Row: n + 1, Err: err}
			}
		}
		if err := rows.Close(); err != nil {
			return &ReadError{Row: n, Err: err}
		}
	}
	return nil
}
