package neardup

import (
	"errors"
	"fmt"
)

// ErrProfile is returned by NewFingerprinter for an unknown profile or a
// width the profile does not support.
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

// Config selects a fingerprinting profile.
type Config struct {
	// Profile names the profile: "default" (the default), "classic",
	// "py-simhash", "go-mfonda" or "nilsimsa".
	Profile string
	// Bits is the SimHash width, 64 (the default) or 128. nilsimsa is
	// always 256 bits wide and ignores it.
	Bits int
	// Pipeline configures the "default" profile; nil means DefaultPipeline().
	Pipeline *Pipeline
}

// Profiles returns the names of the profiles NewFingerprinter knows.
func Profiles() []string {
	return []string{"default", "classic", "py-simhash", "go-mfonda", "nilsimsa"}
}

// NewFingerprinter returns the Fingerprinter that c describes.
func NewFingerprinter(c Config) (Fingerprinter, error) {
	bits := c.Bits
	if bits == 0 {
		bits = 64
	}
	switch c.Profile {
	case "", "default":
		p := DefaultPipeline()
		if c.Pipeline != nil {
			p = *c.Pipeline
		}
		return NewPipeline(p, bits)
	}
	return nil, fmt.Errorf("%w: %q", ErrProfile, c.Profile)
}
