package analysis

import "strings"

// A TokenFilter decides which tokens go on to be features.
type TokenFilter interface {
	// Keep reports whether tok is kept.
	Keep(tok Token) bool
}

// StopWords is a TokenFilter that drops the tokens in its set. Tokens are
// compared byte for byte, so the words should be normalized (see
// Normalize). Lookups do not allocate. A StopWords is safe for concurrent
// reads; the nil *StopWords keeps everything.
type StopWords struct {
	m map[string]struct{}
}

// NewStopWords returns the set of the normalized forms of words.
func NewStopWords(words ...string) *StopWords {
	s := &StopWords{m: make(map[string]struct{}, len(words))}
	var buf []byte
	for _, w := range words {
		buf = Normalize(buf[:0], []byte(w))
		if len(buf) > 0 {
			s.m[string(buf)] = struct{}{}
		}
	}
	return s
}

// EnglishStopWords returns a new set of common English function words.
func EnglishStopWords() *StopWords {
	return NewStopWords(strings.Fields(englishStop)...)
}

// ChineseStopWords returns a new set of common Chinese function words and
// particles (single characters and short words).
func ChineseStopWords() *StopWords {
	return NewStopWords(strings.Fields(chineseStop)...)
}

// Len returns the number of words in s.
func (s *StopWords) Len() int {
	if s == nil {
		return 0
	}
	return len(s.m)
}

// Contains reports whether tok is a stop word.
func (s *StopWords) Contains(tok []byte) bool {
	if s == nil {
		return false
	}
	_, ok := s.m[string(tok)]
	return ok
}

// Keep implements TokenFilter: it keeps the tokens that are not stop words.
func (s *StopWords) Keep(tok Token) bool { return !s.Contains(tok.Text) }

const englishStop = `a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in into is it its
itself just me more most my myself no nor not now of off on once only or other our ours ourselves
out over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which while
who whom why will with would you your yours yourself yourselves`

const chineseStop = `的 了 在 是 我 有 和 就 不 人 都 一 一个 上 也 很 到 说 要 去 你 会 着 没有 看 好 自己 这
那 之 与 及 而 或 但 其 中 为 以 于 对 等 被 把 让 从 向 将 所 个 们 地 得 啊 吧 呢 吗 嗯 哦 呀 么 这个 那个
因为 所以 如果 虽然 但是 而且 并且 已经 还是 就是 可以 这样 那样 他 她 它 我们 你们 他们`

// Analyzer chains a tokenizer between character filters and token
// filters, in the manner of bleve: each CharFilter rewrites the text in
// turn, the Tokenizer splits the result, and a token is emitted if every
// TokenFilter keeps it. A nil Tokenizer means Words.
type Analyzer struct {
	CharFilters  []CharFilter
	Tokenizer    Tokenizer
	TokenFilters []TokenFilter
}

// Analyze runs the chain over text and calls emit for every kept token.
// buf is scratch space, returned (possibly grown) for reuse; the tokens are
// sub-slices of it, valid only during the call to emit.
func (a *Analyzer) Analyze(buf, text []byte, emit func(Token)) []byte {
	var other []byte
	for _, cf := range a.CharFilters {
		other = cf.Filter(other[:0], text)
		text = other
		buf, other = other, buf
	}
	tz := a.Tokenizer
	if tz == nil {
		tz = Words{}
	}
	tz.Tokenize(text, func(t Token) {
		for _, f := range a.TokenFilters {
			if !f.Keep(t) {
				return
			}
		}
		emit(t)
	})
	return buf
}
