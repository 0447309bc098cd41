package server

import (
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup"
)

// TestPageProfileWidths checks that the page's profile menu offers every
// profile with the widths the library makes for it (data-widths), which
// its width menu follows.
func TestPageProfileWidths(t *testing.T) {
	page, err := fs.ReadFile(webRoot(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	opts := regexp.MustCompile(`<option value="([a-z-]+)" data-widths="([0-9 ]+)">`).FindAllStringSubmatch(string(page), -1)
	got := map[string]string{}
	for _, o := range opts {
		got[o[1]] = o[2]
	}
	want := map[string]string{}
	for _, name := range neardup.Profiles() {
		var widths []string
		for _, bits := range []int{64, 128} {
			fp, err := neardup.NewFingerprinter(neardup.Config{Profile: name, Bits: bits})
			if err == nil && !slices.Contains(widths, strconv.Itoa(fp.Bits())) {
				widths = append(widths, strconv.Itoa(fp.Bits()))
			}
		}
		want[name] = strings.Join(widths, " ")
	}
	if !maps.Equal(got, want) {
		t.Errorf("the page's profiles and widths: %v, the library's: %v", got, want)
	}
}
