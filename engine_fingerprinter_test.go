package neardup

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/store"
)

// TestStoreKeepsFingerprinter checks that a store refuses an engine whose
// fingerprints differ from those its documents were made with, naming
// both, and takes one that makes the same fingerprints.
func TestStoreKeepsFingerprinter(t *testing.T) {
	dir := t.TempDir()
	opts := func(c Config, fp Fingerprinter) *Options {
		o := DefaultOptions()
		o.ExpiryInterval, o.Fingerprint, o.Fingerprinter = -1, c, fp
		return &o
	}
	e, err := Open(dir, opts(Config{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	doc := Document{ID: "a", Text: "the first document of a store that keeps its fingerprinter"}
	if _, err := e.CheckAndInsert(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	shingles := DefaultPipeline()
	shingles.Shingle = 3
	html := DefaultPipeline()
	html.HTML = true // the same fingerprints of plain texts
	topN := DefaultPipeline()
	topN.TopN = 64 // more features than any probe has: the same fingerprints of the probes
	given := DefaultPipeline()
	def, err := NewFingerprinter(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    *Options
		want string // in the error; "" means Open succeeds
	}{
		{"another profile", opts(Config{Profile: "classic"}, nil), `by profile "default" at 64 bits, the engine's are by profile "classic" at 64 bits`},
		{"another width", opts(Config{Bits: 128}, nil), `the engine's are by profile "default" at 128 bits`},
		{"another pipeline", opts(Config{Pipeline: &shingles}, nil), `the engine's are by profile "default" at 64 bits with pipeline Shingle=3`},
		{"a pipeline reading HTML", opts(Config{Pipeline: &html}, nil), `the engine's are by profile "default" at 64 bits with pipeline HTML=true`},
		{"a TopN the probes do not tell", opts(Config{Pipeline: &topN}, nil), `the engine's are by profile "default" at 64 bits with pipeline TopN=64`},
		{"the default pipeline given", opts(Config{Pipeline: &given}, nil), ""},
		{"a caller's other fingerprinter", opts(Config{}, wordSimHash{}), `the engine's are by a caller's Fingerprinter of 64 bits`},
		{"a caller's fingerprinter making the same fingerprints", opts(Config{}, def), ""},
		{"the same options", opts(Config{}, nil), ""},
	} {
		e, err := Open(dir, c.o)
		if c.want == "" {
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if got, err := e.Get("a"); err != nil || got.Text != doc.Text {
				t.Fatalf("%s: Get = %q, %v", c.name, got.Text, err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err == nil {
			e.Close()
			t.Fatalf("%s: opened", c.name)
		}
		if !errors.Is(err, ErrFingerprinterChanged) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
			t.Fatalf("%s: %v, want ErrFingerprinterChanged naming %s and %q", c.name, err, dir, c.want)
		}
	}
}

// TestStoreFingerprinterRecord checks the store's record itself: a store
// written before it was kept takes the engine's, one whose fingerprints
// came from another version of the same profile is refused, and a
// damaged record is reported.
func TestStoreFingerprinterRecord(t *testing.T) {
	o := DefaultOptions()
	o.ExpiryInterval = -1
	// reopen writes a store, replaces its record with edit's, and opens
	// it again.
	reopen := func(edit func(rec []byte) []byte) (dir string, err error) {
		t.Helper()
		dir = t.TempDir()
		e, err := Open(dir, &o)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := e.db.Meta(fingerprinterMeta)
		if err != nil {
			t.Fatalf("no record: %v", err)
		}
		if err := e.db.SetMeta(fingerprinterMeta, edit(rec)); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if e, err = Open(dir, &o); err != nil {
			return dir, err
		}
		defer e.Close()
		if _, err := e.db.Meta(fingerprinterMeta); err != nil {
			t.Fatalf("no record after the open: %v", err)
		}
		return dir, nil
	}
	// No record: a store written before records were kept. Open takes
	// the engine's.
	if _, err := reopen(func([]byte) []byte { return nil }); err != nil {
		t.Fatalf("store without a record: %v", err)
	}
	// Another version of the default profile: same name and width, other
	// fingerprints.
	dir, err := reopen(func(rec []byte) []byte {
		var r fingerprinterRecord
		if err := json.Unmarshal(rec, &r); err != nil {
			t.Fatal(err)
		}
		r.Probes[0] = strings.Repeat("0", 16)
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
	if !errors.Is(err, ErrFingerprinterChanged) || !strings.Contains(err.Error(), dir+`: profile "default" at 64 bits makes other fingerprints now`) {
		t.Fatalf("another version: %v", err)
	}
	dir, err = reopen(func([]byte) []byte { return []byte("{") })
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "record of its fingerprinter is damaged") {
		t.Fatalf("damaged record: %v", err)
	}
	// The fifth probe has full stops between letters, which the
	// tokenizer came to end words at, and Arabic and Hebrew marks, which
	// the normalizer came to drop: its tokens are those of the rules.
	var toks []string
	analysis.Tokenize(analysis.Normalize(nil, []byte(probeTexts[4])), func(tok []byte) { toks = append(toks, string(tok)) })
	for _, want := range []string{"late", "the", "g", "بسم", "الله", "שלום"} {
		if !slices.Contains(toks, want) {
			t.Fatalf("the fifth probe's tokens %q lack %q", toks, want)
		}
	}
	// A record of the first three probes alone: written before the
	// fourth, which the normalizer's later changes alter.
	fewer := func(rec []byte) []byte {
		var r fingerprinterRecord
		if err := json.Unmarshal(rec, &r); err != nil {
			t.Fatal(err)
		}
		r.Probes = r.Probes[:3]
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if dir, err = reopen(fewer); !errors.Is(err, ErrFingerprinterChanged) || !strings.Contains(err.Error(), dir+`: profile "default" at 64 bits makes other fingerprints now`) {
		t.Fatalf("default profile, a record of fewer probes: %v", err)
	}
	// A store whose accents were folded before Cyrillic was: its
	// Russian texts with ё have other fingerprints now.
	o.Fingerprint = Config{Pipeline: &Pipeline{FoldAccents: true}}
	dir, err = reopen(func(rec []byte) []byte {
		return []byte(strings.Replace(string(rec), `,"fold_version":1`, "", 1))
	})
	if !errors.Is(err, ErrFingerprinterChanged) || !strings.Contains(err.Error(), dir+`: its documents were fingerprinted by profile "default" at 64 bits with pipeline FoldAccents=true (accents folded by an earlier version of neardup, Cyrillic left as it was), the engine's are by profile "default" at 64 bits with pipeline FoldAccents=true;`) {
		t.Fatalf("folded by an earlier version: %v", err)
	}
	if _, err := reopen(func(rec []byte) []byte { return rec }); err != nil {
		t.Fatalf("folded by this version: %v", err)
	}
	// A compatibility profile never changes: its record gains the probe.
	o.Fingerprint = Config{Profile: "classic"}
	if dir, err = reopen(fewer); err != nil {
		t.Fatalf("classic profile, a record of fewer probes: %v", err)
	}
	db, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var r fingerprinterRecord
	if b, err := db.Meta(fingerprinterMeta); err != nil || json.Unmarshal(b, &r) != nil || len(r.Probes) != len(probeTexts) {
		t.Fatalf("classic profile's record after the open: %d probes, %v; want %d", len(r.Probes), err, len(probeTexts))
	}
}

// TestStatsDescribeFingerprints checks that Stats names the profile, the
// width and both candidate distances at that width.
func TestStatsDescribeFingerprints(t *testing.T) {
	for _, c := range []struct {
		cfg       Config
		fp        Fingerprinter
		profile   string
		bits      int
		k, shortK int
	}{
		{Config{}, nil, "default", 64, 6, 10},
		{Config{Profile: "classic", Bits: 128}, nil, "classic", 128, 12, 20},
		{Config{}, wordSimHash{}, "", 64, 6, 10},
	} {
		o := memOptions(nil)
		o.Fingerprint, o.Fingerprinter = c.cfg, c.fp
		e := mustOpen(t, "", o)
		st := e.Stats()
		if st.Profile != c.profile || st.Bits != c.bits || st.K != c.k || st.ShortK != c.shortK {
			t.Errorf("%+v: profile %q, %d bits, k %d, short k %d; want %q, %d, %d, %d", c.cfg, st.Profile, st.Bits, st.K, st.ShortK, c.profile, c.bits, c.k, c.shortK)
		}
	}
}
