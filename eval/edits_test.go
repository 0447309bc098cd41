package eval

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup/analysis"
)

const english = "The quick brown fox jumps over the lazy dog near the river bank while the farmer watches from his old wooden porch and drinks a cup of tea."
const chinese = "初，郑武公娶于申，曰武姜，生庄公及共叔段。庄公寤生，惊姜氏，故名曰寤生，遂恶之。爱共叔段，欲立之。"

func TestEditorDeterministic(t *testing.T) {
	for _, k := range EditKinds() {
		for _, text := range []string{english, chinese} {
			a := NewEditor(7, nil).Apply(text, Edit{k, 0.1})
			b := NewEditor(7, nil).Apply(text, Edit{k, 0.1})
			if a != b {
				t.Errorf("%s: same seed gave %q and %q", k, a, b)
			}
			if a == text && k != Case {
				t.Errorf("%s: text unchanged", k)
			}
			if !utf8.ValidString(a) {
				t.Errorf("%s: invalid UTF-8 %q", k, a)
			}
		}
	}
	if NewEditor(1, nil).Apply(english, Edit{WordSubstitute, 0.2}) == NewEditor(2, nil).Apply(english, Edit{WordSubstitute, 0.2}) {
		t.Error("different seeds gave the same substitution")
	}
}

// TestEditorAccents checks the accents edit: at rate 1 every word loses
// its accents and nothing else changes; at 0.5 half the accented words
// do; a text without accents is left as it is.
func TestEditorAccents(t *testing.T) {
	text := "Le théâtre  était fermé\nà cause de la grève, dit Zoë."
	if got, want := NewEditor(3, nil).Apply(text, Edit{Accents, 1}), "Le theatre  etait ferme\na cause de la greve, dit Zoe."; got != want {
		t.Errorf("rate 1: %q, want %q", got, want)
	}
	half := NewEditor(3, nil).Apply(text, Edit{Accents, 0.5})
	if n := strings.Count(half, "é") + strings.Count(half, "â") + strings.Count(half, "à") + strings.Count(half, "è") + strings.Count(half, "ë"); half == text || n == 0 {
		t.Errorf("rate 0.5: %q; want some accented words left and some not", half)
	}
	if got, want := NewEditor(3, nil).Apply("Ёжик и зайка за́мок, їжак, ў", Edit{Accents, 1}), "Ежик и зайка замок, їжак, ў"; got != want {
		t.Errorf("Cyrillic: %q, want %q", got, want)
	}
	if got := NewEditor(3, nil).Apply(english, Edit{Accents, 1}); got != english {
		t.Errorf("English: %q, want it unchanged", got)
	}
	if k, err := ParseEditKind("accents"); err != nil || k != Accents || slices.Contains(EditKinds(), Accents) {
		t.Errorf("ParseEditKind(accents) = %q, %v; want it parsed but not a default kind", k, err)
	}
}

// TestEditorFurniture checks the furniture edit: the page holds the text,
// word for word, in its article, and about rate times its length of site
// furniture in its nav, aside and footer, which MainText drops and
// StripHTML keeps.
func TestEditorFurniture(t *testing.T) {
	page := NewEditor(4, nil).Apply(english, Edit{Furniture, 1})
	words := func(b []byte) string { return strings.Join(strings.Fields(string(b)), " ") }
	if got := words(analysis.MainText(nil, []byte(page))); got != english {
		t.Errorf("main text of the page: %q, want the text", got)
	}
	all := words(analysis.StripHTML(nil, []byte(page)))
	if extra := len(all) - len(english); extra < len(english)*9/10 {
		t.Errorf("the page's furniture: %d bytes, want about the text's %d: %q", extra, len(english), all)
	}
	if k, err := ParseEditKind("furniture"); err != nil || k != Furniture || slices.Contains(EditKinds(), Furniture) {
		t.Errorf("ParseEditKind(furniture) = %q, %v; want it parsed but not a default kind", k, err)
	}
}

func TestEditorRates(t *testing.T) {
	words := len(strings.Fields(english)) // 28
	for _, tc := range []struct {
		kind EditKind
		rate float64
		want int // words after the edit
	}{
		{WordDelete, 0.1, words - 3},
		{WordInsert, 0.1, words + 3},
		{WordSubstitute, 0.5, words},
		{WordDelete, 0.0001, words - 1}, // at least one edit
	} {
		got := len(strings.Fields(NewEditor(3, nil).Apply(english, Edit{tc.kind, tc.rate})))
		if got != tc.want {
			t.Errorf("%s at %v: %d words, want %d", tc.kind, tc.rate, got, tc.want)
		}
	}
	// Character edits count in words too: one per ten words at rate 0.1.
	if got := utf8.RuneCountInString(NewEditor(3, nil).Apply(english, Edit{CharDelete, 0.1})); got != utf8.RuneCountInString(english)-3 {
		t.Errorf("char-delete at 0.1 of %d words left %d of %d runes", words, got, utf8.RuneCountInString(english))
	}
	runes := utf8.RuneCountInString(chinese)
	if got := utf8.RuneCountInString(NewEditor(3, nil).Apply(chinese, Edit{CharDelete, 0.1})); got != runes-5 {
		t.Errorf("char-delete 10%% of %d runes left %d", runes, got)
	}
	// Word edits on Chinese work on characters and keep the text unspaced.
	if got := NewEditor(3, nil).Apply(chinese, Edit{WordSwap, 0.1}); strings.Contains(got, " ") {
		t.Errorf("word-swap put spaces into Chinese: %q", got)
	}
	// Boilerplate adds about rate times the length, at both ends.
	out := NewEditor(3, nil).Apply(english, Edit{Boilerplate, 1})
	if !strings.Contains(out, english) || utf8.RuneCountInString(out) < 2*utf8.RuneCountInString(english) {
		t.Errorf("boilerplate at rate 1 gave %d chars for %d", len(out), len(english))
	}
	if out := NewEditor(3, nil).Apply(english, Edit{HTML, 0.1}); !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.Contains(out, "<p>") {
		t.Errorf("html edit gave %q", out)
	}
}

func TestIsCJK(t *testing.T) {
	for text, want := range map[string]bool{english: false, chinese: true, "hello 世界": false, "中文 text 很多字": true, "123": false} {
		if got := IsCJK(text); got != want {
			t.Errorf("IsCJK(%q) = %v", text, got)
		}
	}
}

func TestMakeEdits(t *testing.T) {
	texts := []string{english, "A completely different sentence about databases and indexes.", "Third text, about cats."}
	o := EditOptions{Kinds: []EditKind{WordDelete, Case}, Rates: []float64{0.05, 0.1}, Negatives: 2, Seed: 9}
	d := MakeEdits("t", texts, o)
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	pos, neg := 0, 0
	for _, p := range d.Pairs {
		if p.Positive {
			pos++
			if len(p.Tags) != 2 || p.A >= len(texts) || p.B < len(texts) {
				t.Errorf("bad positive %+v", p)
			}
		} else {
			neg++
			if p.A == p.B || p.B >= len(texts) {
				t.Errorf("bad negative %+v", p)
			}
		}
	}
	if pos != 3*2*2 || neg != 3*2 {
		t.Errorf("%d positives and %d negatives, want 12 and 6", pos, neg)
	}
	if d2 := MakeEdits("t", texts, o); !slices.Equal(d.Texts, d2.Texts) {
		t.Error("MakeEdits is not deterministic")
	}
}

func TestVocabulary(t *testing.T) {
	v := Vocabulary([]string{"a b, a c.", "中文"}, 10)
	if !slices.Equal(v, []string{"a", "b", "c", "中", "文"}) {
		t.Errorf("Vocabulary = %q", v)
	}
	if v := Vocabulary([]string{"a b c d"}, 2); len(v) != 2 {
		t.Errorf("Vocabulary max 2 = %q", v)
	}
}

func FuzzEditor(f *testing.F) {
	f.Add(english, uint8(0), 0.1)
	f.Add(chinese, uint8(4), 0.5)
	f.Add("", uint8(9), 1.0)
	f.Fuzz(func(t *testing.T, text string, kind uint8, rate float64) {
		if rate != rate || rate < 0 || rate > 1 {
			return
		}
		k := EditKinds()[int(kind)%len(EditKinds())]
		out := NewEditor(1, nil).Apply(text, Edit{k, rate})
		if utf8.ValidString(text) && !utf8.ValidString(out) {
			t.Errorf("%s made invalid UTF-8 from valid %q", k, text)
		}
	})
}

// Format edits of CJK text keep its line breaks and touch only the picked
// characters.
func TestEditorCJKKeepsLines(t *testing.T) {
	text := "床前明月光，\n疑是地上霜。\n举头望明月，\n低头思故乡。"
	for _, k := range []EditKind{Case, Punctuation, HTML} {
		out := NewEditor(2, nil).Apply(text, Edit{k, 0.1})
		if k != HTML && strings.Count(out, "\n") != 3 {
			t.Errorf("%s lost line breaks: %q", k, out)
		}
	}
	if out := NewEditor(2, nil).Apply(text, Edit{Case, 0.5}); out != text {
		t.Errorf("case change altered Chinese: %q", out)
	}
}

// TestNegativesPerText checks that NegativesPerText is the number of
// negatives MakeEdits makes: 10 for 0, at most the other texts.
func TestNegativesPerText(t *testing.T) {
	for _, tc := range []struct{ negs, texts, want int }{{0, 12, 10}, {3, 12, 3}, {0, 3, 2}, {5, 1, 0}, {0, 0, 0}} {
		o := EditOptions{Kinds: []EditKind{WordDelete}, Rates: []float64{0.1}, Negatives: tc.negs, Seed: 1}
		if got := o.NegativesPerText(tc.texts); got != tc.want {
			t.Errorf("%d negatives of %d texts: NegativesPerText %d, want %d", tc.negs, tc.texts, got, tc.want)
		}
		d := MakeEdits("x", generated(tc.texts, 5), o)
		if got := len(d.Pairs) - tc.texts; got != tc.texts*tc.want {
			t.Errorf("%d negatives of %d texts: MakeEdits made %d, want %d", tc.negs, tc.texts, got, tc.texts*tc.want)
		}
	}
}

// TestEditorSentences checks the sentences edit: the same sentences in
// another order, at least one moved, in English and Chinese, and a text of
// one sentence left as it is.
func TestEditorSentences(t *testing.T) {
	ed := NewEditor(5, nil)
	for _, c := range []struct {
		text string
		want []string // the sentences, in any order
	}{
		{"The river rose at dawn. Boats were tied up! Was the bridge safe? Nobody knew, at 3.14 pm.",
			[]string{"The river rose at dawn.", "Boats were tied up!", "Was the bridge safe?", "Nobody knew, at 3.14 pm."}},
		{"今天下雨了。我们没有出门！明天会晴吗？", []string{"今天下雨了。", "我们没有出门！", "明天会晴吗？"}},
	} {
		for _, rate := range []float64{0.01, 0.5, 1} {
			got := ed.Apply(c.text, Edit{Kind: Sentences, Rate: rate})
			if got == c.text {
				t.Errorf("rate %v: %q unchanged", rate, got)
			}
			rest := got
			for _, s := range c.want {
				if !strings.Contains(rest, s) {
					t.Errorf("rate %v: %q lost the sentence %q", rate, got, s)
				}
				rest = strings.Replace(rest, s, "", 1)
			}
			if strings.TrimSpace(rest) != "" {
				t.Errorf("rate %v: %q holds %q besides the sentences", rate, got, rest)
			}
		}
	}
	if got := ed.Apply("One sentence only, with no end", Edit{Kind: Sentences, Rate: 1}); got != "One sentence only, with no end" {
		t.Errorf("a text of one sentence became %q", got)
	}
	if k, err := ParseEditKind("sentences"); err != nil || k != Sentences {
		t.Errorf("ParseEditKind(sentences) = %q, %v", k, err)
	}
}
