package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/internal/pqread"
)

// Parquet inputs: a file of rows whose --text-field column holds the
// texts (and --id-field column, when it has one, the ids). dedup writes
// the rows it keeps as a Parquet file of the same schema; cluster reads
// them as it reads any input.

// parquetColumns are the columns of a Parquet input that dedup reads.
type parquetColumns struct {
	text int // the text column's index among the leaf columns
	id   int // the id column's, or -1 when the schema has none
}

// parquetColumnsOf finds the --text-field and --id-field columns of
// schema (see parquetLookup): columns that hold one value a row, the text
// one of byte arrays (STRING or plain BYTE_ARRAY), the id one of byte
// arrays or integers.
func (in *docInput) parquetColumnsOf(schema *parquet.Schema) (parquetColumns, error) {
	c := parquetColumns{id: -1}
	text, ok := parquetLookup(schema, in.textField)
	if !ok && parquetGroup(schema, in.textField) {
		return c, fmt.Errorf("column %q is a list or a group, not a column of strings (see --text-field; a.b names column b of group a)", in.textField)
	}
	if !ok {
		return c, fmt.Errorf("the Parquet schema has no column %q (see --text-field)", in.textField)
	}
	if err := topLevel(text, in.textField, parquet.ByteArray); err != nil {
		return c, err
	}
	c.text = text.ColumnIndex
	if id, ok := parquetLookup(schema, in.idField); ok {
		if err := topLevel(id, in.idField, parquet.ByteArray, parquet.Int32, parquet.Int64); err != nil {
			return c, err
		}
		c.id = id.ColumnIndex
	}
	return c, nil
}

// parquetLookup returns the leaf column of schema that name names: the
// top-level column of that name, or, when there is none and name holds
// dots, the column its path names through groups ("meta.text": column
// text of group meta).
func parquetLookup(schema *parquet.Schema, name string) (parquet.LeafColumn, bool) {
	if col, ok := schema.Lookup(name); ok || !strings.Contains(name, ".") {
		return col, ok
	}
	return schema.Lookup(strings.Split(name, ".")...)
}

// parquetGroup reports whether name (a.b for a group's member) is a
// group or a list in schema rather than a column.
func parquetGroup(schema *parquet.Schema, name string) bool {
	var node parquet.Node = schema
	for _, p := range strings.Split(name, ".") {
		var next parquet.Node
		for _, f := range node.Fields() {
			if f.Name() == p {
				next = f
			}
		}
		if next == nil {
			return false
		}
		node = next
	}
	return !node.Leaf()
}

// topLevel reports an error unless col, named name, is a column that
// holds one value a row (not a list, nor inside one), of one of the kinds.
func topLevel(col parquet.LeafColumn, name string, kinds ...parquet.Kind) error {
	if col.MaxRepetitionLevel != 0 {
		return fmt.Errorf("column %q is a list or inside one; it must hold one value a row", name)
	}
	for _, k := range kinds {
		if col.Node.Type().Kind() == k {
			return nil
		}
	}
	return fmt.Errorf("column %q holds %s values, not strings", name, col.Node.Type().Kind())
}

// readParquet reads the Parquet file name: one document a row, whose id
// is its --id-field column's value, or, where the row has none (no such
// column, or null), its 1-based row number. A row whose text is null, or
// longer than --max-line, is malformed. A file that is no Parquet file,
// or whose schema has no such text column, stops the run. With
// oneSchema set (dedup), every Parquet input of a run must have the
// first one's schema, as it is written once.
func (in *docInput) readParquet(name, idPrefix string, emit func(*record) error, bad func(*inputError) error) error {
	f, err := os.Open(name)
	if err != nil {
		return usageError{err}
	}
	defer f.Close() // read only: nothing to report on closing
	info, err := f.Stat()
	if err != nil {
		return usageError{err}
	}
	pf, err := pqread.Open(f, info.Size())
	if err != nil {
		return usageError{&stopError{name, fmt.Errorf("not a Parquet file that can be read: %w", err)}}
	}
	schema := pf.Schema()
	cols, err := in.parquetColumnsOf(schema)
	if err != nil {
		return usageError{&stopError{name, err}}
	}
	if in.oneSchema {
		if in.parquetSchema == nil {
			in.parquetSchema, in.parquetSchemaOf = schema, name
		} else if !parquet.EqualNodes(in.parquetSchema, schema) {
			return usageError{&stopError{name, fmt.Errorf("the Parquet schema differs from the one of %s, the first Parquet input; dedup them separately", in.parquetSchemaOf)}}
		}
	}
	checked := !in.oneSchema // only dedup writes rows back
	err = pqread.Rows(pf, func(n int, row parquet.Row) error {
		if !checked {
			checked = true
			if err := writable(schema, row); err != nil {
				return usageError{&stopError{name, err}}
			}
		}
		return in.parquetRow(row, cols, schema, name, idPrefix, n, emit, bad)
	})
	if re, ok := errors.AsType[*pqread.ReadError](err); ok {
		return usageError{&stopError{fmt.Sprintf("%s:%d", name, re.Row), fmt.Errorf("cannot read: %w", re.Err)}}
	}
	return err
}

// parquetRow emits the document of row, the n-th of the file name.
func (in *docInput) parquetRow(row parquet.Row, cols parquetColumns, schema *parquet.Schema, name, idPrefix string, n int, emit func(*record) error, bad func(*inputError) error) error {
	where := fmt.Sprintf("%s:%d", name, n)
	var text, id parquet.Value
	hasText, hasID := false, false
	for _, v := range row {
		switch v.Column() {
		case cols.text:
			text, hasText = v, !v.IsNull()
		case cols.id:
			id, hasID = v, !v.IsNull()
		}
	}
	switch {
	case !hasText:
		return bad(&inputError{where, fmt.Errorf("text column %q is null", in.textField)})
	case len(text.ByteArray()) > in.maxLine:
		return bad(&inputError{where, fmt.Errorf("text of %d bytes is longer than --max-line %d", len(text.ByteArray()), in.maxLine)})
	}
	rec := &record{where: where, kind: "parquet", row: row.Clone(), schema: schema}
	rec.doc.Text = string(text.ByteArray())
	rec.doc.ID = in.runID + idPrefix + strconv.Itoa(n)
	if hasID {
		switch id.Kind() {
		case parquet.ByteArray:
			rec.doc.ID = string(id.ByteArray())
		case parquet.Int32:
			rec.doc.ID = strconv.FormatInt(int64(id.Int32()), 10)
		default:
			rec.doc.ID = strconv.FormatInt(id.Int64(), 10)
		}
	}
	return emit(rec)
}

// parquetOut writes records read from Parquet inputs as a Parquet file of
// their schema, each column compressed as the input's was (the schema of
// a file read carries its columns' codecs), in row groups of at most
// parquetGroupRows rows or about parquetGroupBytes bytes of values.
type parquetOut struct {
	w     *parquet.GenericWriter[any]
	rows  int // rows of the row group being written
	bytes int // and the bytes of their values
}

// The bounds of an output row group: the writer holds one whole in
// memory.
const (
	parquetGroupRows  = 1 << 16
	parquetGroupBytes = 64 << 20
)

// writable checks that a Parquet file of schema can be written with row in
// it, before dedup decides any row of an input of that schema: the schema
// of a damaged file can be read and yet make the writer panic (a column's
// size out of range), which dedup would otherwise meet in the middle of
// its output.
func writable(schema *parquet.Schema, row parquet.Row) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged: its schema cannot be written back as dedup's output: %v", r)
		}
	}()
	w := parquet.NewGenericWriter[any](io.Discard, schema)
	if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
		return fmt.Errorf("damaged: its first row cannot be written back as dedup's output: %w", err)
	}
	return w.Close()
}

// errWriterPanic is the error of a Parquet writer that panicked: what
// writable did not foresee of a damaged input.
func errWriterPanic(r any) error {
	return fmt.Errorf("the Parquet writer failed on the input's schema (a damaged input?): %v", r)
}

// start starts the file, of that schema, on out.
func (p *parquetOut) start(out io.Writer, schema *parquet.Schema) (err error) {
	defer func() {
		if r := recover(); r != nil {
			p.w, err = nil, errWriterPanic(r)
		}
	}()
	p.w = parquet.NewGenericWriter[any](out, schema)
	return nil
}

// write writes r's row, starting the file with r's schema.
func (p *parquetOut) write(out io.Writer, r *record) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errWriterPanic(r)
		}
	}()
	if p.w == nil {
		if err := p.start(out, r.schema); err != nil {
			return err
		}
	}
	if _, err := p.w.WriteRows([]parquet.Row{r.row}); err != nil {
		return err
	}
	p.rows++
	for _, v := range r.row {
		p.bytes += 8
		if k := v.Kind(); !v.IsNull() && (k == parquet.ByteArray || k == parquet.FixedLenByteArray) {
			p.bytes += len(v.ByteArray())
		}
	}
	if p.rows >= parquetGroupRows || p.bytes >= parquetGroupBytes {
		p.rows, p.bytes = 0, 0
		return p.w.Flush()
	}
	return nil
}

// close ends the file: its last row group and its footer, without which
// it cannot be read.
func (p *parquetOut) close() (err error) {
	if p.w == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = errWriterPanic(r)
		}
	}()
	w := p.w
	p.w = nil
	return w.Close()
}

// parquetOnly refuses the dedup runs whose output could not be one
// Parquet file, or could not be taken back: Parquet inputs mixed with
// others, and Parquet inputs with --db (a Parquet file is readable only
// once its footer is written at the end, so a run that died could leave
// documents stored and in no readable output, where --db's recovery takes
// back only the batch in progress).
func parquetOnly(srcs []source, db string) error {
	pq := 0
	for _, s := range srcs {
		if s.kind == "parquet" {
			pq++
		}
	}
	switch {
	case pq == 0:
		return nil
	case pq < len(srcs):
		return usagef("dedup: Parquet inputs with inputs of other formats: the output is one Parquet file; dedup them separately")
	case db != "":
		return usagef("dedup: --db with Parquet inputs: the Parquet output is readable only once complete, so a run that died could not be taken back; convert the input to JSON Lines for --db")
	}
	return nil
}
