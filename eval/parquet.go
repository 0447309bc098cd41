package eval

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/internal/pqread"
)

// FormatParquet is a Parquet file (the form of many published datasets of
// labelled pairs: PAWS, QQP, MRPC and STS-B among them): for ReadPairs,
// one pair a row, its columns named as in a CSV header; for ReadTexts, one
// text a row of the column Field names.
const FormatParquet = "parquet"

// parquetMagic starts (and ends) every Parquet file.
var parquetMagic = []byte("PAR1")

// isParquet reports whether the file at path starts as a Parquet file
// does, so that one copied from standard input, whose name says nothing,
// is still read as one.
func isParquet(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(parquetMagic))
	_, err = io.ReadFull(f, head)
	return err == nil && bytes.Equal(head, parquetMagic)
}

// parquetTable reads the Parquet file at path as rows of strings, the
// first the names of its columns, as splitRows reads a CSV file with a
// header: one column for each column at the top of the schema that is
// not repeated (lists and groups are left out), its values written as
// text (numbers in decimal, booleans as 1 and 0) and nulls as "".
func parquetTable(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	pf, err := pqread.Open(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%w: %s: not a Parquet file that can be read: %v", ErrFormat, path, err)
	}
	var header []string
	cell := map[int]int{} // leaf column index -> column of the table
	for _, name := range pf.Schema().Columns() {
		leaf, ok := pf.Schema().Lookup(name...)
		if !ok || len(name) != 1 || leaf.Node.Repeated() {
			continue
		}
		cell[leaf.ColumnIndex] = len(header)
		header = append(header, name[0])
	}
	table := [][]string{header}
	err = pqread.Rows(pf, func(_ int, row parquet.Row) error {
		r := make([]string, len(header))
		for _, v := range row {
			if c, ok := cell[v.Column()]; ok {
				r[c] = parquetText(v)
			}
		}
		table = append(table, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, path, err)
	}
	return table, nil
}

// parquetText writes the value v as text.
func parquetText(v parquet.Value) string {
	if v.IsNull() {
		return ""
	}
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			return "1"
		}
		return "0"
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32)
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	}
	return string(v.ByteArray())
}
