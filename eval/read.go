package eval

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/decompress"
)

// ErrFormat is returned (wrapped, with the file and line) for input that
// does not have the expected shape.
var ErrFormat = errors.New("eval: bad input")

// Text formats that ReadTexts understands.
const (
	// FormatJSONL is one JSON object a line; the text is in a named field.
	FormatJSONL = "jsonl"
	// FormatFortunes is texts separated by lines holding only "%".
	FormatFortunes = "fortunes"
	// FormatLines is one text a line.
	FormatLines = "lines"
	// FormatFiles is a directory whose every .txt file is one text.
	FormatFiles = "files"
)

// TextOptions says how to read a text collection.
type TextOptions struct {
	// Format is FormatJSONL, FormatFortunes, FormatLines, FormatFiles or
	// FormatParquet; empty means: FormatFiles for a directory of .txt
	// files, FormatFortunes for a directory of other files or a file with
	// "%" separator lines, FormatJSONL for .jsonl, FormatParquet for a
	// Parquet file (by its first bytes), FormatLines otherwise.
	Format string
	// Field is the JSON field or Parquet column holding the text; empty
	// means "text".
	Field string
	// MinRunes drops texts shorter than this many characters (after
	// trimming space); 0 keeps all non-empty texts.
	MinRunes int
}

// Validate reports an unknown format.
func (o TextOptions) Validate() error {
	switch o.Format {
	case "", FormatJSONL, FormatFortunes, FormatLines, FormatFiles, FormatParquet:
		return nil
	}
	return fmt.Errorf("eval: unknown text format %q (want jsonl, fortunes, lines, files or parquet)", o.Format)
}

// ReadTexts reads the texts at path (a file, compressed with gzip, zstd,
// bzip2 or xz or not, or a directory) in file order; files in a directory are
// read in name order.
func ReadTexts(path string, o TextOptions) ([]string, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	var texts []string
	if st.IsDir() {
		names, err := dirFiles(path)
		if err != nil {
			return nil, err
		}
		format := o.Format
		if format == "" {
			format = FormatFortunes
			if len(names) > 0 && allSuffix(names, ".txt") {
				format = FormatFiles
			}
		}
		for _, name := range names {
			if format == FormatFiles && !strings.HasSuffix(name, ".txt") {
				continue
			}
			b, err := readAll(name)
			if err != nil {
				return nil, err
			}
			if format == FormatFiles {
				texts = append(texts, string(b))
				continue
			}
			ts, err := parseTexts(name, b, format, o.Field)
			if err != nil {
				return nil, err
			}
			texts = append(texts, ts...)
		}
	} else if o.Format == FormatParquet || o.Format == "" && isParquet(path) {
		if texts, err = parquetTexts(path, o.Field); err != nil {
			return nil, err
		}
	} else {
		b, err := readAll(path)
		if err != nil {
			return nil, err
		}
		format := o.Format
		if format == "" {
			format = sniffTextFormat(path, b)
		}
		if format == FormatFiles {
			return nil, fmt.Errorf("eval: %s: format files needs a directory", path)
		}
		if texts, err = parseTexts(path, b, format, o.Field); err != nil {
			return nil, err
		}
	}
	out := texts[:0]
	for _, t := range texts {
		t = strings.TrimSpace(t)
		if t != "" && len([]rune(t)) >= o.MinRunes {
			out = append(out, t)
		}
	}
	return out, nil
}

// parquetTexts returns the texts of the column field ("text" if empty)
// of the Parquet file at path, one a row.
func parquetTexts(path, field string) ([]string, error) {
	if field == "" {
		field = "text"
	}
	table, err := parquetTable(path)
	if err != nil {
		return nil, err
	}
	c := slices.Index(table[0], field)
	if c < 0 {
		return nil, fmt.Errorf("%w: %s: no column %q among %q", ErrFormat, path, field, table[0])
	}
	texts := make([]string, 0, len(table)-1)
	for _, r := range table[1:] {
		texts = append(texts, r[c])
	}
	return texts, nil
}

func allSuffix(names []string, suffix string) bool {
	for _, n := range names {
		if !strings.HasSuffix(n, suffix) {
			return false
		}
	}
	return true
}

func dirFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(names)
	return names, nil
}

func sniffTextFormat(path string, b []byte) string {
	base := decompress.TrimExt(path)
	switch {
	case strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".ndjson"):
		return FormatJSONL
	case bytes.HasPrefix(b, []byte("%\n")) || bytes.Contains(b, []byte("\n%\n")):
		return FormatFortunes
	}
	return FormatLines
}

// readAll reads a file, decompressed when it is compressed (gzip, zstd,
// bzip2 or xz, told from its first bytes), and drops a leading UTF-8 byte order
// mark.
func readAll(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	z, err := decompress.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("eval: %s: %w", path, err)
	}
	defer z.Close()
	b, err := io.ReadAll(z)
	if err != nil {
		return nil, fmt.Errorf("eval: %s: %w", path, err)
	}
	return bytes.TrimPrefix(b, []byte("\ufeff")), nil
}

func parseTexts(name string, b []byte, format, field string) ([]string, error) {
	switch format {
	case FormatFortunes:
		var texts []string
		var cur strings.Builder
		for line := range strings.Lines(string(b)) {
			if strings.TrimRight(line, "\r\n") == "%" {
				texts = append(texts, cur.String())
				cur.Reset()
				continue
			}
			cur.WriteString(line)
		}
		return append(texts, cur.String()), nil
	case FormatLines:
		return strings.Split(string(b), "\n"), nil
	case FormatJSONL:
		if field == "" {
			field = "text"
		}
		var texts []string
		err := jsonLines(name, b, func(line int, obj map[string]any) error {
			s, ok := obj[field].(string)
			if !ok {
				return fmt.Errorf("%w: %s:%d: no string field %q", ErrFormat, name, line, field)
			}
			texts = append(texts, s)
			return nil
		})
		return texts, err
	}
	return nil, fmt.Errorf("eval: unknown text format %q", format)
}

func jsonLines(name string, b []byte, f func(line int, obj map[string]any) error) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fmt.Errorf("%w: %s:%d: %v", ErrFormat, name, line, err)
		}
		if err := f(line, obj); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("eval: %s: %w", name, err)
	}
	return nil
}

// Pair formats that ReadPairs understands.
const (
	FormatTSV = "tsv"
	FormatCSV = "csv"
	// FormatClough is the directory of the Clough and Stevenson corpus:
	// file_information.csv names each answer's task and category (cut,
	// light, heavy, non); each answer is paired with orig_task<t>.txt and is
	// a positive unless its category is "non".
	FormatClough = "clough"
)

// PairOptions says how to read labelled pairs.
type PairOptions struct {
	// Format is FormatTSV, FormatCSV, FormatJSONL, FormatParquet or
	// FormatClough; empty means by the file name (.tsv, .csv, .jsonl, each
	// optionally .gz, .zst, .bz2 or .xz, a directory for clough), or a
	// Parquet file by its first bytes, tsv otherwise.
	Format string
	// ACol, BCol and LabelCol name the columns (or JSON fields, or Parquet
	// columns) of the two texts and the label: a header name, or a 0-based column number for
	// files without a header. Defaults: "sentence1", "sentence2", "label".
	ACol, BCol, LabelCol string
	// LabelThreshold: a pair is positive when its label is >= this.
	// Default 0.5 (0/1 labels); use e.g. 4 for STS scores 0-5.
	LabelThreshold float64
}

func (o *PairOptions) defaults() {
	if o.ACol == "" {
		o.ACol = "sentence1"
	}
	if o.BCol == "" {
		o.BCol = "sentence2"
	}
	if o.LabelCol == "" {
		o.LabelCol = "label"
	}
	if o.LabelThreshold == 0 {
		o.LabelThreshold = 0.5
	}
}

// Validate reports an unknown format.
func (o PairOptions) Validate() error {
	switch o.Format {
	case "", FormatTSV, FormatCSV, FormatJSONL, FormatParquet, FormatClough:
		return nil
	}
	return fmt.Errorf("eval: unknown pair format %q (want tsv, csv, jsonl, parquet or clough)", o.Format)
}

// ReadPairs reads labelled pairs from path. Positives with a score label
// (anything but 1) are tagged with the score rounded down ("label"
// dimension), and Clough positives with their category, so that reports
// show recall per score or category against all negatives. Identical texts
// are stored once.
func ReadPairs(path string, o PairOptions) (*Dataset, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o.defaults()
	format := o.Format
	if format == "" {
		format = sniffPairFormat(path)
	}
	d := &Dataset{Name: filepath.Base(path)}
	ids := map[string]int{}
	add := func(a, b string, positive bool, tags ...Tag) {
		id := func(t string) int {
			if i, ok := ids[t]; ok {
				return i
			}
			ids[t] = len(d.Texts)
			d.Texts = append(d.Texts, t)
			return len(d.Texts) - 1
		}
		d.Pairs = append(d.Pairs, Pair{A: id(a), B: id(b), Positive: positive, Tags: tags})
	}
	if format == FormatClough {
		return d, readClough(path, add)
	}
	var b []byte
	if format != FormatParquet {
		var err error
		if b, err = readAll(path); err != nil {
			return nil, err
		}
	}
	label := func(where, s string) (bool, []Tag, error) {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return false, nil, fmt.Errorf("%w: %s: label %q is not a number", ErrFormat, where, s)
		}
		pos := v >= o.LabelThreshold
		if pos && v != 1 {
			return pos, []Tag{{"label", strconv.FormatFloat(math.Floor(v), 'g', -1, 64)}}, nil
		}
		return pos, nil, nil
	}
	if format == FormatJSONL {
		err := jsonLines(path, b, func(line int, obj map[string]any) error {
			where := fmt.Sprintf("%s:%d", path, line)
			a, ok1 := obj[o.ACol].(string)
			bb, ok2 := obj[o.BCol].(string)
			if !ok1 || !ok2 {
				return fmt.Errorf("%w: %s: need string fields %q and %q", ErrFormat, where, o.ACol, o.BCol)
			}
			var l string
			switch v := obj[o.LabelCol].(type) {
			case float64:
				l = strconv.FormatFloat(v, 'g', -1, 64)
			case string:
				l = v
			case bool:
				l = map[bool]string{true: "1", false: "0"}[v]
			default:
				return fmt.Errorf("%w: %s: no label field %q", ErrFormat, where, o.LabelCol)
			}
			pos, tags, err := label(where, l)
			if err != nil {
				return err
			}
			add(a, bb, pos, tags...)
			return nil
		})
		return d, err
	}
	var rows [][]string
	var err error
	if format == FormatParquet {
		rows, err = parquetTable(path)
	} else {
		rows, err = splitRows(path, b, format)
	}
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: %s: no rows", ErrFormat, path)
	}
	cols := [3]int{}
	start := 0
	for i, name := range []string{o.ACol, o.BCol, o.LabelCol} {
		if n, err := strconv.Atoi(name); err == nil {
			cols[i] = n
			continue
		}
		j := slices.Index(rows[0], name)
		if j < 0 {
			return nil, fmt.Errorf("%w: %s: no column %q in header %q", ErrFormat, path, name, rows[0])
		}
		cols[i], start = j, 1
	}
	if start == 0 {
		// Numbered columns: skip a header line whose label is not a number.
		if _, _, err := label("", at(rows[0], cols[2])); err != nil {
			start = 1
		}
	}
	for i := start; i < len(rows); i++ {
		where := fmt.Sprintf("%s:%d", path, i+1)
		if format == FormatParquet {
			where = fmt.Sprintf("%s: row %d", path, i)
		}
		r := rows[i]
		if len(r) == 1 && strings.TrimSpace(r[0]) == "" {
			continue
		}
		if max(cols[0], cols[1], cols[2]) >= len(r) {
			return nil, fmt.Errorf("%w: %s: %d columns, need %d", ErrFormat, where, len(r), max(cols[0], cols[1], cols[2])+1)
		}
		pos, tags, err := label(where, r[cols[2]])
		if err != nil {
			return nil, err
		}
		add(r[cols[0]], r[cols[1]], pos, tags...)
	}
	return d, nil
}

func at(r []string, i int) string {
	if i < len(r) {
		return r[i]
	}
	return ""
}

func sniffPairFormat(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return FormatClough
	}
	base := decompress.TrimExt(path)
	switch {
	case strings.HasSuffix(base, ".csv"):
		return FormatCSV
	case strings.HasSuffix(base, ".jsonl"):
		return FormatJSONL
	case strings.HasSuffix(path, ".parquet") || isParquet(path):
		return FormatParquet
	}
	return FormatTSV
}

// splitRows splits TSV on tabs with no quoting (STS-B holds bare quotes) and
// CSV by RFC 4180 with lazy quotes.
func splitRows(path string, b []byte, format string) ([][]string, error) {
	if format == FormatCSV {
		r := csv.NewReader(bytes.NewReader(b))
		r.LazyQuotes = true
		r.FieldsPerRecord = -1
		rows, err := r.ReadAll()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrFormat, path, err)
		}
		return rows, nil
	}
	var rows [][]string
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			continue
		}
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows, nil
}

func readClough(dir string, add func(a, b string, positive bool, tags ...Tag)) error {
	info := filepath.Join(dir, "file_information.csv")
	b, err := readAll(info)
	if err != nil {
		return err
	}
	rows, err := splitRows(info, b, FormatCSV)
	if err != nil {
		return err
	}
	origs := map[string]string{}
	for i, r := range rows {
		if i == 0 || len(r) == 1 && r[0] == "" {
			continue
		}
		if len(r) < 3 {
			return fmt.Errorf("%w: %s:%d: want File,Task,Category", ErrFormat, info, i+1)
		}
		file, task, cat := strings.TrimSpace(r[0]), strings.TrimSpace(r[1]), strings.TrimSpace(r[2])
		if cat == "orig" || strings.HasPrefix(file, "orig_") {
			continue
		}
		orig, ok := origs[task]
		if !ok {
			ob, err := readAll(filepath.Join(dir, "orig_task"+task+".txt"))
			if err != nil {
				return err
			}
			orig = string(ob)
			origs[task] = orig
		}
		ab, err := readAll(filepath.Join(dir, file))
		if err != nil {
			return err
		}
		if cat == "non" {
			add(orig, string(ab), false)
		} else {
			add(orig, string(ab), true, Tag{"category", cat})
		}
	}
	return nil
}
