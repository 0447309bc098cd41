package neardup

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// Errors returned when fingerprints are parsed or compared.
var (
	// ErrWidth is returned when two fingerprints of different widths are compared,
	// or when a width other than 64, 128 or 256 bits is asked for.
	ErrWidth = errors.New("neardup: fingerprint widths differ or are unsupported")
	// ErrHex is returned by ParseFingerprint for text that is not 16, 32 or 64 hex digits.
	ErrHex = errors.New("neardup: bad hex fingerprint")
)

// Fingerprint is a fixed-width bit string: a 64- or 128-bit SimHash or a
// 256-bit nilsimsa digest. The zero value is an empty fingerprint of width 0.
// Fingerprints are values: compare them with == and copy them freely.
type Fingerprint struct {
	// w holds the bits, least significant word first: w[0] is the low 64 bits.
	w    [4]uint64
	bits int
}

// FromUint64 returns the 64-bit fingerprint v.
func FromUint64(v uint64) Fingerprint { return Fingerprint{w: [4]uint64{v}, bits: 64} }

// FromUint128 returns the 128-bit fingerprint whose high and low halves are hi and lo.
func FromUint128(hi, lo uint64) Fingerprint {
	return Fingerprint{w: [4]uint64{lo, hi}, bits: 128}
}

// FromBytes returns the fingerprint whose big-endian bytes are b: the first
// byte holds the most significant bits, as in the hex form. len(b) must be 8,
// 16 or 32; otherwise it returns ErrWidth.
func FromBytes(b []byte) (Fingerprint, error) {
	n := len(b)
	if n != 8 && n != 16 && n != 32 {
		return Fingerprint{}, fmt.Errorf("%w: %d bytes", ErrWidth, n)
	}
	f := Fingerprint{bits: n * 8}
	words := n / 8
	for i, c := range b {
		word := words - 1 - i/8
		f.w[word] |= uint64(c) << (8 * (7 - i%8))
	}
	return f, nil
}

// Bits returns the width of f in bits: 64, 128, 256, or 0 for the zero value.
func (f Fingerprint) Bits() int { return f.bits }

// Uint64 returns the low 64 bits of f: the whole fingerprint when it is 64 bits wide.
func (f Fingerprint) Uint64() uint64 { return f.w[0] }

// Uint128 returns the high and low 64-bit halves of the low 128 bits of f.
func (f Fingerprint) Uint128() (hi, lo uint64) { return f.w[1], f.w[0] }

// Bytes returns f in big-endian order, Bits()/8 bytes long.
func (f Fingerprint) Bytes() []byte {
	n := f.bits / 8
	b := make([]byte, n)
	words := n / 8
	for i := range b {
		b[i] = byte(f.w[words-1-i/8] >> (8 * (7 - i%8)))
	}
	return b
}

// String returns f as lower-case hex, zero-padded to the full width
// (16, 32 or 64 digits).
func (f Fingerprint) String() string { return hex.EncodeToString(f.Bytes()) }

// Bit reports whether bit i of f is set; bit 0 is the least significant.
// It panics unless 0 <= i < f.Bits().
func (f Fingerprint) Bit(i int) bool {
	if i < 0 || i >= f.bits {
		panic(fmt.Sprintf("neardup: bit %d of a %d-bit fingerprint", i, f.bits))
	}
	return f.w[i/64]>>(i%64)&1 == 1
}

// ParseFingerprint parses 16, 32 or 64 hex digits (either case, an optional
// 0x prefix) into a fingerprint of 64, 128 or 256 bits.
func ParseFingerprint(s string) (Fingerprint, error) {
	t := s
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		t = t[2:]
	}
	if i := strings.IndexFunc(t, notHex); i >= 0 {
		r, _ := utf8.DecodeRuneInString(t[i:])
		return Fingerprint{}, fmt.Errorf("%w: %q: %q at byte %d is not a hex digit", ErrHex, s, r, len(s)-len(t)+i)
	}
	if len(t) != 16 && len(t) != 32 && len(t) != 64 {
		return Fingerprint{}, fmt.Errorf("%w: %q has %d digits, want 16, 32 or 64", ErrHex, s, len(t))
	}
	b, err := hex.DecodeString(t)
	if err != nil {
		return Fingerprint{}, fmt.Errorf("%w: %q: %v", ErrHex, s, err)
	}
	return FromBytes(b)
}

// notHex reports whether r is not a hexadecimal digit.
func notHex(r rune) bool {
	return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F')
}

// Distance returns the Hamming distance between a and b: the number of bit
// positions in which they differ. It returns ErrWidth when the widths differ.
func Distance(a, b Fingerprint) (int, error) {
	if a.bits != b.bits {
		return 0, fmt.Errorf("%w: %d and %d bits", ErrWidth, a.bits, b.bits)
	}
	d := 0
	for i := 0; i < a.bits/64; i++ {
		d += bits.OnesCount64(a.w[i] ^ b.w[i])
	}
	return d, nil
}

// MarshalText encodes f as String does; the zero Fingerprint encodes as
// empty text. It makes fingerprints hex strings in JSON.
func (f Fingerprint) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText decodes what MarshalText encodes: hex as ParseFingerprint
// takes it, or empty text for the zero Fingerprint.
func (f *Fingerprint) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*f = Fingerprint{}
		return nil
	}
	p, err := ParseFingerprint(string(b))
	if err != nil {
		return err
	}
	*f = p
	return nil
}
