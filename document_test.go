package neardup

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestResultJSON checks the wire form clients rely on: the fingerprint as
// hex, duplicate_of null for a new document, matches [] rather than null,
// and a round trip back to the same Result.
func TestResultJSON(t *testing.T) {
	r := Result{ID: "a", Fingerprint: FromUint64(0xc60082a388f2bae3), Inserted: true}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"fingerprint":"c60082a388f2bae3"`, `"duplicate_of":null`, `"matches":[]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Fingerprint != r.Fingerprint || back.ID != "a" || !back.Inserted {
		t.Fatalf("round trip: %+v", back)
	}
	if err := json.Unmarshal([]byte(`{"fingerprint":"zz"}`), &back); err == nil {
		t.Fatal("bad hex fingerprint accepted")
	}
	if err := json.Unmarshal([]byte(`{"fingerprint":""}`), &back); err != nil || back.Fingerprint.Bits() != 0 {
		t.Fatalf("empty fingerprint: %v, %v", back.Fingerprint, err)
	}
}

// TestFingerprintBit checks Bit on 64- and 128-bit fingerprints, and that
// it panics, as documented, for a bit the fingerprint does not have.
func TestFingerprintBit(t *testing.T) {
	f := FromUint64(1<<63 | 1)
	if !f.Bit(0) || f.Bit(1) || !f.Bit(63) {
		t.Errorf("bits 0, 1, 63 of %s", f)
	}
	g, err := ParseFingerprint("8000000000000000" + "0000000000000002")
	if err != nil {
		t.Fatal(err)
	}
	if !g.Bit(127) || !g.Bit(1) || g.Bit(0) || g.Bit(64) {
		t.Errorf("bits of %s", g)
	}
	for _, c := range []struct {
		f Fingerprint
		i int
	}{{f, 64}, {f, -1}, {g, 128}, {Fingerprint{}, 0}} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("Bit(%d) of a %d-bit fingerprint did not panic", c.i, c.f.Bits())
				}
			}()
			c.f.Bit(c.i)
		}()
	}
}
