package neardup

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestQueryFingerprint checks lookups by fingerprint alone against a
// brute-force scan of what was stored, within and beyond the index's bound.
func TestQueryFingerprint(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	stored := map[string]uint64{}
	for i := range 300 {
		id := fmt.Sprint("d", i)
		res, err := e.Insert(ctx, Document{ID: id, Text: genText(r, 5+r.IntN(300))})
		if err != nil {
			t.Fatal(err)
		}
		stored[id] = res.Fingerprint.Uint64()
	}
	e.opts.MaxMatches = len(stored)
	for _, k := range []int{0, 2, 6, 20, 32} {
		for q := range 20 {
			fp := stored[fmt.Sprint("d", q)] ^ 1<<r.IntN(64) ^ 1<<r.IntN(64)
			ms, err := e.QueryFingerprint(ctx, FromUint64(fp), k)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, v := range stored {
				if bits.OnesCount64(v^fp) <= k {
					want++
				}
			}
			if len(ms) != want {
				t.Fatalf("k=%d query %d: %d matches, want %d", k, q, len(ms), want)
			}
			for i, m := range ms {
				if d := bits.OnesCount64(stored[m.ID] ^ fp); d != m.Distance || d > k {
					t.Fatalf("k=%d: %s at distance %d reported %d", k, m.ID, d, m.Distance)
				}
				if i > 0 && ms[i-1].Distance > m.Distance {
					t.Fatalf("k=%d: matches not nearest first: %v", k, ms)
				}
				if m.Duplicate != (m.Distance <= e.policy.Long.MaxDistance) {
					t.Fatalf("k=%d: %s duplicate %v at distance %d", k, m.ID, m.Duplicate, m.Distance)
				}
			}
		}
	}
	if _, err := e.QueryFingerprint(ctx, FromUint128(1, 2), 3); !errors.Is(err, ErrWidth) {
		t.Fatalf("128-bit query of a 64-bit engine: %v, want ErrWidth", err)
	}
	if err := e.Delete("d0"); err != nil {
		t.Fatal(err)
	}
	ms, err := e.QueryFingerprint(ctx, FromUint64(stored["d0"]), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.ID == "d0" {
			t.Fatal("deleted document returned")
		}
	}
}

// TestDropText checks that texts are kept unless DropText is set, also for
// a hand-built zero Options, since verification needs them.
func TestDropText(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		opts *Options
		want string
	}{
		{"zero options", &Options{InMemory: true}, "kept text"},
		{"defaults", memOptions(nil), "kept text"},
		{"drop", &Options{InMemory: true, DropText: true}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := mustOpen(t, "", tt.opts)
			if _, err := e.Insert(ctx, Document{ID: "a", Text: "kept text"}); err != nil {
				t.Fatal(err)
			}
			d, err := e.Get("a")
			if err != nil || d.Text != tt.want {
				t.Fatalf("Get: %q, %v; want %q", d.Text, err, tt.want)
			}
		})
	}
}
