package analysis

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPlainASCII compares the word-at-a-time test with a byte loop on every
// byte value at every position of a 20-byte text.
func TestPlainASCII(t *testing.T) {
	slow := func(b []byte) bool {
		for _, c := range b {
			if !plainByte[c] {
				return false
			}
		}
		return true
	}
	b := []byte("plain text, 20 bytes")
	for i := range b {
		for c := range 256 {
			saved := b[i]
			b[i] = byte(c)
			if PlainASCII(b) != slow(b) {
				t.Fatalf("PlainASCII(%q) = %v", b, !slow(b))
			}
			b[i] = saved
		}
	}
}

// cjkPieces are the pieces of the random texts of the CJK tests: ASCII
// words and the marks that join them, the characters FoldCJK takes (each
// kind of punctuation, full-width letters, digits and marks, the
// ideographic space, ideographs at both ends of their range), and some it
// refuses (Kana, Hangul, accents, the quotes ‘ and ’ that join words, controls,
// invalid and truncated UTF-8).
var cjkPieces = []string{"the", "Don't", "3.14", "1,000", "e.g.", "_", "__x", "a_b", "x-ray", "12:30", "ABC", " ", "\t", "\n",
	".", ",", "'", ":", ";", "-", "中", "文", "一", "\u9fff", "\u4e00", "我们", "、", "。", "《", "》", "〈", "〉", "「", "」",
	"【", "】", "—", "“", "”", "，", "；", "：", "！", "？", "（", "）", "．", "＇", "Ａ", "ｚ", "１", "０", "＿", "\u3000",
	"\uff5e", "\uff01", "あ", "カ", "ー", "한", "é", "’", "‘", "\x01", "\x7f", "\xff", "\xe4\xb8", "\u3003", "\u2015", "\u4dff"}

// randomCJK returns a random text of up to n pieces.
func randomCJK(rng *rand.Rand, n int) []byte {
	var b []byte
	for range rng.IntN(n + 1) {
		b = append(b, cjkPieces[rng.IntN(len(cjkPieces))]...)
	}
	return b
}

// TestFoldCJK checks FoldCJK's promise against Normalize and Words on
// random texts: when it takes a text, the tokens CJKSpans finds in its
// output, lowered, are the tokens of the normalized text; and it takes
// exactly the texts made of the characters it lists.
func TestFoldCJK(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	taken := 0
	var spans []uint32
	for k := range 20000 {
		src := randomCJK(rng, 1+k%40)
		out, ok := FoldCJK([]byte("keep"), src)
		if !bytes.HasPrefix(out, []byte("keep")) {
			t.Fatalf("%q: FoldCJK lost dst", src)
		}
		if ok != foldable(src) {
			t.Fatalf("%q: FoldCJK ok = %v", src, ok)
		}
		if !ok {
			continue
		}
		taken++
		var want []string
		Words{}.Tokenize(Normalize(nil, src), func(tok Token) { want = append(want, string(tok.Text)) })
		var got []string
		spans = CJKSpans(spans[:0], out[4:])
		for j := 0; j < len(spans); j += 2 {
			got = append(got, string(bytes.ToLower(out[4+spans[j]:4+spans[j+1]])))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: CJKSpans of FoldCJK %q, Words of Normalize %q", src, got, want)
		}
	}
	if taken < 2000 {
		t.Fatalf("only %d texts taken", taken)
	}
}

// foldable is the character list of FoldCJK, rune by rune.
func foldable(b []byte) bool {
	for _, r := range string(b) {
		switch {
		case r < 0x80 && plainByte[r], r >= 0x4e00 && r <= 0x9fff, r == 0x3000, r == 0x3001, r == 0x3002,
			r >= 0x3008 && r <= 0x3011, r == 0x2014, r == 0x201c, r == 0x201d, r >= 0xff01 && r <= 0xff5e:
		default:
			return false
		}
	}
	return true
}

// FuzzFoldCJK checks FoldCJK and CJKSpans on any bytes: no panic, and
// when FoldCJK takes the text, the tokens of Words in its normalized form.
func FuzzFoldCJK(f *testing.F) {
	for _, s := range []string{"", "中文，ＡＢＣ", "don't。3.14", "\u3000x\u3000", "\xe4\xb8"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out, ok := FoldCJK(nil, src)
		spans := CJKSpans(nil, out)
		if ok != foldable(src) {
			t.Fatalf("%q: FoldCJK ok = %v", src, ok)
		}
		if !ok {
			return
		}
		var want []string
		Words{}.Tokenize(Normalize(nil, src), func(tok Token) { want = append(want, string(tok.Text)) })
		var got []string
		for j := 0; j < len(spans); j += 2 {
			got = append(got, string(bytes.ToLower(out[spans[j]:spans[j+1]])))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: CJKSpans of FoldCJK %q, Words of Normalize %q", src, got, want)
		}
	})
}
