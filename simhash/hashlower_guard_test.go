//go:build linux

package simhash

import (
	"testing"

	"github.com/neardup/neardup/internal/guardpage"
)

// TestAppendHash64LowerGuardPage hashes every token of 0 to 20 bytes of
// texts of every length 0..100 that end right before a page that cannot
// be read: a hash that loads a byte past the end of its text crashes the
// test instead of passing it.
func TestAppendHash64LowerGuardPage(t *testing.T) {
	page := guardpage.New(t)
	for i := range page {
		page[i] = "The Cat sat, on 42 mats. "[i%25]
	}
	for n := 0; n <= 100; n++ {
		text := page[len(page)-n:]
		var spans []uint32
		for s := range n + 1 {
			for l := range min(21, n-s+1) {
				spans = append(spans, uint32(s), uint32(s+l))
			}
		}
		got, _ := AppendHash64Lower(nil, text, spans, nil)
		for k := range len(spans) / 2 {
			if want := Hash64(lowerASCII(text[spans[2*k]:spans[2*k+1]])); got[k] != want {
				t.Fatalf("token %d of a %d-byte text: %#x, want %#x", k, n, got[k], want)
			}
		}
	}
}
