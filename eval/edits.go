package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// An EditKind is one way of making a near-duplicate of a text.
type EditKind string

// The edit kinds. Word edits work on whitespace-separated words, or on
// characters for text written without spaces (Chinese, Japanese). For every
// kind the rate is the fraction of words (CJK: characters) touched, at least
// one: a character edit at rate 0.1 makes one character edit per ten words,
// so rates compare across kinds and scripts.
const (
	WordDelete     EditKind = "word-delete"
	WordInsert     EditKind = "word-insert"
	WordSubstitute EditKind = "word-substitute"
	WordSwap       EditKind = "word-swap" // adjacent words exchanged
	CharDelete     EditKind = "char-delete"
	CharInsert     EditKind = "char-insert"
	CharSubstitute EditKind = "char-substitute"
	CharSwap       EditKind = "char-swap"
	// Boilerplate adds a header and a footer of site furniture whose length
	// is rate times the text's.
	Boilerplate EditKind = "boilerplate"
	// Whitespace changes the spacing around a fraction of words: doubled
	// spaces, tabs, line breaks (and spaces between CJK characters).
	Whitespace EditKind = "whitespace"
	// Case changes the case of a fraction of words.
	Case EditKind = "case"
	// Punctuation drops or adds punctuation after a fraction of words.
	Punctuation EditKind = "punctuation"
	// HTML wraps the text in a page, paragraphs in <p>, and a fraction of
	// words in inline tags.
	HTML EditKind = "html"
	// Accents takes the accents off a fraction rate of the words that have
	// any (the nonspacing marks of their canonical decomposition; in
	// Cyrillic, the diaeresis of ё and stress marks alone), as a copy
	// typed without them or converted to plain letters loses them;
	// at rate 1 it takes them all off, and a text without accents is left
	// as it is. It is not among EditKinds, whose edits change every text.
	Accents EditKind = "accents"
	// Furniture wraps the text in a page whose nav, header, aside and
	// footer elements hold site furniture as Boilerplate adds it, rate
	// times the text's length: what Pipeline.MainText drops. It is not
	// among EditKinds.
	Furniture EditKind = "furniture"
	// Sentences moves the given fraction of the text's sentences (at
	// least one, in a text of two or more) each to another place: a
	// reposted text whose paragraphs or sentences come in another order.
	// It is not among EditKinds.
	Sentences EditKind = "sentences"
)

// EditKinds returns every edit kind in a fixed order.
func EditKinds() []EditKind {
	return []EditKind{WordDelete, WordInsert, WordSubstitute, WordSwap,
		CharDelete, CharInsert, CharSubstitute, CharSwap,
		Boilerplate, Whitespace, Case, Punctuation, HTML}
}

// ParseEditKind returns the kind named s: one of EditKinds, Accents or
// Furniture.
func ParseEditKind(s string) (EditKind, error) {
	k := EditKind(strings.TrimSpace(s))
	if !slices.Contains(EditKinds(), k) && k != Accents && k != Furniture && k != Sentences {
		return "", fmt.Errorf("eval: unknown edit kind %q", s)
	}
	return k, nil
}

// An Edit is an edit kind applied at a rate in (0, 1].
type Edit struct {
	Kind EditKind
	Rate float64
}

// An Editor makes near-duplicates. Its output depends only on the seed, the
// vocabulary and the sequence of calls, so a run can be reproduced exactly.
// An Editor is not safe for concurrent use.
type Editor struct {
	rng   *rand.Rand
	vocab []string
	runes []rune
}

// NewEditor returns an Editor seeded with seed that draws inserted and
// substituted words from vocab (and characters from its words). An empty
// vocab falls back to a small built-in English and Chinese list.
func NewEditor(seed uint64, vocab []string) *Editor {
	if len(vocab) == 0 {
		vocab = strings.Fields("the of and to in is was for that with on as by at from 的 是 在 有 和 了 不 人 一 这")
	}
	var runes []rune
	for _, w := range vocab {
		for _, r := range w {
			if unicode.IsLetter(r) {
				runes = append(runes, r)
			}
		}
	}
	if len(runes) == 0 {
		runes = []rune("etaoinshrdlu")
	}
	return &Editor{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), vocab: vocab, runes: runes}
}

// Vocabulary returns up to max distinct words of texts (characters for CJK
// text), in order of first use: the material an Editor inserts.
func Vocabulary(texts []string, max int) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range texts {
		for _, w := range units(t) {
			w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
			if w == "" || seen[w] {
				continue
			}
			seen[w] = true
			out = append(out, w)
			if len(out) >= max {
				return out
			}
		}
	}
	return out
}

// IsCJK reports whether most letters of text are Han, Hiragana, Katakana or
// Hangul: text that is written without spaces between words.
func IsCJK(text string) bool {
	var cjk, letters int
	for _, r := range text {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		if isCJKRune(r) {
			cjk++
		}
	}
	return letters > 0 && cjk*2 > letters
}

func isCJKRune(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// units splits text into the units word edits work on: whitespace-separated
// words, or single characters (spaces dropped) for CJK text.
func units(text string) []string {
	if !IsCJK(text) {
		return strings.Fields(text)
	}
	var out []string
	for _, r := range text {
		if !unicode.IsSpace(r) {
			out = append(out, string(r))
		}
	}
	return out
}

// count returns how many of n units an edit at rate touches: at least one.
func count(n int, rate float64) int {
	c := int(math.Round(rate * float64(n)))
	return max(1, min(c, n))
}

// Apply returns text changed by e.
func (ed *Editor) Apply(text string, e Edit) string {
	cjk := IsCJK(text)
	join := func(ws []string) string {
		if cjk {
			return strings.Join(ws, "")
		}
		return strings.Join(ws, " ")
	}
	switch e.Kind {
	case WordDelete, WordInsert, WordSubstitute, WordSwap:
		ws := units(text)
		if len(ws) == 0 {
			return text
		}
		return join(editSeq(ed, ws, e.Kind, count(len(ws), e.Rate), ed.word))
	case CharDelete, CharInsert, CharSubstitute, CharSwap:
		rs := []rune(text)
		if len(rs) == 0 {
			return text
		}
		return string(editSeq(ed, rs, e.Kind, count(len(units(text)), e.Rate), ed.char))
	case Boilerplate:
		return ed.boilerplate(text, e.Rate, cjk)
	case Whitespace:
		return ed.perUnit(text, e.Rate, cjk, func(w string) string {
			switch ed.rng.IntN(4) {
			case 0:
				return w + "  "
			case 1:
				return w + "\t"
			case 2:
				return w + "\n"
			}
			return w + " \n "
		})
	case Case:
		return ed.perUnit(text, e.Rate, cjk, func(w string) string {
			switch ed.rng.IntN(3) {
			case 0:
				return strings.ToUpper(w)
			case 1:
				return strings.ToLower(w)
			}
			r, size := utf8.DecodeRuneInString(w)
			return string(unicode.ToUpper(r)) + strings.ToLower(w[size:])
		})
	case Punctuation:
		marks := []string{",", ".", ";", "!", "?", ":", "-"}
		if cjk {
			marks = []string{"，", "。", "、", "！", "？", "：", "；"}
		}
		return ed.perUnit(text, e.Rate, cjk, func(w string) string {
			trimmed := strings.TrimRightFunc(w, unicode.IsPunct)
			if trimmed != w {
				return trimmed
			}
			return w + marks[ed.rng.IntN(len(marks))]
		})
	case HTML:
		return ed.html(text, e.Rate, cjk)
	case Accents:
		return ed.accents(text, e.Rate)
	case Furniture:
		return ed.furniture(text, e.Rate, cjk)
	case Sentences:
		return ed.sentences(text, e.Rate)
	}
	panic(fmt.Sprintf("eval: unknown edit kind %q", e.Kind))
}

// sentences moves a fraction rate of the sentences of text (at least one)
// each to another place. A sentence ends after '.', '!' or '?' and the
// spaces after them, or after '。', '！' or '？'; a text of one sentence
// is returned as it is.
func (ed *Editor) sentences(text string, rate float64) string {
	var ss []string
	start := 0
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '。', '！', '？':
		case '.', '!', '?':
			if i+1 < len(rs) && !unicode.IsSpace(rs[i+1]) {
				continue // 3.14, e.g.
			}
		default:
			continue
		}
		j := i + 1
		for j < len(rs) && unicode.IsSpace(rs[j]) {
			j++
		}
		ss = append(ss, string(rs[start:j]))
		start, i = j, j-1
	}
	if start < len(rs) {
		ss = append(ss, string(rs[start:]))
	}
	if len(ss) < 2 {
		return text
	}
	orig := slices.Clone(ss)
	move := func() {
		i := ed.rng.IntN(len(ss))
		s := ss[i]
		ss = slices.Delete(ss, i, i+1)
		j := ed.rng.IntN(len(ss))
		if j >= i {
			j++ // another place than its own
		}
		ss = slices.Insert(ss, j, s)
	}
	for range max(1, int(math.Round(rate*float64(len(ss))))) {
		move()
	}
	if slices.Equal(ss, orig) {
		move() // a second move undid the first: the copy must differ
	}
	// Each sentence ends as it ended; one that had no space after it
	// (the last) gets one where another follows, unless it is CJK.
	for i, s := range ss[:len(ss)-1] {
		if r, _ := utf8.DecodeLastRuneInString(s); !unicode.IsSpace(r) && r != '。' && r != '！' && r != '？' {
			ss[i] = s + " "
		}
	}
	return strings.TrimRightFunc(strings.Join(ss, ""), unicode.IsSpace)
}

// editSeq deletes, inserts, substitutes (with fresh()) or swaps adjacent
// elements of s at n random places.
func editSeq[T any](ed *Editor, s []T, kind EditKind, n int, fresh func() T) []T {
	for range n {
		i := ed.rng.IntN(len(s))
		switch kind {
		case WordDelete, CharDelete:
			if len(s) > 1 {
				s = slices.Delete(s, i, i+1)
			}
		case WordInsert, CharInsert:
			s = slices.Insert(s, i, fresh())
		case WordSubstitute, CharSubstitute:
			s[i] = fresh()
		case WordSwap, CharSwap:
			if len(s) > 1 {
				j := i + 1
				if j == len(s) {
					j = i - 1
				}
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

func (ed *Editor) word() string { return ed.vocab[ed.rng.IntN(len(ed.vocab))] }
func (ed *Editor) char() rune   { return ed.runes[ed.rng.IntN(len(ed.runes))] }

// perUnit rewrites a random fraction rate of the text's units with f. CJK
// text keeps all its other characters, line breaks included; other text is
// joined back with single spaces (which f may replace), the spacing that
// normalization would leave anyway.
func (ed *Editor) perUnit(text string, rate float64, cjk bool, f func(string) string) string {
	if cjk {
		rs := []rune(text)
		var at []int
		for i, r := range rs {
			if !unicode.IsSpace(r) {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			return text
		}
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = string(r)
		}
		for _, j := range ed.rng.Perm(len(at))[:count(len(at), rate)] {
			out[at[j]] = f(out[at[j]])
		}
		return strings.Join(out, "")
	}
	ws := units(text)
	if len(ws) == 0 {
		return text
	}
	for _, i := range ed.rng.Perm(len(ws))[:count(len(ws), rate)] {
		ws[i] = f(ws[i])
	}
	var b strings.Builder
	for i, w := range ws {
		if i > 0 && !strings.HasSuffix(ws[i-1], "\n") && !strings.HasSuffix(ws[i-1], "\t") && !strings.HasSuffix(ws[i-1], " ") {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

var (
	enBoiler = []string{
		"Home | News | Sports | Business | Contact us", "Sign in to comment", "Share this article on Facebook Twitter Email",
		"Copyright 2024 Example Media Group. All rights reserved.", "Privacy policy | Terms of use | Cookie settings",
		"Subscribe to our newsletter for daily updates", "Advertisement", "Related stories", "Click here to read more",
	}
	zhBoiler = []string{
		"首页 | 新闻 | 体育 | 财经 | 联系我们", "登录后发表评论", "分享到微博 微信 QQ空间", "版权所有 2024 示例传媒集团 保留所有权利",
		"隐私政策 | 使用条款 | 网站地图", "订阅我们的每日新闻", "广告", "相关阅读", "点击阅读全文",
	}
)

// accents takes the accents off a random fraction rate of the
// space-separated words of text that have any, leaving the rest of the
// text as it is.
func (ed *Editor) accents(text string, rate float64) string {
	type span struct{ start, end int }
	var marked []span
	start := -1
	for i, r := range text + " " {
		switch {
		case !unicode.IsSpace(r) && start < 0:
			start = i
		case unicode.IsSpace(r) && start >= 0:
			if w := text[start:i]; stripMarks(w) != w {
				marked = append(marked, span{start, i})
			}
			start = -1
		}
	}
	if len(marked) == 0 {
		return text
	}
	pick := ed.rng.Perm(len(marked))[:count(len(marked), rate)]
	slices.Sort(pick)
	var b strings.Builder
	last := 0
	for _, j := range pick {
		w := marked[j]
		b.WriteString(text[last:w.start])
		b.WriteString(stripMarks(text[w.start:w.end]))
		last = w.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// stripMarks returns w as a copy that lost its accents writes it: without
// the nonspacing marks of its canonical decomposition, recomposed, but
// that in Cyrillic only ё loses its diaeresis (written е, as Russian
// mostly does) and a vowel its stress mark: й, ї and ў are letters of
// their own, which no copy writes without their marks.
func stripMarks(w string) string {
	d := norm.NFD.String(w)
	var b strings.Builder
	var base rune
	for _, r := range d {
		if !unicode.Is(unicode.Mn, r) {
			base = r
			b.WriteRune(r)
			continue
		}
		if !unicode.Is(unicode.Cyrillic, base) || r == '\u0301' || r == '\u0300' || r == '\u0308' && (base == 'е' || base == 'Е') {
			continue
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

// boilerplate adds site furniture before and after text: about rate times
// its length in all, split between a header and a footer.
func (ed *Editor) boilerplate(text string, rate float64, cjk bool) string {
	head, foot := ed.furnitureLines(text, rate, cjk)
	return strings.Join(head, "\n") + "\n\n" + text + "\n\n" + strings.Join(foot, "\n")
}

// furniture wraps text in a page: the header's navigation, an aside and
// the footer hold site furniture (furnitureLines), the text is an article
// of paragraphs. The page has no title, whose words would be the copy's
// alone.
func (ed *Editor) furniture(text string, rate float64, cjk bool) string {
	head, foot := ed.furnitureLines(text, rate, cjk)
	aside := head[len(head)/2:]
	head = head[:len(head)/2]
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head>\n<body><header><nav>")
	b.WriteString(strings.Join(head, " | "))
	b.WriteString("</nav></header>\n<article>\n")
	for _, para := range strings.Split(text, "\n") {
		if strings.TrimSpace(para) != "" {
			b.WriteString("<p>" + para + "</p>\n")
		}
	}
	b.WriteString("</article>\n<aside>" + strings.Join(aside, "<br>") + "</aside>\n<footer>")
	b.WriteString(strings.Join(foot, "<br>"))
	b.WriteString("</footer></body></html>\n")
	return b.String()
}

// furnitureLines returns lines of site furniture, about rate times the
// length of text in all, for a header and a footer.
func (ed *Editor) furnitureLines(text string, rate float64, cjk bool) (head, foot []string) {
	lines := enBoiler
	if cjk {
		lines = zhBoiler
	}
	want := int(math.Ceil(rate * float64(utf8.RuneCountInString(text))))
	size := 0
	for i := 0; size < want || i == 0; i++ {
		l := lines[ed.rng.IntN(len(lines))]
		if i%2 == 0 {
			head = append(head, l)
		} else {
			foot = append(foot, l)
		}
		size += utf8.RuneCountInString(l) + 1
	}
	return head, foot
}

// html wraps text in a page: each paragraph (blank-line separated, or line
// for short text) in <p>, and a fraction rate of words in inline tags.
func (ed *Editor) html(text string, rate float64, cjk bool) string {
	tags := []string{"b", "i", "em", "strong", "span"}
	body := ed.perUnit(text, rate, cjk, func(w string) string {
		t := tags[ed.rng.IntN(len(tags))]
		if ed.rng.IntN(4) == 0 {
			return `<a href="/item/` + strconv.Itoa(ed.rng.IntN(10000)) + `">` + w + "</a>"
		}
		return "<" + t + ">" + w + "</" + t + ">"
	})
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Article</title></head>\n<body><div class=\"content\">\n")
	for _, para := range strings.Split(body, "\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		b.WriteString("<p>")
		b.WriteString(para)
		b.WriteString("</p>\n")
	}
	b.WriteString("</div></body></html>\n")
	return b.String()
}

// EditOptions configures MakeEdits.
type EditOptions struct {
	// Kinds are the edit kinds; empty means EditKinds().
	Kinds []EditKind
	// Rates are the edit rates; empty means 0.01, 0.03, 0.05, 0.1, 0.2.
	Rates []float64
	// Negatives is the number of other texts of the same source each text
	// is paired with as a negative; 0 means 10.
	Negatives int
	// Seed seeds the edits and the choice of negatives.
	Seed uint64
}

// DefaultRates are the edit rates MakeEdits uses when none are given.
func DefaultRates() []float64 { return []float64{0.01, 0.03, 0.05, 0.1, 0.2} }

// NegativesPerText returns the number of negative pairs MakeEdits makes for
// each of n texts: o.Negatives (10 when 0), but no more than the n-1 other
// texts.
func (o EditOptions) NegativesPerText(n int) int {
	negs := o.Negatives
	if negs == 0 {
		negs = 10
	}
	return max(0, min(negs, n-1))
}

// MakeEdits returns a dataset of near-duplicates made from texts: for every
// text, one edited copy per kind and rate (positives, tagged "kind" and
// "rate"), and o.Negatives pairs with other texts (negatives, untagged so
// they count in every kind and rate). Identical output for identical input
// and options.
func MakeEdits(name string, texts []string, o EditOptions) *Dataset {
	kinds, rates, negs := o.Kinds, o.Rates, o.NegativesPerText(len(texts))
	if len(kinds) == 0 {
		kinds = EditKinds()
	}
	if len(rates) == 0 {
		rates = DefaultRates()
	}
	ed := NewEditor(o.Seed, Vocabulary(texts, 20000))
	d := &Dataset{Name: name, Texts: slices.Clone(texts)}
	for i, t := range texts {
		for _, k := range kinds {
			for _, r := range rates {
				d.Texts = append(d.Texts, ed.Apply(t, Edit{k, r}))
				d.Pairs = append(d.Pairs, Pair{A: i, B: len(d.Texts) - 1, Positive: true,
					Tags: []Tag{{"kind", string(k)}, {"rate", strconv.FormatFloat(r, 'g', -1, 64)}}})
			}
		}
		for range negs {
			j := ed.rng.IntN(len(texts) - 1)
			if j >= i {
				j++
			}
			d.Pairs = append(d.Pairs, Pair{A: i, B: j})
		}
	}
	return d
}
