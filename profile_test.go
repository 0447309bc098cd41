package neardup

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func mustFingerprinter(t *testing.T, c Config) Fingerprinter {
	t.Helper()
	f, err := NewFingerprinter(c)
	if err != nil {
		t.Fatalf("NewFingerprinter(%+v): %v", c, err)
	}
	return f
}

// TestProfileGolden checks each compatibility profile through
// NewFingerprinter against fingerprints of the original implementations.
func TestProfileGolden(t *testing.T) {
	tests := []struct {
		profile string
		bits    int
		text    string
		want    string
	}{
		{"classic", 64, "This is a test string for testing", "800d8e90e45cc488"},
		{"classic", 128, "This is a test string for testing", "0000000020302202800d8e90e45cc488"},
		{"classic", 64, "", "ffffffffffffffff"},
		{"classic", 128, "", "ffffffffffffffffffffffffffffffff"},
		{"py-simhash", 64, "How are you? I AM fine. Thanks. And you?", "bff3cd8a201e681a"},
		{"py-simhash", 128, "How are you? I AM fine. Thanks. And you?", "dba05dd58a01dc01bff3cd8a201e681a"},
		{"py-simhash", 64, "", "e9800998ecf8427e"},
		{"py-simhash", 0, "你好　世界！　　呼噜。", "db8c51c7172ea364"},
		{"go-mfonda", 64, "this is a test phrase", "8c3a5f7e9ecb3f35"},
		{"go-mfonda", 0, "", "ffffffffffffffff"},
		{"nilsimsa", 0, "The rain in Spain falls mostly in the plains.", "039020eb1050188be400091130981860648e39f5b1246d8c3c3c7623801186ac"},
		{"nilsimsa", 64, "abcdefgh", "14c8118000000000030800000004042004189020001308014088003280000078"},
		{"nilsimsa", 0, "", "0000000000000000000000000000000000000000000000000000000000000000"},
	}
	for _, tt := range tests {
		f := mustFingerprinter(t, Config{Profile: tt.profile, Bits: tt.bits})
		fp := f.Fingerprint([]byte(tt.text))
		if got := fp.String(); got != tt.want {
			t.Errorf("%s/%d(%q) = %s, want %s", tt.profile, tt.bits, tt.text, got, tt.want)
		}
		if fp.Bits() != f.Bits() || fp.Bits() != 4*len(tt.want) {
			t.Errorf("%s/%d: fingerprint has %d bits, Bits() = %d, want %d", tt.profile, tt.bits, fp.Bits(), f.Bits(), 4*len(tt.want))
		}
	}
}

// TestProfileDistances checks the distances printed in the seed articles and
// the issue, through Distance.
func TestProfileDistances(t *testing.T) {
	fp := func(c Config, text string) Fingerprint { return mustFingerprinter(t, c).Fingerprint([]byte(text)) }
	parse := func(s string) Fingerprint {
		f, err := ParseFingerprint(s)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	tests := []struct {
		name string
		a, b Fingerprint
		want int
	}{
		// Seed 000's C example.
		{"seed 000 C", FromUint64(851459198), FromUint64(847263864), 4},
		// Seed 002's Python code, 128 bits.
		{"classic 128", fp(Config{Profile: "classic", Bits: 128}, "This is a test string for testing"),
			fp(Config{Profile: "classic", Bits: 128}, "This is a test string for testing also!"), 14},
		{"go-mfonda", fp(Config{Profile: "go-mfonda"}, "this is a test phrase"),
			fp(Config{Profile: "go-mfonda"}, "this is a test phrass"), 2},
		// Seed 002's nilsimsa spam codes: score 92.
		{"nilsimsa seed", parse("773e2df0a02a319ec34a0b71d54029111da90838cbc20ecd3d2d4e18c25a3025"),
			parse("47182cf0802a11dec24a3b75d5042d310ca90838c9d20ecc3d610e98560a3645"), 36},
		{"nilsimsa message", fp(Config{Profile: "nilsimsa"}, "A short test message"),
			fp(Config{Profile: "nilsimsa"}, "A short test message!"), 3},
	}
	for _, tt := range tests {
		d, err := Distance(tt.a, tt.b)
		if err != nil || d != tt.want {
			t.Errorf("%s: Distance = %d, %v; want %d", tt.name, d, err, tt.want)
		}
	}
}

func TestProfileErrors(t *testing.T) {
	bad := []Config{
		{Profile: "simhash"},
		{Profile: "Classic"},
		{Profile: "go-mfonda", Bits: 128},
		{Profile: "classic", Bits: 32},
		{Profile: "py-simhash", Bits: 256},
		{Bits: 256},
	}
	for _, c := range bad {
		if _, err := NewFingerprinter(c); !errors.Is(err, ErrProfile) {
			t.Errorf("NewFingerprinter(%+v) error %v, want ErrProfile", c, err)
		}
	}
	// nilsimsa ignores Bits.
	if f := mustFingerprinter(t, Config{Profile: "nilsimsa", Bits: 128}); f.Bits() != 256 {
		t.Errorf("nilsimsa Bits() = %d, want 256", f.Bits())
	}
	if got, want := Profiles(), []string{"default", "classic", "py-simhash", "go-mfonda", "nilsimsa"}; !slices.Equal(got, want) {
		t.Errorf("Profiles() = %v, want %v", got, want)
	}
}

// TestProfilesInvalidUTF8 checks that no profile panics on arbitrary bytes
// and that each is deterministic.
func TestProfilesInvalidUTF8(t *testing.T) {
	inputs := [][]byte{nil, []byte("\xff"), []byte("\xe4\xbd"), []byte("ab\x00cd\xc0\xafef"), []byte("ΣΣ\xffΣ")}
	for _, name := range Profiles() {
		if name == "default" {
			continue // FP-CORE's pipeline has its own tests
		}
		f := mustFingerprinter(t, Config{Profile: name})
		for _, in := range inputs {
			if a, b := f.Fingerprint(in), f.Fingerprint(in); a != b {
				t.Errorf("%s(%q) not deterministic: %v, %v", name, in, a, b)
			}
		}
	}
}

func ExampleNewFingerprinter() {
	f, err := NewFingerprinter(Config{Profile: "go-mfonda"})
	if err != nil {
		panic(err)
	}
	a := f.Fingerprint([]byte("this is a test phrase"))
	b := f.Fingerprint([]byte("this is a test phrass"))
	d, _ := Distance(a, b)
	fmt.Println(a, b, d)
	// Output: 8c3a5f7e9ecb3f35 8c3a5f7e9ecb3f21 2
}
