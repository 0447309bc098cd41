package compat

import (
	"fmt"
	"math/bits"
	"strconv"
	"testing"
)

// hex64 and hex128 print fingerprints the way the golden tables hold them.
func hex64(v uint64) string       { return fmt.Sprintf("%016x", v) }
func hex128(hi, lo uint64) string { return fmt.Sprintf("%016x%016x", hi, lo) }

// golden holds fingerprints computed by the original implementations (the
// printed Python code of the classic simhash run under Python 3, and the
// algorithm of the Python package simhash 2.x checked against its own
// test values below).
type golden struct {
	text        string
	fp64, fp128 string
}

func testGolden(t *testing.T, name string, table []golden, f64 func([]byte) uint64, f128 func([]byte) (uint64, uint64)) {
	t.Helper()
	for _, g := range table {
		if got := hex64(f64([]byte(g.text))); got != g.fp64 {
			t.Errorf("%s64(%q) = %s, want %s", name, g.text, got, g.fp64)
		}
		if f128 == nil {
			continue
		}
		if got := hex128(f128([]byte(g.text))); got != g.fp128 {
			t.Errorf("%s128(%q) = %s, want %s", name, g.text, got, g.fp128)
		}
	}
}

func TestClassicGolden(t *testing.T) {
	testGolden(t, "Classic", []golden{
		{"This is a test string for testing", "800d8e90e45cc488", "0000000020302202800d8e90e45cc488"},
		{"This is a test string for testing also!", "801d9e9ce4dcc6ea", "0000000020fc2282801d9e9ce4dcc6ea"},
		{"", "ffffffffffffffff", "ffffffffffffffffffffffffffffffff"},
		{" \t\n ", "ffffffffffffffff", "ffffffffffffffffffffffffffffffff"},
		{"你好 世界 近似 重复", "634e8dbfef58ef0d", "0000000000000000634e8dbfef58ef0d"},
		{"the cat sat on the mat", "fabbff6b39cfadff", "0000000000000324fabbff6b39cfadff"},
		{"emoji 😀 tab\tx", "e8068ef3f7d7f51f", "0000000000000120e8068ef3f7d7f51f"},
	}, Classic64, Classic128)
}

// TestClassicSeed checks the result printed with the Python code in the
// seed article: at 128 bits the two sentences differ in 14 bits.
func TestClassicSeed(t *testing.T) {
	ahi, alo := Classic128([]byte("This is a test string for testing"))
	bhi, blo := Classic128([]byte("This is a test string for testing also!"))
	if d := bits.OnesCount64(ahi^bhi) + bits.OnesCount64(alo^blo); d != 14 {
		t.Errorf("classic 128-bit distance = %d, want 14", d)
	}
}

// TestClassicWide checks the 128-bit token hash on long tokens, where the
// product overflows 64 bits many times: the low half of the 128-bit hash
// must equal the 64-bit hash, since arithmetic mod 2^128 reduces to mod 2^64.
func TestClassicWide(t *testing.T) {
	for _, tok := range []string{"a", "abcdefghijklmnopqrstuvwxyz", "零一二三四五六七八九十"} {
		_, lo := Classic128([]byte(tok))
		if want := Classic64([]byte(tok)); lo != want {
			t.Errorf("%q: low half %016x, 64-bit %016x", tok, lo, want)
		}
	}
}

func TestPySimhashGolden(t *testing.T) {
	testGolden(t, "PySimhash", []golden{
		{"How are you? I AM fine. Thanks. And you?", "bff3cd8a201e681a", "dba05dd58a01dc01bff3cd8a201e681a"},
		{"", "e9800998ecf8427e", "d41d8cd98f00b204e9800998ecf8427e"},
		{"abc", "d6963f7d28e17f72", "900150983cd24fb0d6963f7d28e17f72"},
		{"你好　世界！　　呼噜。", "db8c51c7172ea364", "6d356c71b9e2e4e1db8c51c7172ea364"},
		{"你好，世界　呼噜", "db8c51c7172ea364", "6d356c71b9e2e4e1db8c51c7172ea364"},
		// Final sigma, and characters whose full lower-casing differs.
		{"ΟΔΟΣ ΚΑΙ ΣΟΦΊΑ Σ", "7300306190c1e820", "1db82201431473047300306190c1e820"},
		{"İstanbul straße_ ½ ²", "0147cc1196649071", "a48109439d11458f0147cc1196649071"},
	}, PySimhash64, PySimhash128)
}

// TestPyFeatures checks the values asserted by the Python package's own
// tests (test_value, test_large_inputs).
func TestPyFeatures(t *testing.T) {
	many := make([]Feature, 500)
	weighted := make([]Feature, 500)
	for i := range many {
		many[i] = Feature{strconv.Itoa(i), 1}
		weighted[i] = Feature{strconv.Itoa(i), float64(50 * i)}
	}
	tests := []struct {
		name     string
		features []Feature
		want     uint64
	}{
		{"aaa bbb", []Feature{{"aaa", 1}, {"bbb", 1}}, 57087923692560392},
		{"0..499", many, 7984652473404407437},
		{"0..499 weights 50i", weighted, 3372825719632739723},
		{"none", nil, 0},
	}
	for _, tt := range tests {
		if got := PyFeatures64(tt.features); got != tt.want {
			t.Errorf("PyFeatures64(%s) = %d, want %d", tt.name, got, tt.want)
		}
	}
	// Text and features agree: "abcde" has the windows "abcd" and "bcde".
	if a, b := PySimhash64([]byte("ABCDE")), PyFeatures64([]Feature{{"abcd", 1}, {"bcde", 1}}); a != b {
		t.Errorf("PySimhash64(ABCDE) = %016x, features give %016x", a, b)
	}
	hi, lo := PyFeatures128([]Feature{{"abcd", 1}, {"bcde", 1}})
	if whi, wlo := PySimhash128([]byte("abcde")); hi != whi || lo != wlo {
		t.Errorf("PyFeatures128 = %s, PySimhash128 = %s", hex128(hi, lo), hex128(whi, wlo))
	}
}

func TestMfondaGolden(t *testing.T) {
	a := Mfonda64([]byte("this is a test phrase"))
	if got := hex64(a); got != "8c3a5f7e9ecb3f35" {
		t.Errorf("Mfonda64(this is a test phrase) = %s, want 8c3a5f7e9ecb3f35", got)
	}
	if d := bits.OnesCount64(a ^ Mfonda64([]byte("this is a test phrass"))); d != 2 {
		t.Errorf("distance to 'this is a test phrass' = %d, want 2", d)
	}
	if got := Mfonda64(nil); got != ^uint64(0) {
		t.Errorf("Mfonda64(empty) = %016x, want all ones", got)
	}
}

func TestInvalidUTF8(t *testing.T) {
	// Each bad byte reads as U+FFFD: the same fingerprint as the text with
	// the replacement character written out.
	bad, good := []byte("caf\xe9 au lait"), []byte("caf\uFFFD au lait")
	if Classic64(bad) != Classic64(good) {
		t.Error("Classic64: invalid byte not read as U+FFFD")
	}
	if PySimhash64(bad) != PySimhash64([]byte("caf au lait")) {
		t.Error("PySimhash64: U+FFFD should be dropped as a non-word character")
	}
}
