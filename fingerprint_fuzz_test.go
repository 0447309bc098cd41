package neardup

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzParseFingerprint checks ParseFingerprint on arbitrary input: it either
// fails with ErrHex, or returns a fingerprint of 64, 128 or 256 bits whose
// String is the input's digits in lower case, and which survives a round
// trip through Bytes and FromBytes.
func FuzzParseFingerprint(f *testing.F) {
	for _, s := range []string{
		"8c3a5f7e9ecb3f35", "0x8C3A5F7E9ECB3F35", "0000000020302202800d8e90e45cc488",
		"773e2df0a02a319ec34a0b71d54029111da90838cbc20ecd3d2d4e18c25a3025",
		"", "0x", "8c3a5f7e9ecb3f3", "8c3a5f7e9ecb3f35a", "zz3a5f7e9ecb3f35", "8c3a5f7e 9ecb3f3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fp, err := ParseFingerprint(s)
		if err != nil {
			if !errors.Is(err, ErrHex) {
				t.Fatalf("ParseFingerprint(%q) error %v does not wrap ErrHex", s, err)
			}
			return
		}
		digits := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
		if fp.Bits() != 4*len(digits) || (fp.Bits() != 64 && fp.Bits() != 128 && fp.Bits() != 256) {
			t.Fatalf("ParseFingerprint(%q) has %d bits", s, fp.Bits())
		}
		if got := fp.String(); got != strings.ToLower(digits) {
			t.Fatalf("ParseFingerprint(%q).String() = %q", s, got)
		}
		back, err := FromBytes(fp.Bytes())
		if err != nil || back != fp {
			t.Fatalf("FromBytes(Bytes()) = %v, %v; want %v", back, err, fp)
		}
		if !bytes.Equal(back.Bytes(), fp.Bytes()) {
			t.Fatal("Bytes differ after a round trip")
		}
		if d, err := Distance(fp, back); err != nil || d != 0 {
			t.Fatalf("Distance to itself = %d, %v", d, err)
		}
	})
}

// TestParseFingerprintErrors checks that a fingerprint that does not read
// is refused with what is wrong and where.
func TestParseFingerprintErrors(t *testing.T) {
	for _, c := range []struct{ in, says string }{
		{" 4f9c82369cd87f01", `' ' at byte 0 is not a hex digit`},
		{"4f9c82369cd8 7f01", `' ' at byte 12 is not a hex digit`},
		{"0x4f9c82369cd87g01", `'g' at byte 15 is not a hex digit`},
		{"0x4f9c", "has 4 digits, want 16, 32 or 64"},
		{"0x0X4f9c82369cd87f01", `'X' at byte 3 is not a hex digit`}, // one prefix only
	} {
		_, err := ParseFingerprint(c.in)
		if !errors.Is(err, ErrHex) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ParseFingerprint(%q): %v, want ErrHex saying %s", c.in, err, c.says)
		}
	}
}
