package neardup

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/nilsimsa"
	"github.com/neardup/neardup/simhash/compat"
)

// ErrProfile is returned (wrapped) by NewFingerprinter and Config.Validate
// for an unknown profile or a width the profile does not support.
var ErrProfile = errors.New("neardup: unknown profile or unsupported width")

// A Fingerprinter turns a document into a fingerprint of fixed width.
// Implementations are safe for concurrent use.
type Fingerprinter interface {
	// Fingerprint returns the fingerprint of text. It never fails: invalid
	// UTF-8 is read as U+FFFD, and empty text has a documented fingerprint.
	Fingerprint(text []byte) Fingerprint
	// Bits returns the width of the fingerprints it makes.
	Bits() int
}

// Config selects a fingerprinting profile. The zero value is the default
// profile at 64 bits.
//
// The profiles, their widths, and what they give for empty text:
//
//   - "default": neardup's own pipeline (see Pipeline), 64 or 128 bits.
//     Empty text gives 0. Invalid UTF-8 is read as U+FFFD.
//   - "classic": the Charikar simhash printed in many articles
//     (compat.Classic64, compat.Classic128), 64 or 128 bits: whitespace
//     tokens, Python 2's string hash widened. Empty text gives all ones.
//     Each invalid UTF-8 byte is read as U+FFFD.
//   - "py-simhash": the Python package simhash 2.x, Simhash(text) with its
//     defaults (compat.PySimhash64, compat.PySimhash128), 64 or 128 bits.
//     Empty text gives the low bits of MD5(""): e9800998ecf8427e at 64
//     bits. Each invalid UTF-8 byte is read as U+FFFD, which is not a word
//     character and so is dropped.
//   - "go-mfonda": github.com/mfonda/simhash, Simhash(NewWordFeatureSet(text))
//     (compat.Mfonda64), 64 bits only. Empty text gives all ones. Bytes are
//     used as they are, like the original; invalid UTF-8 never forms words.
//   - "nilsimsa": nilsimsa digests (package nilsimsa), always 256 bits;
//     Bits is ignored. Bytes are hashed as they are. Texts under three
//     bytes, empty text included, give 0.
type Config struct {
	// Profile names the profile: "default" (also the empty string),
	// "classic", "py-simhash", "go-mfonda" or "nilsimsa".
	Profile string
	// Bits is the SimHash width, 64 (the default, also 0) or 128. nilsimsa
	// is always 256 bits wide and ignores it.
	Bits int
	// Pipeline configures the "default" profile; nil means DefaultPipeline().
	// The other profiles are fixed by the implementations they reproduce
	// and ignore it.
	Pipeline *Pipeline
}

// profileWidth is a profile and the widths it supports; nil widths mean
// the profile has a fixed width and ignores Config.Bits.
type profileWidth struct {
	name   string
	widths []int
}

// profileWidths lists the profiles, the default first.
func profileWidths() []profileWidth {
	return []profileWidth{
		{"default", []int{64, 128}},
		{"classic", []int{64, 128}},
		{"py-simhash", []int{64, 128}},
		{"go-mfonda", []int{64}},
		{"nilsimsa", nil},
	}
}

// Profiles returns the names of the profiles NewFingerprinter knows, the
// default first.
func Profiles() []string {
	ps := profileWidths()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	return names
}

// Validate reports whether c names a known profile at a width it supports.
// Errors wrap ErrProfile. It does not check c.Pipeline; NewFingerprinter
// does.
func (c Config) Validate() error {
	name := c.Profile
	if name == "" {
		name = "default"
	}
	for _, p := range profileWidths() {
		if p.name != name {
			continue
		}
		bits := c.bits()
		if p.widths != nil && !slices.Contains(p.widths, bits) {
			return fmt.Errorf("%w: profile %q makes %s fingerprints, not %d-bit", ErrProfile, name, widthsText(p.widths), bits)
		}
		return nil
	}
	return fmt.Errorf("%w: no profile is called %q (known: %s)", ErrProfile, c.Profile, strings.Join(Profiles(), ", "))
}

// widthsText names widths for a message: "64-bit" or "64- or 128-bit".
func widthsText(widths []int) string {
	var b strings.Builder
	for i, w := range widths {
		switch {
		case i == 0:
		case i == len(widths)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d-", w)
	}
	return b.String() + "bit"
}

// ReadsHTML reports whether c reads texts as HTML: the default profile
// with a Pipeline whose HTML or MainText is set (the other profiles ignore
// Pipeline). The engine's policy then measures the visible text too.
func (c Config) ReadsHTML() bool {
	return c.Pipeline != nil && (c.Pipeline.HTML || c.Pipeline.MainText) && (c.Profile == "" || c.Profile == "default")
}

// FoldsAccents reports whether c takes the accents off Latin and Greek
// letters and the optional marks off Cyrillic (analysis.FoldAccents): the
// default profile with a Pipeline whose FoldAccents is set.
// The engine's policy then measures the folded text too.
func (c Config) FoldsAccents() bool {
	return c.Pipeline != nil && c.Pipeline.FoldAccents && (c.Profile == "" || c.Profile == "default")
}

// Measured returns what the policy measures of text when texts are
// fingerprinted with c, as the pipeline reads it: its visible text when c
// reads HTML (ReadsHTML, analysis.StripHTML; analysis.MainText with
// Pipeline.MainText), with the accents taken off when c folds them
// (FoldsAccents, analysis.FoldAccents). It returns text itself, not a
// copy, when c does neither.
func (c Config) Measured(text []byte) []byte {
	switch {
	case c.ReadsHTML() && c.Pipeline.MainText:
		text = analysis.MainText(nil, text)
	case c.ReadsHTML():
		text = analysis.StripHTML(nil, text)
	}
	if c.FoldsAccents() {
		text = analysis.FoldAccents(nil, text)
	}
	return text
}

// bits returns c.Bits with 0 meaning 64.
func (c Config) bits() int {
	if c.Bits == 0 {
		return 64
	}
	return c.Bits
}

// NewFingerprinter returns the Fingerprinter that c describes. Errors wrap
// ErrProfile (see Config.Validate), or ErrPipeline for a bad c.Pipeline.
func NewFingerprinter(c Config) (Fingerprinter, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	bits := c.bits()
	switch c.Profile {
	case "", "default":
		p := DefaultPipeline()
		if c.Pipeline != nil {
			p = *c.Pipeline
		}
		return NewPipeline(p, bits)
	case "classic":
		return profileFP{bits, compat.Classic64, compat.Classic128}, nil
	case "py-simhash":
		return profileFP{bits, compat.PySimhash64, compat.PySimhash128}, nil
	case "go-mfonda":
		return profileFP{bits, compat.Mfonda64, nil}, nil
	}
	return nilsimsaFP{}, nil
}

// profileFP is the Fingerprinter of a compatibility SimHash profile.
type profileFP struct {
	bits int
	f64  func([]byte) uint64
	f128 func([]byte) (hi, lo uint64)
}

func (p profileFP) Bits() int { return p.bits }

func (p profileFP) Fingerprint(text []byte) Fingerprint {
	if p.bits == 128 {
		return FromUint128(p.f128(text))
	}
	return FromUint64(p.f64(text))
}

// nilsimsaFP is the Fingerprinter of the nilsimsa profile. Its fingerprint
// holds the digest bytes in order, so its hex form is the reference's.
type nilsimsaFP struct{}

func (nilsimsaFP) Bits() int { return 8 * nilsimsa.Size }

func (nilsimsaFP) Fingerprint(text []byte) Fingerprint {
	d := nilsimsa.Sum(text)
	f, _ := FromBytes(d[:]) // 32 bytes: never fails
	return f
}
