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
