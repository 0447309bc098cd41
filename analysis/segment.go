package analysis

import (
	"fmt"
	"sync"

	"github.com/go-ego/gse"
)

// Segmenter is a Tokenizer that splits runs of CJK characters into words
// with the gse dictionary segmenter (its embedded Chinese dictionary, DAG
// with HMM for unknown words); other text is tokenized as Words does. The
// dictionary (tens of megabytes in memory) is loaded on first use, so a
// program that never segments pays nothing. The zero value is ready to use;
// a Segmenter is safe for concurrent use and must not be copied after first
// use. Unlike Words it allocates: gse returns its words as strings.
type Segmenter struct {
	once sync.Once
	seg  gse.Segmenter
	err  error
}

// Load loads the dictionary now, if it is not loaded yet, and returns the
// error of loading it. Tokenize calls it; calling it first moves the cost
// (about a second) out of the first document.
func (s *Segmenter) Load() error {
	s.once.Do(func() {
		s.seg.SkipLog = true
		if err := s.seg.LoadDictEmbed("zh_s"); err != nil {
			s.err = fmt.Errorf("analysis: loading the gse dictionary: %w", err)
		}
	})
	return s.err
}

// Tokenize implements Tokenizer. Each maximal run of adjacent CJK
// characters is segmented into words (Token.CJK set). If the dictionary
// cannot be loaded, each CJK character is its own token, as with Words.
func (s *Segmenter) Tokenize(text []byte, emit func(Token)) {
	loaded := s.Load() == nil
	runStart, runEnd := -1, -1
	flush := func() {
		if runStart < 0 {
			return
		}
		s.cut(text, runStart, runEnd, loaded, emit)
		runStart, runEnd = -1, -1
	}
	Words{}.Tokenize(text, func(t Token) {
		if t.CJK {
			if t.Start != runEnd {
				flush()
				runStart = t.Start
			}
			runEnd = t.End
			return
		}
		flush()
		emit(t)
	})
	flush()
}

// cut emits the words of the CJK run text[start:end].
func (s *Segmenter) cut(text []byte, start, end int, loaded bool, emit func(Token)) {
	run := text[start:end]
	if loaded {
		words := s.seg.Cut(string(run), true)
		// gse's words concatenate to its input; check before trusting the
		// offsets.
		n := 0
		for _, w := range words {
			n += len(w)
		}
		if n == len(run) {
			pos := start
			for _, w := range words {
				emit(Token{Text: text[pos : pos+len(w)], Start: pos, End: pos + len(w), CJK: true})
				pos += len(w)
			}
			return
		}
	}
	Words{}.Tokenize(run, func(t Token) {
		emit(Token{Text: t.Text, Start: start + t.Start, End: start + t.End, CJK: true})
	})
}
