package neardup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/weight"
)

// Units names what the features of a Pipeline are made of.
type Units string

// The feature units.
const (
	// UnitWords: features are shingles of word tokens (analysis.Words; CJK
	// text per Pipeline.CJK).
	UnitWords Units = "words"
	// UnitChars: features are character n-grams of the normalized text,
	// spaces included.
	UnitChars Units = "chars"
)

// CJKMode names how runs of Han, Kana and Hangul characters become tokens
// when a Pipeline works on words.
type CJKMode string

// The CJK modes.
const (
	// CJKUnigram: each character is a token.
	CJKUnigram CJKMode = "unigram"
	// CJKBigram: each pair of adjacent characters is a token (a lone
	// character is a token by itself).
	CJKBigram CJKMode = "bigram"
	// CJKSegment: runs are split into words by gse (analysis.Segmenter).
	CJKSegment CJKMode = "segment"
)

// MaxShingle is the largest Pipeline.Shingle.
const MaxShingle = simhash.MaxWindow

// Pipeline configures neardup's own "default" profile: how text is
// normalized, split into features and weighted before SimHash. A zero
// field takes the default given in its comment (the value DefaultPipeline
// sets), so Pipeline{} is the default pipeline. The steps, in order:
//
//  1. HTML to text (analysis.StripHTML, or analysis.MainText with
//     MainText), if HTML or MainText is set, then the accents
//     of Latin and Greek letters and the optional marks of Cyrillic taken
//     off (analysis.FoldAccents), if FoldAccents is set;
//  2. analysis.Normalize: NFKC, case and width folding, controls dropped,
//     white space folded, invalid UTF-8 read as U+FFFD;
//  3. tokens (analysis.Words, CJK per the CJK field), minus StopWords, or
//     characters (Units = chars);
//  4. features: shingles of Shingle consecutive tokens (or characters),
//     hashed with simhash.Hash64/Hash128 and simhash.Shingle64/Shingle128; a
//     text with fewer tokens than Shingle has one feature made of all of
//     them;
//  5. weights per Weighting, then the TopN heaviest features, if TopN > 0;
//  6. SimHash (simhash package bit rule).
//
// A text with no tokens in step 3 (only punctuation, symbols or emoji, or
// only stop words) takes its characters other than spaces as tokens
// instead. A text with none of those either (empty once normalized) has
// no features and the fingerprint 0.
type Pipeline struct {
	// HTML reads the text as HTML: tags, scripts and styles are dropped and
	// entities decoded. Default false.
	HTML bool
	// MainText reads the text as HTML as HTML does, without the page's
	// furniture: the contents of its nav, header, footer and aside
	// elements, which a site puts around every page and changes from one
	// fetch to the next (analysis.MainText). The policy measures the same
	// text. Default false.
	MainText bool
	// FoldAccents takes the accents off Latin and Greek letters and
	// writes Cyrillic ё as е, without stress marks (analysis.FoldAccents),
	// so that "café" and "cafe" are one word, and "ёлка" and "елка", and
	// the policy's measures compare the folded texts too. For French,
	// Spanish, German, Polish, Greek or Russian text whose copies may have
	// lost their accents; not for Vietnamese, whose marks tell words
	// apart. Default false.
	FoldAccents bool
	// Units is what features are made of: UnitWords (default) or UnitChars.
	Units Units
	// CJK is how CJK text is tokenized with UnitWords: CJKUnigram (default),
	// CJKBigram or CJKSegment. Ignored with UnitChars.
	CJK CJKMode
	// Shingle is the number of tokens (UnitWords) or characters (UnitChars)
	// per feature, 1 to MaxShingle. Default 1 for words, 5 for characters.
	Shingle int
	// Weighting is the weight of a feature: weight.LogTF (default; 1 + ln of
	// the count of its occurrences), weight.TF (the count; the fastest, as
	// features then stream into the accumulator uncounted), weight.Binary or
	// weight.TFIDF.
	Weighting weight.Scheme
	// TopN keeps only the TopN heaviest features; 0 (default) keeps all.
	TopN int
	// IDF is the table TFIDF weighting uses, keyed by the 64-bit feature
	// hash (see weight.IDF). nil (default) means the shipped Chinese word
	// table (weight.Chinese), which suits CJK = segment and Shingle = 1,
	// loaded on first use. Ignored unless Weighting is TFIDF.
	IDF *weight.IDF
	// StopWords are tokens dropped before shingling, e.g.
	// analysis.EnglishStopWords(). nil (default) drops none. Ignored with
	// UnitChars.
	StopWords *analysis.StopWords
	// Segmenter is the word segmenter CJKSegment uses. nil (default) means
	// one of its own, loaded on first use; pipelines that share one load
	// the dictionary once.
	Segmenter *analysis.Segmenter
}

// DefaultPipeline returns the settings of the "default" profile: words,
// CJK characters as single tokens, one token per feature, log-tf weights, all features, no stop
// words, plain text.
//
// Why: on controlled edits of real texts (200 Brown corpus passages of
// 6,000 characters with 1-10% of words deleted, inserted or replaced; 155
// classical Chinese essays with 1-10% of characters edited), single tokens
// separate edited copies from other passages best: at the largest distance
// with no false match among all pairs of distinct passages (10 bits for
// English, 16 for Chinese), 100% of the copies with 5% edits are found, and
// 95-97% with 10%, against 71-86% for 3-token shingles. Plain tf on English
// words lets the function words dominate (distinct passages as close as 0
// bits); log-tf fixes that. CJK unigrams rather than bigrams: on short
// Chinese texts (fortunes-zh, under 140 characters, edits up to 10%) recall
// at 8 bits rises from 0.551 to 0.790, and on the 古文观止 essays from 0.690
// to 0.932, while unrelated Chinese texts stay 24-30 bits apart
// (docs/EVALUATION.md, section 5).
func DefaultPipeline() Pipeline {
	return Pipeline{
		Units:     UnitWords,
		CJK:       CJKUnigram,
		Shingle:   1,
		Weighting: weight.LogTF,
	}
}

// String describes p by the fields that differ from DefaultPipeline, as
// Field=value joined by commas ("Shingle=3,Weighting=tf"; "default" when
// none does), in the form the command line's --pipeline reads; a table of
// IDF weights, stop words or a segmenter shows as "(a table)", "(a list)"
// or "(given)".
func (p Pipeline) String() string {
	q, d := p.withDefaults(), DefaultPipeline().withDefaults()
	var fs []string
	add := func(name string, v, def any) {
		if v != def {
			fs = append(fs, fmt.Sprintf("%s=%v", name, v))
		}
	}
	add("HTML", q.HTML, d.HTML)
	add("MainText", q.MainText, d.MainText)
	add("FoldAccents", q.FoldAccents, d.FoldAccents)
	add("Units", q.Units, d.Units)
	add("CJK", q.CJK, d.CJK)
	add("Shingle", q.Shingle, d.Shingle)
	add("Weighting", q.Weighting, d.Weighting)
	add("TopN", q.TopN, d.TopN)
	if q.IDF != nil {
		fs = append(fs, "IDF=(a table)")
	}
	if q.StopWords != nil {
		fs = append(fs, "StopWords=(a list)")
	}
	if q.Segmenter != nil {
		fs = append(fs, "Segmenter=(given)")
	}
	if len(fs) == 0 {
		return "default"
	}
	return strings.Join(fs, ",")
}

// withDefaults returns p with its zero fields set to their defaults.
func (p Pipeline) withDefaults() Pipeline {
	d := DefaultPipeline()
	if p.Units == "" {
		p.Units = d.Units
	}
	if p.CJK == "" {
		p.CJK = d.CJK
	}
	if p.Shingle == 0 {
		p.Shingle = d.Shingle
		if p.Units == UnitChars {
			p.Shingle = 5 // characters, not words
		}
	}
	if p.Weighting == "" {
		p.Weighting = d.Weighting
	}
	return p
}

// ErrPipeline is returned (wrapped) by Pipeline.Validate and NewPipeline
// for a field out of range.
var ErrPipeline = errors.New("neardup: bad pipeline")

// Validate returns an error wrapping ErrPipeline that names the first field
// out of range; zero fields are valid (they take defaults).
func (p Pipeline) Validate() error {
	q := p.withDefaults()
	switch q.Units {
	case UnitWords, UnitChars:
	default:
		return fmt.Errorf("%w: Units %q (want words or chars)", ErrPipeline, string(p.Units))
	}
	switch q.CJK {
	case CJKUnigram, CJKBigram, CJKSegment:
	default:
		return fmt.Errorf("%w: CJK %q (want unigram, bigram or segment)", ErrPipeline, string(p.CJK))
	}
	if q.Shingle < 1 || q.Shingle > MaxShingle {
		return fmt.Errorf("%w: Shingle %d (want 1 to %d)", ErrPipeline, p.Shingle, MaxShingle)
	}
	if err := q.Weighting.Validate(); err != nil {
		return fmt.Errorf("%w: Weighting: %v", ErrPipeline, err)
	}
	if q.TopN < 0 {
		return fmt.Errorf("%w: TopN %d (want >= 0)", ErrPipeline, p.TopN)
	}
	return nil
}

// NewPipeline returns a SimHash Fingerprinter of the given width (64 or
// 128) that runs the pipeline p. It returns ErrWidth for another width and
// an error wrapping ErrPipeline for a bad p. The Fingerprinter is safe for
// concurrent use and, except with CJKSegment (gse returns strings), does not
// allocate in steady state: its buffers are pooled.
func NewPipeline(p Pipeline, bits int) (Fingerprinter, error) {
	if bits != 64 && bits != 128 {
		return nil, fmt.Errorf("%w: SimHash is 64 or 128 bits, not %d", ErrWidth, bits)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	q := p.withDefaults()
	f := &pipelineFP{p: q, bits: bits, stream: q.Weighting == weight.TF && q.TopN == 0}
	f.count64 = bits == 64 && !f.stream && q.Weighting != weight.TFIDF && q.TopN == 0
	f.fastWords = q.Units == UnitWords && q.StopWords == nil && q.Shingle == 1 && !f.stream && (bits == 64 || q.Weighting != weight.TFIDF)
	f.fastCJK = f.fastWords && q.CJK == CJKUnigram
	if q.Units == UnitWords && q.CJK == CJKSegment && q.Segmenter == nil {
		f.p.Segmenter = new(analysis.Segmenter)
	}
	for c := range f.groupW {
		f.groupW[c] = q.Weighting.Weight(c, 1)
	}
	f.pool.New = func() any { return new(pipelineState) }
	return f, nil
}

// pipelineFP is the Fingerprinter of a Pipeline.
type pipelineFP struct {
	p      Pipeline
	bits   int
	stream bool // tf weights, all features: add each occurrence to an Acc
	// count64: 64 bits, weights by count only, all features: count them in
	// a Counter64, whose counts sumCounts64 groups
	count64 bool
	// fastWords: single word tokens, no stop words, counted (at 128 bits,
	// without IDF weights): plain ASCII text takes countSpans (countSpans128
	// at 128 bits); fastCJK: also CJK unigrams, so that common Chinese text
	// takes hashCJK (hashCJK128 at 128 bits)
	fastWords, fastCJK bool
	// general turns the fast paths off (for the tests that compare them
	// with the general path)
	general bool
	pool    sync.Pool
	chinese weight.Chinese // the default IDF table, loaded when needed
	// groupW[c] is the weight of a feature seen c times (c <= maxGroup),
	// with an IDF of 1: the weight of count group c
	groupW [maxGroup + 1]float64
}

// pipelineState is the per-call state, pooled.
type pipelineState struct {
	f       *pipelineFP
	html    []byte
	fold    []byte // the text with its accents folded (Pipeline.FoldAccents)
	norm    []byte
	scratch analysis.Scratch
	text    []byte // the normalized text being tokenized
	lower   bool   // text is plain ASCII, not normalized: lower tokens
	cjk     bool   // the tokens are in hashes already (hashCJK)
	scanned bool   // text is plain ASCII, already in scan (f.fastWords)
	tok     []byte // a lowered token
	scan    analysis.ASCIIWords
	spans   []uint32 // the token offsets of countSpans
	hashes  []uint64 // the token hashes of countSpans and hashCJK
	// the token hashes of hashCJK128, high and low halves
	hashes128 [][2]uint64
	seg       []byte // the ASCII text between two ideographs, in hashCJK
	idf       *weight.IDF

	// sliding windows of the last Shingle token hashes: sh64 for 64-bit
	// fingerprints and IDF keys, sh128 for 128-bit ones
	sh64  simhash.Shingler64
	sh128 simhash.Shingler128

	// CJK bigrams: the pending CJK character
	cjkStart, cjkEnd int
	cjkRun           int // characters in the current run

	counter weight.Counter
	fused   bool             // the features were counted in count64 (f.count64)
	count64 weight.Counter64 // the counts of f.count64
	acc64   simhash.Acc64
	acc128  simhash.Acc128
	// features grouped by count, for weights that depend on the count only
	byCount64  [maxGroup + 1]simhash.Acc64
	byCount128 [maxGroup + 1]simhash.Acc128
	w64        simhash.Weighted64
	w128       simhash.Weighted128
}

// maxGroup is the largest count whose features are grouped (see sum).
const maxGroup = 32

// Bits returns 64 or 128.
func (f *pipelineFP) Bits() int { return f.bits }

// Fingerprint returns the SimHash of text.
func (f *pipelineFP) Fingerprint(text []byte) Fingerprint {
	s := f.start(text)
	fp := s.sum()
	f.finish(s)
	return fp
}

// start takes a state from the pool and runs the analysis of text: the
// features are in the accumulator (when streaming) or in s.counter.
func (f *pipelineFP) start(text []byte) *pipelineState {
	s := f.pool.Get().(*pipelineState)
	s.f = f
	src := text
	switch {
	case f.p.MainText:
		s.html = analysis.MainText(s.html[:0], text)
		src = s.html
	case f.p.HTML:
		s.html = analysis.StripHTML(s.html[:0], text)
		src = s.html
	}
	if f.p.FoldAccents {
		s.fold = analysis.FoldAccents(s.fold[:0], src)
		src = s.fold
	}
	// Plain ASCII text (no control characters) needs no normalization for
	// word tokens: its tokens are those of the normalized text, but for
	// case, which words lowers token by token. Common Chinese text needs
	// no normalized copy at all, when the fast path can take it (hashCJK).
	// (Both keep token offsets in 32 bits.)
	short := uint64(len(src)) < 1<<32 && !f.general
	s.scanned = false
	if f.fastWords && short {
		// the plain test and the word bitmap of countSpans in one pass
		s.lower = s.scan.ResetPlain(src)
		s.scanned = s.lower
	} else {
		s.lower = f.p.Units == UnitWords && short && analysis.PlainASCII(src)
	}
	s.cjk = false
	if s.lower {
		s.text = src
	} else {
		if f.bits == 64 {
			s.cjk = f.fastCJK && short && s.hashCJK(src)
		} else {
			s.cjk = f.fastCJK && short && s.hashCJK128(src)
		}
		if !s.cjk {
			s.norm = s.scratch.Normalize(s.norm[:0], src)
		}
		s.text = s.norm
	}
	s.cjkRun = 0
	s.sh64.Reset(f.p.Shingle)
	s.sh128.Reset(f.p.Shingle)
	s.counter.Reset()
	s.count64.Reset()
	s.fused = f.count64
	s.idf = nil
	if !f.stream && f.p.Weighting == weight.TFIDF {
		s.idf = f.p.IDF
		if s.idf == nil {
			s.idf, _ = f.chinese.Table() // on error: nil, every IDF 1
		}
	}
	if f.bits == 64 {
		s.acc64.Reset()
	} else {
		s.acc128.Reset()
	}
	if f.p.Units == UnitChars {
		s.charGrams()
	} else {
		s.words()
		if s.empty() {
			s.runeTokens(src)
		}
	}
	return s
}

// empty reports whether no feature has been added.
func (s *pipelineState) empty() bool {
	switch {
	case s.f.stream && s.f.bits == 64:
		return s.acc64.Len() == 0
	case s.f.stream:
		return s.acc128.Len() == 0
	case s.fused:
		return s.count64.Len() == 0
	}
	return s.counter.Len() == 0
}

// runeTokens feeds the characters of the normalized text of src, but for
// spaces, through the window as tokens: the features of a text without
// words (punctuation, symbols, emoji), which would otherwise have none and
// the fingerprint 0, shared by all such texts (so that each was a
// candidate of every other one).
func (s *pipelineState) runeTokens(src []byte) {
	if s.lower || s.cjk { // s.text is src itself, or unused
		s.norm = s.scratch.Normalize(s.norm[:0], src)
		s.text = s.norm
	}
	s.sh64.Reset(s.f.p.Shingle)
	s.sh128.Reset(s.f.p.Shingle)
	analysis.Chars(s.text, s.token)
	s.finish()
}

// finish returns s to the pool, unless its buffers grew large.
func (f *pipelineFP) finish(s *pipelineState) {
	s.f, s.text = nil, nil
	if cap(s.norm) <= 1<<20 && cap(s.html) <= 1<<20 && cap(s.fold) <= 1<<20 && cap(s.hashes) <= 1<<17 && cap(s.hashes128) <= 1<<16 {
		f.pool.Put(s)
	}
}

// words feeds the word tokens of s.text through the window.
func (s *pipelineState) words() {
	p := &s.f.p
	if s.cjk {
		if s.f.bits == 64 {
			s.count(s.hashes)
			return
		}
		for _, h := range s.hashes128 {
			s.counter.Add(h[0], h[1], 0)
		}
		return
	}
	if s.lower {
		// The default pipeline (single tokens, counted, 64 bits) counts
		// each token's hash directly.
		if s.scanned {
			if s.f.bits == 64 {
				s.countSpans(s.scan.Spans(s.spans[:0]))
			} else {
				s.countSpans128(s.scan.Spans(s.spans[:0]))
			}
			return
		}
		analysis.Words{}.Tokenize(s.text, func(t analysis.Token) {
			tok := t.Text
			if hasUpper(tok) {
				s.tok = lowerASCII(s.tok[:0], tok)
				tok = s.tok
			}
			if !p.StopWords.Contains(tok) {
				s.token(tok)
			}
		})
		s.finish()
		return
	}
	if s.f.fastWords && !s.f.general {
		// Accented European text (analysis.LatinSpans): the spans of its
		// words, hashed and counted as plain ASCII's are.
		if spans, ok := analysis.LatinSpans(s.spans[:0], s.text); ok {
			if s.f.bits == 64 {
				s.countSpans(spans)
			} else {
				s.countSpans128(spans)
			}
			return
		}
	}
	emit := func(t analysis.Token) {
		if p.StopWords.Contains(t.Text) {
			return
		}
		if t.CJK && p.CJK == CJKBigram {
			s.bigram(t)
			return
		}
		s.flushCJK()
		s.token(t.Text)
	}
	if p.CJK == CJKSegment {
		p.Segmenter.Tokenize(s.text, emit)
	} else {
		analysis.Words{}.Tokenize(s.text, emit)
	}
	s.flushCJK()
	s.finish()
}

// countSpans counts the tokens text[spans[2k]:spans[2k+1]] of the plain
// ASCII s.text, lowered, by their 64-bit hashes, in loops with no call per
// token and no token copied: the hashes, lowered as they are read
// (simhash.AppendHash64Lower), then the counts. The spans come from
// analysis.ASCIIWords.Spans.
func (s *pipelineState) countSpans(spans []uint32) {
	s.spans = spans
	s.hashes, s.tok = simhash.AppendHash64Lower(s.hashes[:0], s.text, spans, s.tok)
	s.count(s.hashes)
}

// countSpans128 is countSpans at 128 bits: each token, lowered, is hashed
// with simhash.Hash128 and counted, as token does for a single-token
// pipeline without IDF weights.
func (s *pipelineState) countSpans128(spans []uint32) {
	s.spans = spans
	for i := 0; i+1 < len(spans); i += 2 {
		tok := s.text[spans[i]:spans[i+1]]
		if hasUpper(tok) {
			s.tok = lowerASCII(s.tok[:0], tok)
			tok = s.tok
		}
		hi, lo := simhash.Hash128(tok)
		s.counter.Add(hi, lo, 0)
	}
}

// count counts the features hs.
func (s *pipelineState) count(hs []uint64) {
	if s.f.count64 {
		s.count64.AddAll(hs)
		return
	}
	for _, h := range hs {
		s.counter.Add(0, h, h)
	}
}

// hashCJK puts in s.hashes the hashes of the tokens of common Chinese text
// src (the text analysis.FoldCJK takes), in order, and reports true; or
// reports false for other text. It makes one pass over src, with no
// normalized copy: each ideograph is a token (simhash.Hash3 of its three
// bytes); the ASCII text between two ideographs, with full-width forms
// mapped to ASCII and CJK punctuation to spaces (word boundaries, as it is
// in the normalized text), is gathered in s.seg and split into words as
// plain ASCII. The fingerprint is then that of the general path: the
// tokens of the normalized text, in order (TestPipelineFastPaths).
func (s *pipelineState) hashCJK(src []byte) bool {
	n := len(src)
	// Written by index, with no branch per character: hs has room for
	// every ideograph left, seg for all of src.
	hs := slices.Grow(s.hashes[:0], n/3+1)
	hs = hs[:cap(hs)]
	seg := slices.Grow(s.seg[:0], n+1)
	seg = seg[:cap(seg)]
	nh, ns := 0, 0
	word := 0 // 1 if seg[:ns] has a word byte
	for i := 0; i < n; {
		if src[i] < 0x80 {
			j := asciiRunEnd(src, i)
			if !analysis.PlainASCII(src[i:j]) {
				return false
			}
			for _, c := range src[i:j] {
				word |= wordBit(c)
			}
			ns += copy(seg[ns:], src[i:j])
			i = j
			continue
		}
		x := char3(src, i)
		kind, b := analysis.CJKChar(x)
		if kind == analysis.CJKNone {
			return false
		}
		// without branches, from the kinds' values (1 0 1 and 0 1 1 in
		// binary): han is 1 for an ideograph, k1 for it or an ASCII
		// byte, 0 for punctuation, which becomes a space
		k := int(kind)
		han, k1 := k&^(k>>1)&1, byte(k&1)
		b = b*k1 + ' '*(1-k1)
		if word&han != 0 {
			// the words of the ASCII text before this ideograph
			hs = s.segWords(hs[:nh], seg[:ns])
			nh = len(hs)
			hs = slices.Grow(hs, (n-i)/3+1)
			hs = hs[:cap(hs)]
			word = 0
		}
		// an ideograph is a token; other characters go to seg, as their
		// ASCII byte or as a space, which seg forgets at an ideograph
		hs[nh] = simhash.Hash3(x)
		nh += han
		word |= wordBit(b) &^ han
		seg[ns] = b
		ns = (ns + 1) * (1 - han)
		i += 3
	}
	hs = hs[:nh]
	if word != 0 {
		hs = s.segWords(hs, seg[:ns])
	}
	s.hashes, s.seg = hs, seg[:0]
	return true
}

// hashCJK128 is hashCJK at 128 bits: it puts in s.hashes128 the 128-bit
// hashes of the tokens of common Chinese text src (simhash.Hash128 of each
// ideograph's three bytes, and of each word of the ASCII text between
// them, lowered), as the general path hashes them, and reports true; or
// reports false, having counted nothing, for other text.
func (s *pipelineState) hashCJK128(src []byte) bool {
	n := len(src)
	hs := s.hashes128[:0]
	seg := s.seg[:0]
	word := false // seg has a word byte
	words := func() {
		if word {
			s.scan.Reset(seg)
			s.spans = s.scan.Spans(s.spans[:0])
			for k := 0; k+1 < len(s.spans); k += 2 {
				tok := seg[s.spans[k]:s.spans[k+1]]
				if hasUpper(tok) {
					s.tok = lowerASCII(s.tok[:0], tok)
					tok = s.tok
				}
				hi, lo := simhash.Hash128(tok)
				hs = append(hs, [2]uint64{hi, lo})
			}
		}
		seg, word = seg[:0], false
	}
	for i := 0; i < n; {
		if src[i] < 0x80 {
			j := asciiRunEnd(src, i)
			if !analysis.PlainASCII(src[i:j]) {
				s.hashes128, s.seg = hs, seg[:0]
				return false
			}
			for _, c := range src[i:j] {
				word = word || wordBit(c) != 0
			}
			seg = append(seg, src[i:j]...)
			i = j
			continue
		}
		switch kind, b := analysis.CJKChar(char3(src, i)); kind {
		case analysis.CJKNone:
			s.hashes128, s.seg = hs, seg[:0]
			return false
		case analysis.CJKHan:
			words()
			hi, lo := simhash.Hash128(src[i : i+3])
			hs = append(hs, [2]uint64{hi, lo})
		case analysis.CJKASCII:
			seg = append(seg, b)
			word = word || wordBit(b) != 0
		default: // punctuation: a word boundary
			seg = append(seg, ' ')
		}
		i += 3
	}
	words()
	s.hashes128, s.seg = hs, seg[:0]
	return true
}

// asciiRunEnd returns the end of the run of ASCII bytes of src that
// starts at src[i], an ASCII byte.
func asciiRunEnd(src []byte, i int) int {
	j := i + 1
	for j < len(src) && src[j] < 0x80 {
		j++
	}
	return j
}

// char3 returns the three-byte character at src[i] for analysis.CJKChar,
// read with the byte after it (or a 0), or 0 when fewer than three bytes
// are left.
func char3(src []byte, i int) uint32 {
	switch n := len(src); {
	case i+4 <= n:
		return binary.LittleEndian.Uint32(src[i:])
	case i+3 == n:
		return uint32(src[i]) | uint32(src[i+1])<<8 | uint32(src[i+2])<<16
	}
	return 0
}

// wordBit is 1 if the byte c is an ASCII letter, digit or _, else 0.
func wordBit(c byte) int { return int(wordBytes[c>>6] >> (c & 63) & 1) }

// wordBytes marks the ASCII letters, digits and _, bit c&63 of word c>>6.
var wordBytes = [4]uint64{0x03ff000000000000, 0x07fffffe87fffffe}

// segWords appends to hs the hashes of the words of the plain ASCII seg,
// lowered.
func (s *pipelineState) segWords(hs []uint64, seg []byte) []uint64 {
	s.scan.Reset(seg)
	s.spans = s.scan.Spans(s.spans[:0])
	hs, s.tok = simhash.AppendHash64Lower(hs, seg, s.spans, s.tok)
	return hs
}

// bigram turns CJK characters into overlapping bigrams: each character
// adjacent to the previous one makes a token of the two.
func (s *pipelineState) bigram(t analysis.Token) {
	if s.cjkRun > 0 && t.Start == s.cjkEnd {
		s.token(s.text[s.cjkStart:t.End])
		s.cjkRun++
	} else {
		s.flushCJK()
		s.cjkRun = 1
	}
	s.cjkStart, s.cjkEnd = t.Start, t.End
}

// flushCJK ends a run of CJK characters: a run of one character is a token
// by itself.
func (s *pipelineState) flushCJK() {
	if s.cjkRun == 1 {
		s.token(s.text[s.cjkStart:s.cjkEnd])
	}
	s.cjkRun = 0
}

// token hashes one token into the window and emits the shingle it completes.
func (s *pipelineState) token(tok []byte) {
	f := s.f
	if f.bits == 64 {
		if f.p.Shingle == 1 {
			s.feature64(simhash.Hash64(tok))
			return
		}
		if h, ok := s.sh64.Push(simhash.Hash64(tok)); ok {
			s.feature64(h)
		}
		return
	}
	var key uint64
	if s.idf != nil {
		key, _ = s.sh64.Push(simhash.Hash64(tok))
	}
	if hi, lo, ok := s.sh128.Push(simhash.Hash128(tok)); ok {
		s.feature128(hi, lo, key)
	}
}

// finish emits the one feature of a text shorter than a shingle.
func (s *pipelineState) finish() {
	if s.f.bits == 64 {
		if h, ok := s.sh64.Partial(); ok {
			s.feature64(h)
		}
		return
	}
	key, _ := s.sh64.Partial()
	if hi, lo, ok := s.sh128.Partial(); ok {
		s.feature128(hi, lo, key)
	}
}

// feature64 adds the feature with 64-bit hash h.
func (s *pipelineState) feature64(h uint64) {
	if s.f.stream {
		s.acc64.Add(h)
		return
	}
	if s.f.count64 {
		s.count64.Add(h)
		return
	}
	s.counter.Add(0, h, h)
}

// feature128 adds the feature with 128-bit hash (hi, lo) and IDF key key.
func (s *pipelineState) feature128(hi, lo, key uint64) {
	if s.f.stream {
		s.acc128.Add(hi, lo)
		return
	}
	s.counter.Add(hi, lo, key)
}

// charGrams emits the character n-grams of s.text as features.
func (s *pipelineState) charGrams() {
	w := s.f.p.Shingle
	text := s.text
	// starts holds the byte offsets of the last w characters, as a ring.
	var starts [MaxShingle]int
	n := 0
	for i := 0; i < len(text); {
		_, size := utf8.DecodeRune(text[i:])
		starts[n%w] = i
		n++
		i += size
		if n >= w {
			s.charFeature(text[starts[(n-w)%w]:i])
		}
	}
	if n > 0 && n < w {
		s.charFeature(text)
	}
}

func (s *pipelineState) charFeature(gram []byte) {
	if s.f.bits == 64 {
		s.feature64(simhash.Hash64(gram))
		return
	}
	var key uint64
	if s.idf != nil {
		key = simhash.Hash64(gram)
	}
	hi, lo := simhash.Hash128(gram)
	s.feature128(hi, lo, key)
}

// sum weighs the collected terms (unless streamed) and returns the
// fingerprint.
func (s *pipelineState) sum() Fingerprint {
	f := s.f
	if f.stream {
		if f.bits == 64 {
			return FromUint64(s.acc64.Sum())
		}
		return FromUint128(s.acc128.Sum())
	}
	if s.fused {
		return s.sumCounts64()
	}
	terms := s.counter.Terms()
	if f.p.Weighting != weight.TFIDF && f.p.TopN == 0 {
		return s.sumByCount(terms)
	}
	f.p.Weighting.Apply(terms, s.idf)
	terms = weight.Top(terms, f.p.TopN)
	if f.bits == 64 {
		s.w64.Reset()
		for _, t := range terms {
			s.w64.Add(t.Lo, t.Weight)
		}
		return FromUint64(s.w64.Sum())
	}
	s.w128.Reset()
	for _, t := range terms {
		s.w128.Add(t.Hi, t.Lo, t.Weight)
	}
	return FromUint128(s.w128.Sum())
}

// sumByCount sums terms whose weight depends on their count only (tf,
// log-tf, binary): features seen c times (c <= maxGroup) are counted
// together in byte lanes and added with one weight per group, so the float
// work is per group, not per feature.
func (s *pipelineState) sumByCount(terms []weight.Term) Fingerprint {
	f := s.f
	var used uint64 // bit c: group c has features
	if f.bits == 64 {
		s.w64.Reset()
		for _, t := range terms {
			used = s.group64(used, t.Lo, int(t.Count))
		}
		return s.groupSum64(used)
	}
	s.w128.Reset()
	for _, t := range terms {
		c := int(t.Count)
		if c > maxGroup {
			s.w128.Add(t.Hi, t.Lo, f.p.Weighting.Weight(c, 1))
			continue
		}
		if used>>c&1 == 0 {
			used |= 1 << c
			s.byCount128[c].Reset()
		}
		s.byCount128[c].Add(t.Hi, t.Lo)
	}
	for ; used != 0; used &= used - 1 {
		c := bits.TrailingZeros64(used)
		s.w128.AddUnits(&s.byCount128[c], f.groupW[c])
	}
	return FromUint128(s.w128.Sum())
}

// sumCounts64 is sumByCount for the features counted in s.count64.
func (s *pipelineState) sumCounts64() Fingerprint {
	var used uint64
	s.w64.Reset()
	for i := range s.count64.Len() {
		c := s.count64.At(i)
		used = s.group64(used, c.Hash, int(c.N))
	}
	return s.groupSum64(used)
}

// group64 adds the feature h seen c times to its group (see sumByCount), or
// to s.w64 if c > maxGroup, and returns used with bit c set.
func (s *pipelineState) group64(used, h uint64, c int) uint64 {
	if c > maxGroup {
		s.w64.Add(h, s.f.p.Weighting.Weight(c, 1))
		return used
	}
	if used>>c&1 == 0 {
		used |= 1 << c
		s.byCount64[c].Reset()
	}
	s.byCount64[c].Add(h)
	return used
}

// groupSum64 adds the groups of used to s.w64 and returns the fingerprint.
func (s *pipelineState) groupSum64(used uint64) Fingerprint {
	for ; used != 0; used &= used - 1 {
		c := bits.TrailingZeros64(used)
		s.w64.AddUnits(&s.byCount64[c], s.f.groupW[c])
	}
	return FromUint64(s.w64.Sum())
}

// Features extracts the feature hashes of a Pipeline: the keys an IDF table
// for that pipeline is built from (see weight.Builder and `neardup idf
// build`). It is safe for concurrent use.
type Features struct {
	f *pipelineFP
}

// NewFeatures returns the feature extractor of p, or an error wrapping
// ErrPipeline for a bad p.
func NewFeatures(p Pipeline) (*Features, error) {
	q := p
	q.Weighting = weight.Binary // collect features instead of streaming them
	q.TopN = 0
	fp, err := NewPipeline(q, 64)
	if err != nil {
		return nil, err
	}
	return &Features{f: fp.(*pipelineFP)}, nil
}

// Keys appends to dst the 64-bit hash of every distinct feature of text,
// in order of first occurrence, and returns the extended slice. These are the keys of
// weight.IDF for the pipeline, whatever the fingerprint width.
func (x *Features) Keys(dst []uint64, text []byte) []uint64 {
	s := x.f.start(text)
	if s.fused {
		for i := range s.count64.Len() {
			dst = append(dst, s.count64.At(i).Hash)
		}
	}
	for _, t := range s.counter.Terms() {
		dst = append(dst, t.Key)
	}
	x.f.finish(s)
	return dst
}

// hasUpper reports whether the ASCII token b has an upper-case letter.
func hasUpper(b []byte) bool {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

// lowerASCII appends the ASCII token b in lower case to dst.
func lowerASCII(dst, b []byte) []byte {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
