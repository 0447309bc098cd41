package neardup

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/neardup/neardup/store"
)

// ErrFingerprinterChanged is returned by Open for a store whose documents
// were fingerprinted by another profile, width or pipeline than the
// engine's (another version of neardup's pipeline included): their
// fingerprints and those of new texts could not be compared, so near
// copies would go unseen. Open the store with the options it was written
// with, use another directory, or copy its documents into a new store
// fingerprinted with the new options (`neardup migrate`, which reads their
// texts again). The returned error names both.
var ErrFingerprinterChanged = errors.New("neardup: store written with another fingerprinter")

// fingerprinterMeta is the store's metadata key of its fingerprinter's
// record (fingerprinterRecord, JSON).
const fingerprinterMeta = "fingerprinter"

// probeTexts are fingerprinted to recognise a fingerprinter: any change of
// profile, width, tokens, shingles or weights gives at least one of them
// another fingerprint. They hold common English and Chinese words, so
// that weights read from a table of document frequencies apply to them,
// and a short line, where a changed feature weighs most. Probes are only
// ever added at the end (see checkFingerprinter): the fourth came with the
// normalizer's reading of curly quotation marks as ASCII ones, and of
// quoted attributes and template and noscript elements in HTML; the fifth
// with the tokenizer's ending words at a full stop between letters and the
// normalizer's dropping of the optional marks of Arabic and Hebrew.
var probeTexts = []string{
	"The quick brown fox jumps over the lazy dog, and then it runs back into the woods where the other animals of the forest are waiting for it to come home before the night falls.",
	"今天天气很好，我们一起去公园散步，然后在湖边的小饭馆吃了午饭。下午大家回到家里，继续学习和工作。",
	"Re: your order #1234 has shipped",
	"I don’t know ‘why’ <a title=\"a>b\">it’s</a> <noscript>so</noscript> <template>late</template>",
	"He came home late.The door was locked (e.g. by mistake). بِسْمِ اللَّهِ שָׁלוֹם",
}

// fingerprinterRecord is what the store keeps of the fingerprinter its
// documents were made with.
type fingerprinterRecord struct {
	// Profile is the profile's name, or "" for a caller's Fingerprinter.
	Profile string `json:"profile"`
	// Pipeline says that the default profile ran with the caller's own
	// Pipeline.
	Pipeline bool `json:"pipeline,omitempty"`
	// HTML says that the pipeline read texts as HTML (Pipeline.HTML),
	// which the probes, plain texts, do not show.
	HTML bool `json:"html,omitempty"`
	// FoldAccents says that the pipeline folded accents
	// (Pipeline.FoldAccents), which the probes, without Latin accents, do
	// not show.
	FoldAccents bool `json:"fold_accents,omitempty"`
	// FoldVersion is the version of the folding (foldVersion) when
	// FoldAccents is set: 0 in records written before Cyrillic was
	// folded, whose fingerprints of Russian texts with ё differ.
	FoldVersion int `json:"fold_version,omitempty"`
	// MainText says that the pipeline read the main text of pages
	// (Pipeline.MainText), which the probes, without page furniture, do
	// not show.
	MainText bool `json:"main_text,omitempty"`
	// Spec describes the caller's Pipeline (Pipeline.String), for
	// messages; empty in records written before it was kept.
	Spec string `json:"spec,omitempty"`
	// Bits is its width.
	Bits int `json:"bits"`
	// Probes are the fingerprints of probeTexts, in hex: what recognises
	// it.
	Probes []string `json:"probes"`
}

// foldVersion is the version of analysis.FoldAccents that records of
// folding pipelines name: 1 since it folds the optional marks of Cyrillic
// too (ё written е, stress marks dropped).
const foldVersion = 1

// String names the fingerprinter for messages.
func (r fingerprinterRecord) String() string {
	s := r.name()
	if r.FoldAccents && r.FoldVersion < foldVersion {
		s += " (accents folded by an earlier version of neardup, Cyrillic left as it was)"
	}
	return s
}

// name names the fingerprinter, its version of folding aside.
func (r fingerprinterRecord) name() string {
	switch {
	case r.Profile == "":
		return fmt.Sprintf("a caller's Fingerprinter of %d bits", r.Bits)
	case r.Pipeline && r.Spec != "":
		return fmt.Sprintf("profile %q at %d bits with pipeline %s", r.Profile, r.Bits, r.Spec)
	case r.Pipeline && r.HTML:
		return fmt.Sprintf("profile %q at %d bits with the caller's own pipeline, reading HTML", r.Profile, r.Bits)
	case r.Pipeline:
		return fmt.Sprintf("profile %q at %d bits with the caller's own pipeline", r.Profile, r.Bits)
	}
	return fmt.Sprintf("profile %q at %d bits", r.Profile, r.Bits)
}

// reads reports whether r reads texts as o does: as HTML or not, their
// main text or all of it, with accents folded (by the same version of the
// folding) or not.
func (r fingerprinterRecord) reads(o fingerprinterRecord) bool {
	return r.HTML == o.HTML && r.MainText == o.MainText && r.FoldAccents == o.FoldAccents && r.FoldVersion == o.FoldVersion
}

// sameSpec reports whether r and o name the same settings of the default
// profile's pipeline, where both records name them. The probes alone
// miss some changes: none of them has more than 64 features, so a TopN of
// 64 or more fingerprints them as no TopN does, though longer texts then
// get other fingerprints.
func (r fingerprinterRecord) sameSpec(o fingerprinterRecord) bool {
	a, b := r.spec(), o.spec()
	return a == "" || b == "" || a == b
}

// spec returns the settings of r's pipeline as Pipeline.String names
// them ("default" for the default pipeline), or "" when r does not say:
// a caller's Fingerprinter, a compatibility profile, or a record written
// before the settings were kept.
func (r fingerprinterRecord) spec() string {
	switch {
	case r.Pipeline:
		return r.Spec
	case r.Profile == "default":
		return DefaultPipeline().String()
	}
	return ""
}

// fingerprinterRecord returns the record of the engine's fingerprinter.
func (e *Engine) fingerprinterRecord() fingerprinterRecord {
	r := fingerprinterRecord{Profile: e.profile(), Bits: e.bits, Probes: make([]string, len(probeTexts))}
	r.Pipeline = r.Profile != "" && e.opts.Fingerprint.Pipeline != nil
	if r.Pipeline {
		r.Spec = e.opts.Fingerprint.Pipeline.String()
	}
	r.HTML, r.FoldAccents = e.html, e.fold
	if r.FoldAccents {
		r.FoldVersion = foldVersion
	}
	r.MainText = e.html && e.opts.Fingerprint.Pipeline != nil && e.opts.Fingerprint.Pipeline.MainText
	for i, t := range probeTexts {
		r.Probes[i] = e.fp.Fingerprint([]byte(t)).String()
	}
	return r
}

// profile returns the name of the engine's profile, or "" for a caller's
// Fingerprinter.
func (e *Engine) profile() string {
	switch {
	case e.opts.Fingerprinter != nil:
		return ""
	case e.opts.Fingerprint.Profile == "":
		return "default"
	}
	return e.opts.Fingerprint.Profile
}

// readsText reports whether the profile of that name (as a
// fingerprinterRecord has it) reads texts through neardup's own
// normalizer and tokenizer, whose changes its probes recognise; the
// compatibility profiles reproduce other tools and never change. A
// caller's Fingerprinter ("") may use them.
func readsText(profile string) bool {
	switch profile {
	case "classic", "py-simhash", "go-mfonda":
		return false
	}
	return true
}

// checkFingerprinter compares the engine's fingerprinter with the one the
// store's documents were made with, and records it in a store that has no
// record yet (a new one, or one written before stores kept it). It
// returns an error wrapping ErrFingerprinterChanged when they differ.
func (e *Engine) checkFingerprinter() error {
	now := e.fingerprinterRecord()
	old, err := e.db.Meta(fingerprinterMeta)
	if errors.Is(err, store.ErrNotFound) {
		b, err := json.Marshal(now)
		if err != nil {
			return err
		}
		return e.db.SetMeta(fingerprinterMeta, b)
	}
	if err != nil {
		return err
	}
	var was fingerprinterRecord
	if err := json.Unmarshal(old, &was); err != nil {
		return fmt.Errorf("the store's record of its fingerprinter is damaged: %w", err)
	}
	if slices.Equal(was.Probes, now.Probes) && was.reads(now) && was.sameSpec(now) {
		return nil
	}
	if n := len(was.Probes); n < len(now.Probes) && slices.Equal(was.Probes, now.Probes[:n]) && was.reads(now) && !readsText(was.Profile) {
		// A record from before the later probes, of a fingerprinter
		// that no change they recognise can touch: it gains them.
		b, err := json.Marshal(now)
		if err != nil {
			return err
		}
		return e.db.SetMeta(fingerprinterMeta, b)
	}
	if was.Profile == now.Profile && was.Pipeline == now.Pipeline && was.reads(now) && was.sameSpec(now) && was.Bits == now.Bits {
		return fmt.Errorf("%w: %s: %s makes other fingerprints now than when the store was written (another pipeline, or another version of neardup); open it with the version and options it was written with, use another directory, or copy its documents into a new store fingerprinted as now (neardup migrate)", ErrFingerprinterChanged, e.dir, was)
	}
	return fmt.Errorf("%w: %s: its documents were fingerprinted by %s, the engine's are by %s; open it with the options it was written with, use another directory, or copy its documents into a new store fingerprinted as now (neardup migrate)", ErrFingerprinterChanged, e.dir, was, now)
}
