package weight

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-ego/gse"
	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/simhash"
)

// ErrFormat is returned (wrapped, with the line number) when an IDF table
// cannot be read.
var ErrFormat = errors.New("weight: bad IDF table")

// IDF is a table of inverse document frequencies keyed by 64-bit feature
// hash (simhash.Hash64 of a token, simhash.Shingle64 of a shingle), so the
// fingerprinting hot path looks features up without making strings. A
// feature not in the table gets the table's default IDF. An IDF is
// immutable once made and safe for concurrent use. The nil *IDF gives
// every feature an IDF of 1.
type IDF struct {
	docs int64
	def  float64
	m    map[uint64]float32
}

// NewIDF returns a table of the given IDF values, made from docs documents,
// with def for unknown features.
func NewIDF(values map[uint64]float64, docs int64, def float64) *IDF {
	t := &IDF{docs: docs, def: def, m: make(map[uint64]float32, len(values))}
	for k, v := range values {
		t.m[k] = float32(v)
	}
	return t
}

// Lookup returns the IDF of the feature with the 64-bit hash key.
func (t *IDF) Lookup(key uint64) float64 {
	if t == nil {
		return 1
	}
	if v, ok := t.m[key]; ok {
		return float64(v)
	}
	return t.def
}

// Len returns the number of features in the table.
func (t *IDF) Len() int {
	if t == nil {
		return 0
	}
	return len(t.m)
}

// Docs returns the number of documents the table was built from (0 when
// unknown, as for tables read from word lists).
func (t *IDF) Docs() int64 {
	if t == nil {
		return 0
	}
	return t.docs
}

// Default returns the IDF of features not in the table.
func (t *IDF) Default() float64 {
	if t == nil {
		return 1
	}
	return t.def
}

// Builder counts document frequencies to build an IDF table. The zero
// value is ready to use. A Builder is not safe for concurrent use.
type Builder struct {
	docs int64
	df   map[uint64]uint32
}

// Add counts one document whose features have the hashes keys; repeated
// keys count once. It sorts keys in place.
func (b *Builder) Add(keys []uint64) {
	if b.df == nil {
		b.df = make(map[uint64]uint32)
	}
	b.docs++
	slices.Sort(keys)
	for i, k := range keys {
		if i == 0 || k != keys[i-1] {
			b.df[k]++
		}
	}
}

// Docs returns the number of documents added.
func (b *Builder) Docs() int64 { return b.docs }

// IDF returns the table of the features seen in at least minDF documents,
// with the smoothed formula idf = ln((N+1)/(df+1)) + 1 (N documents), which
// is always positive. Unknown features get the IDF of df = 0, the largest.
func (b *Builder) IDF(minDF int) *IDF {
	n := float64(b.docs)
	t := &IDF{docs: b.docs, def: math.Log(n+1) + 1, m: make(map[uint64]float32)}
	for k, df := range b.df {
		if int(df) >= minDF {
			t.m[k] = float32(math.Log((n+1)/(float64(df)+1)) + 1)
		}
	}
	return t
}

// The text format of an IDF table, version 2:
//
//	neardup-idf 2
//	docs N
//	default X
//	0123456789abcdef X
//	...
//	features M
//
// The first line names the format and its version. "docs" gives the number
// of documents the table was built from, "default" the IDF of features not
// listed. Then one line per feature: its 64-bit hash as 16 lower-case hex
// digits, a space, its IDF as a decimal number; lines are sorted by hash.
// The last line, "features", gives the number of feature lines, so that a
// table cut short (an interrupted write or copy) is refused rather than
// read as a smaller one. Empty lines and lines starting with # are ignored.
//
// Version 1, written by earlier releases, is the same without the
// "features" line. ReadIDF still reads it, refusing only one whose last
// line has no line end (as every table WriteTo wrote has): that is a table
// cut mid-line. A version 1 table cut at a line end cannot be told from a
// whole one. WriteTo writes version 2.
const (
	formatHeader   = "neardup-idf 2"
	formatHeaderV1 = "neardup-idf 1"
)

// WriteTo writes t in the text format (see ReadIDF).
func (t *IDF) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	fmt.Fprintf(cw, "%s\ndocs %d\ndefault %s\n", formatHeader, t.Docs(), strconv.FormatFloat(t.Default(), 'g', -1, 64))
	keys := make([]uint64, 0, t.Len())
	if t != nil {
		for k := range t.m {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var line []byte
	for _, k := range keys {
		line = line[:0]
		line = fmt.Appendf(line, "%016x ", k)
		line = strconv.AppendFloat(line, float64(t.m[k]), 'g', -1, 32)
		line = append(line, '\n')
		cw.Write(line)
	}
	fmt.Fprintf(cw, "features %d\n", len(keys))
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("weight: writing IDF table: %w", err)
	}
	return cw.n, cw.err
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		c.err = fmt.Errorf("weight: writing IDF table: %w", err)
	}
	return n, c.err
}

// ReadIDF reads a table in the text format written by WriteTo, version 2
// or 1 (see the format's description above):
//
//	neardup-idf 2
//	docs N
//	default X
//	<16 hex digits> <idf>   (one line per feature)
//	features M              (version 2 only)
//
// A version 2 table must end with its "features" line and have that many
// feature lines, and a version 1 table must end with a line end; otherwise
// it looks truncated and is refused. Errors wrap ErrFormat and name the
// line.
func ReadIDF(r io.Reader) (*IDF, error) {
	lr := &lastByteReader{r: r}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	t := &IDF{m: make(map[uint64]float32)}
	lineNo := 0
	var haveDocs, haveDef, v1 bool
	var feats, trailer int64 // feature lines read; the count the trailer gives
	trailerLine := 0         // the line of the "features" trailer; 0 before it
	// lineErr reports a bad line. In a version 2 table, a bad line with
	// nothing after it (so no trailer) is where the table was cut, and the
	// message says so.
	lineErr := func(format string, a ...any) error {
		msg := fmt.Sprintf(format, a...)
		if !v1 && !sc.Scan() && sc.Err() == nil {
			return fmt.Errorf("%w: line %d: %s, and the table ends there without its \"features\" line: it looks truncated", ErrFormat, lineNo, msg)
		}
		return fmt.Errorf("%w: line %d: %s", ErrFormat, lineNo, msg)
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if lineNo == 1 {
			if line != formatHeader && line != formatHeaderV1 {
				return nil, fmt.Errorf("%w: line 1: got %.40q, want %q (or %q)", ErrFormat, line, formatHeader, formatHeaderV1)
			}
			v1 = line == formatHeaderV1
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		if trailerLine > 0 {
			return nil, fmt.Errorf("%w: line %d: more after the \"features\" line %d, which ends the table", ErrFormat, lineNo, trailerLine)
		}
		key, val, ok := strings.Cut(line, " ")
		if !ok {
			return nil, lineErr("want two fields")
		}
		switch {
		case key == "docs":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n < 0 {
				return nil, lineErr("bad document count %q", val)
			}
			t.docs, haveDocs = n, true
			continue
		case key == "default":
			f, err := parseIDFValue(val)
			if err != nil {
				return nil, lineErr("%v", err)
			}
			t.def, haveDef = f, true
			continue
		case key == "features" && !v1:
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n < 0 {
				return nil, lineErr("bad feature count %q", val)
			}
			trailer, trailerLine = n, lineNo
			continue
		}
		if len(key) != 16 {
			return nil, lineErr("hash %q is not 16 hex digits", key)
		}
		k, err := strconv.ParseUint(key, 16, 64)
		if err != nil {
			return nil, lineErr("hash %q is not 16 hex digits", key)
		}
		f, err := parseIDFValue(val)
		if err != nil {
			return nil, lineErr("%v", err)
		}
		t.m[k] = float32(f)
		feats++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("weight: reading IDF table: %w", err)
	}
	if lineNo == 0 {
		return nil, fmt.Errorf("%w: empty input", ErrFormat)
	}
	if !v1 && trailerLine == 0 {
		return nil, fmt.Errorf("%w: the table ends at line %d without its \"features\" line: it looks truncated", ErrFormat, lineNo)
	}
	if !haveDocs || !haveDef {
		return nil, fmt.Errorf("%w: missing docs or default line", ErrFormat)
	}
	if !v1 && trailer != feats {
		return nil, fmt.Errorf("%w: line %d: \"features %d\", but the table has %d feature lines: it looks truncated or edited", ErrFormat, trailerLine, trailer, feats)
	}
	if v1 && lr.last != '\n' {
		return nil, fmt.Errorf("%w: line %d has no line end: the table looks truncated", ErrFormat, lineNo)
	}
	return t, nil
}

// lastByteReader passes reads through and keeps the last byte read.
type lastByteReader struct {
	r    io.Reader
	last byte
}

func (l *lastByteReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.last = p[n-1]
	}
	return n, err
}

func parseIDFValue(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("bad IDF value %q (want a finite number >= 0)", s)
	}
	return f, nil
}

// ReadTermIDF reads a word list in the format of jieba's and gse's idf.txt:
// one "word idf" pair per line (a word, white space, a number; further
// fields ignored). Each word is normalized (analysis.Normalize) and keyed by
// simhash.Hash64, so the table applies to single-token features. The
// default IDF is the median of the values, as jieba does.
func ReadTermIDF(r io.Reader) (*IDF, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	t := &IDF{m: make(map[uint64]float32)}
	var vals []float64
	var buf []byte
	lineNo := 0
	for sc.Scan() {
		lineNo++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("%w: line %d: want a word and a number", ErrFormat, lineNo)
		}
		f, err := parseIDFValue(fields[1])
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, lineNo, err)
		}
		buf = analysis.Normalize(buf[:0], []byte(fields[0]))
		t.m[simhash.Hash64(buf)] = float32(f)
		vals = append(vals, f)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("weight: reading IDF word list: %w", err)
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("%w: no words", ErrFormat)
	}
	slices.Sort(vals)
	t.def = vals[len(vals)/2]
	return t, nil
}

// Chinese holds the shipped Chinese IDF table: gse's idf.txt (derived from
// jieba's; Apache-2.0), about 270,000 words, parsed on first use (a few
// hundred milliseconds) and shared. The zero value is ready to use; a
// program holds one, typically for its whole life.
type Chinese struct {
	once sync.Once
	t    *IDF
	err  error
}

// Table returns the Chinese IDF table, parsing it on the first call.
func (c *Chinese) Table() (*IDF, error) {
	c.once.Do(func() {
		c.t, c.err = ReadTermIDF(strings.NewReader(gse.ZhIdf))
		if c.err != nil {
			c.err = fmt.Errorf("weight: the shipped Chinese IDF table: %w", c.err)
		}
	})
	return c.t, c.err
}
