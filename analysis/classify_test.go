package analysis

import (
	"math/rand/v2"
	"testing"
)

// TestClassify64 checks classify64AVX512 against classify64Go on blocks of
// every length 0..70 of random bytes, of bytes drawn from the ones whose
// class changes nearby (the bounds of letters, digits, white space and
// controls, 0x7f, 0x80 and above), and of ASCII text: the same word bits,
// the same space bits for the bytes read, and bad set exactly when it is
// set there.
func TestClassify64(t *testing.T) {
	if !useAVX512 {
		t.Skip("no AVX-512 here: reset runs classify64Go")
	}
	edges := []byte{0, 8, 9, 13, 14, 0x1f, 0x20, 0x21, '/', '0', '9', ':', '@', 'A', 'Z', '[',
		'^', '_', '`', 'a', 'z', '{', 0x7e, 0x7f, 0x80, 0x9f, 0xc3, 0xdf, 0xe0, 0xff}
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 128)
	for round := range 3000 {
		for i := range buf {
			switch round % 3 {
			case 0:
				buf[i] = byte(r.UintN(256))
			case 1:
				buf[i] = edges[r.IntN(len(edges))]
			default:
				buf[i] = " etaoinshrdlu.,'-_0123456789\n"[r.IntN(29)]
			}
		}
		for n := 0; n <= 70; n++ {
			text := buf[r.IntN(8):][:n] // not always aligned
			wm, ws, wb := classify64Go(text)
			m, s, b := classify64AVX512(&text[:1][0], len(text))
			read := ^uint64(0)
			if n < 64 {
				read = 1<<n - 1
			}
			if m != wm || s&read != ws&read || (b != 0) != (wb != 0) {
				t.Fatalf("%q: word %064b, space %064b, bad %t; want %064b, %064b, %t", text, m, s&read, b != 0, wm, ws&read, wb != 0)
			}
		}
	}
}
