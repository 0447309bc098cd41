package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/neardup/neardup"
)

// engineProfiles returns the fingerprint profiles the engine can index (the
// SimHash ones; nilsimsa is not), the default first: the choices of
// --profile for serve, dedup and cluster.
func engineProfiles() []string {
	var ps []string
	for _, p := range neardup.Profiles() {
		o := neardup.DefaultOptions()
		o.Fingerprint = neardup.Config{Profile: p}
		if o.Validate() == nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// checkEngineProfile returns a usage error naming --profile or --bits
// unless the engine can index fingerprints of profile at bits wide, so that
// a bad value is refused before a store is opened or an address listened on.
func checkEngineProfile(profile string, bits int) error {
	ps := engineProfiles()
	name := profile
	if name == "" {
		name = "default"
	}
	if !slices.Contains(ps, name) {
		if slices.Contains(neardup.Profiles(), name) {
			return usagef("--profile %q: the engine indexes SimHash fingerprints, which %s does not make; want %s", profile, name, orList(ps))
		}
		return usagef("--profile %q: no such profile; want %s", profile, orList(ps))
	}
	if bits != 64 && bits != 128 {
		return usagef("--bits %d: want 64 or 128", bits)
	}
	if (neardup.Config{Profile: name, Bits: bits}).Validate() != nil {
		var widths []string
		for _, w := range []int{64, 128} {
			if (neardup.Config{Profile: name, Bits: w}).Validate() == nil {
				widths = append(widths, fmt.Sprint(w))
			}
		}
		return usagef("--bits %d: profile %q makes %s-bit fingerprints only", bits, name, orList(widths))
	}
	return nil
}

// orList writes a choice of words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
