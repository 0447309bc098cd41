//go:build linux

package analysis

import (
	"fmt"
	"testing"

	"github.com/neardup/neardup/internal/guardpage"
)

// TestClassifyGuardPage runs reset on texts of every length 0..130 that
// end right before a page that cannot be read: a classifier that loads a
// byte past the end of its text (an unmasked vector load for the last
// block, say) crashes the test instead of passing it.
func TestClassifyGuardPage(t *testing.T) {
	page := guardpage.New(t)
	ps := len(page)
	for i := range page {
		page[i] = "the cat sat. "[i%13]
	}
	var w ASCIIWords
	for n := 0; n <= 130; n++ {
		text := page[ps-n:]
		var want []string
		Words{}.Tokenize(text, func(t Token) { want = append(want, fmt.Sprint(t.Start, t.End)) })
		var got []string
		w.Reset(text)
		for s, e, ok := w.Next(); ok; s, e, ok = w.Next() {
			got = append(got, fmt.Sprint(s, e))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: ASCIIWords %v, Words %v", text, got, want)
		}
	}
}
