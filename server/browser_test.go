package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/neardup/neardup"
	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/server"
)

// newBrowser starts Debian's headless Chromium for one test, in a fresh
// profile, and returns its context. It skips the test when Chromium is not
// installed (scripts/install-test-deps.sh installs it); it never downloads
// a browser.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (run scripts/install-test-deps.sh): skipping the browser test")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
	})
	// Start the browser now, without a deadline (a deadline on the first
	// call would bound the browser's life), so a failure to launch is
	// reported as such.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	ctx, cancel := context.WithTimeout(bctx, 45*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// setValue sets the value of the element with the given id, as pasting
// would (typing long texts key by key is slow).
func setValue(id, value string) chromedp.Action[chromedp.Void] {
	return script(fmt.Sprintf(`document.getElementById(%q).value = %s`, id, mustJSON(value)))
}

// choose selects value in the menu with the given id, as a person would:
// the menu's change handler runs.
func choose(id, value string) chromedp.Action[chromedp.Void] {
	return script(fmt.Sprintf(`(s => { s.value = %s; s.dispatchEvent(new Event("change")); })(document.getElementById(%q))`, mustJSON(value), id))
}

// script runs js in the page, its value unused.
func script(js string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[any](js)(ctx, t)
		return chromedp.Void{}, err
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// do runs browser steps and fails the test on error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// get runs one browser action and returns its value.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// comparePair returns the two texts the compare tests type and the API's
// comparison of them.
func comparePair(t *testing.T, c *client.Client) (a, b string, want client.Comparison) {
	t.Helper()
	a = "Near-duplicate detection finds web pages a crawler fetched twice, reposted news and copied answers."
	b = "Near duplicate detection finds pages that a crawler fetched twice, reposted news stories and copied answers!"
	want, err := c.Compare(context.Background(), a, b, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	return a, b, want
}

// startDistinctServer is startServer with a policy that tells apart texts
// whose numbers or words of negation differ (serve --distinct-numbers
// --distinct-negation), in the engine and the server alike.
func startDistinctServer(t *testing.T) (*httptest.Server, *client.Client) {
	t.Helper()
	p := neardup.DefaultPolicy()
	p.DistinctNumbers, p.DistinctNegation = true, true
	opts := neardup.DefaultOptions()
	opts.Policy = p
	return startServerOf(t, opts, server.Options{Policy: &p})
}

// TestBrowserCompare loads the page, types two texts, presses Compare and
// checks that the distance the page shows is the API's, and that the bit
// grids highlight exactly that many differing bits. The server tells
// apart texts whose numbers or words of negation differ, which the
// page's verdict explains.
func TestBrowserCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, c := startDistinctServer(t)
	ctx := newBrowser(t)
	a, b, want := comparePair(t, c)
	do(t, ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("compare-btn")),
		chromedp.SendKeys(chromedp.ID("text-a"), a),
		chromedp.SendKeys(chromedp.ID("text-b"), b),
		chromedp.Click(chromedp.ID("compare-btn")),
		chromedp.WaitVisible(chromedp.ID("compare-result")),
	)
	distance := get(t, ctx, chromedp.Text(chromedp.ID("distance")))
	verdict := get(t, ctx, chromedp.Text(chromedp.ID("verdict")))
	diffA := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#grid-a .cell.diff").length`))
	diffB := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#grid-b .cell.diff").length`))
	if distance != fmt.Sprint(want.Distance) {
		t.Errorf("page shows distance %q, API says %d", distance, want.Distance)
	}
	if diffA != want.Distance || diffB != want.Distance {
		t.Errorf("grids highlight %d and %d bits, want %d", diffA, diffB, want.Distance)
	}
	if wantVerdict := map[bool]string{true: "Near-duplicates", false: "Not near-duplicates"}[want.Duplicate]; verdict != wantVerdict {
		t.Errorf("verdict %q, want %q", verdict, wantVerdict)
	}
	// Why: the rule the API names, and what decided by its bound.
	why := get(t, ctx, chromedp.Text(chromedp.ID("verdict-why")))
	wantWhy := fmt.Sprintf("%d bits apart, more than its %d, so the texts are not compared", want.Distance, want.Rule.MaxDistance)
	if want.Distance <= want.Rule.MaxDistance {
		wantWhy = fmt.Sprintf("within its %d bits", want.Rule.MaxDistance)
	}
	if want.Rule.Name != "short" || !strings.HasPrefix(why, "Short-text rule") || !strings.Contains(why, wantWhy) {
		t.Errorf("why %q, want the short rule and %q (API: %+v)", why, wantWhy, want.Rule)
	}
	// Beyond the bound, the page says whether the measure would pass,
	// where a server could allow that distance (at most 32 bits of 64).
	if pass := want.Distance > want.Rule.MaxDistance && want.Distance <= 32 && want.Scores.Levenshtein >= want.Rule.MinSimilarity; pass != strings.Contains(why, "would pass") {
		t.Errorf("why %q: says the ratio would pass %v, want %v (API: %+v)", why, !pass, pass, want)
	}
	// That hint only for a distance a server can be given (--k and the
	// others take at most 32 bits per 64) and a profile it can run as its
	// own (serve --profile takes no nilsimsa).
	for _, h := range []struct {
		profile        string
		bits, distance int
		hint           bool
	}{
		{"default", 64, 32, true},
		{"default", 64, 33, false},
		{"py-simhash", 128, 64, true},
		{"classic", 128, 65, false},
		{"go-mfonda", 64, 20, true},
		{"nilsimsa", 256, 60, false},
	} {
		r := map[string]any{"profile": h.profile, "bits": h.bits, "distance": h.distance, "duplicate": false, "similarity": 0,
			"scores": map[string]any{"jaccard": 0.5, "cosine": 0.9, "levenshtein": 0.9},
			"rule":   map[string]any{"name": "short", "max_distance": 10 * h.bits / 64, "measure": "levenshtein", "min_similarity": 0.8}}
		why := get(t, ctx, chromedp.Evaluate[string](`ruleWhy(`+mustJSON(r)+`)`))
		if strings.Contains(why, "would pass") != h.hint {
			t.Errorf("%s at %d bits, %d bits apart: why %q, want the hint that a server could allow it %v", h.profile, h.bits, h.distance, why, h.hint)
		}
	}
	// No such hint for texts the server tells apart whatever the
	// distance: the page says why instead.
	far := map[string]any{"profile": "default", "bits": 64, "distance": 20, "duplicate": false, "similarity": 0,
		"scores": map[string]any{"jaccard": 0.5, "cosine": 0.9, "levenshtein": 0.9},
		"rule":   map[string]any{"name": "short", "max_distance": 10, "measure": "levenshtein", "min_similarity": 0.8, "told_apart_by": "numbers"}}
	if why := get(t, ctx, chromedp.Evaluate[string](`ruleWhy(`+mustJSON(far)+`)`)); strings.Contains(why, "a server allowing") ||
		!strings.HasSuffix(why, "would pass, but their numbers differ, and this server tells such texts apart (--distinct-numbers).") {
		t.Errorf("far pair told apart by its numbers: why %q, want the measure's pass and why they are no near-duplicates all the same", why)
	}

	// The server's switches, in its stats, read on or off.
	waitFor(t, ctx, `document.querySelector('#stats dd[data-stat="distinct_negation"]') !== null`, "the server's stats")
	if got := get(t, ctx, chromedp.Evaluate[[]string](`["distinct_numbers", "distinct_negation"].map(k => document.querySelector('#stats dd[data-stat="' + k + '"]').textContent)`)); !slices.Equal(got, []string{"on", "on"}) {
		t.Errorf("distinct_numbers and distinct_negation shown as %q, want on and on", got)
	}

	// Two texts of a few words are judged by the tiny rule, which the
	// page names.
	do(t, ctx,
		setValue("text-a", "the cat sat on the mat"),
		setValue("text-b", "the cat sat on a mat"),
		// Hidden, so that waiting for it waits for the new result.
		script(`document.getElementById("compare-result").hidden = true`),
		chromedp.Click(chromedp.ID("compare-btn")),
		chromedp.WaitVisible(chromedp.ID("compare-result")),
	)
	tinyWant, err := c.Compare(context.Background(), "the cat sat on the mat", "the cat sat on a mat", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	why = get(t, ctx, chromedp.Text(chromedp.ID("verdict-why")))
	if wantWhy := fmt.Sprintf("within its %d bits", tinyWant.Rule.MaxDistance); tinyWant.Rule.Name != "tiny" || !strings.HasPrefix(why, "Tiny-text rule") || !strings.Contains(why, wantWhy) {
		t.Errorf("why %q, want the tiny rule and %q (API: %+v)", why, wantWhy, tinyWant.Rule)
	}
	// Farther apart than the tiny rule's distance but one word apart:
	// compared all the same, and the page says so.
	oneA, oneB := "normal sized query alongside a huge one", "normal sized doc alongside a huge one"
	do(t, ctx,
		setValue("text-a", oneA),
		setValue("text-b", oneB),
		script(`document.getElementById("compare-result").hidden = true`),
		chromedp.Click(chromedp.ID("compare-btn")),
		chromedp.WaitVisible(chromedp.ID("compare-result")),
	)
	oneWant, err := c.Compare(context.Background(), oneA, oneB, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	why = get(t, ctx, chromedp.Text(chromedp.ID("verdict-why")))
	verdict = get(t, ctx, chromedp.Text(chromedp.ID("verdict")))
	if !oneWant.Rule.OneWordApart || !oneWant.Duplicate || oneWant.Distance <= oneWant.Rule.MaxDistance {
		t.Fatalf("the API's comparison of a pair one word apart: %+v; want a duplicate beyond the tiny rule's distance", oneWant)
	}
	if verdict != "Near-duplicates" || !strings.Contains(why, "but one word apart, so compared all the same") || strings.Contains(why, "not compared") {
		t.Errorf("one word apart: verdict %q, why %q; want near-duplicates compared all the same", verdict, why)
	}

	// Texts the measure passes but the server tells apart: their numbers,
	// or their words of negation, differ. The page says the measure passed
	// and why they are not near-duplicates all the same.
	for _, pair := range []struct{ a, b, why string }{
		{"Your verification code is 123456, do not share it with anyone", "Your verification code is 987654, do not share it with anyone",
			"but their numbers differ, and this server tells such texts apart (--distinct-numbers)."},
		{"The patient is allergic to penicillin and to nuts", "The patient is not allergic to penicillin and to nuts",
			"but their words of negation differ, and this server tells such texts apart (--distinct-negation)."},
	} {
		do(t, ctx,
			setValue("text-a", pair.a),
			setValue("text-b", pair.b),
			script(`document.getElementById("compare-result").hidden = true`),
			chromedp.Click(chromedp.ID("compare-btn")),
			chromedp.WaitVisible(chromedp.ID("compare-result")),
		)
		api, err := c.Compare(context.Background(), pair.a, pair.b, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if api.Rule.ToldApartBy == "" || api.Duplicate {
			t.Fatalf("the API's comparison of %q and %q: %+v; want a pair told apart", pair.a, pair.b, api)
		}
		why, verdict := get(t, ctx, chromedp.Text(chromedp.ID("verdict-why"))), get(t, ctx, chromedp.Text(chromedp.ID("verdict")))
		passed := fmt.Sprintf("is at least %.1f%%, %s", 100*api.Rule.MinSimilarity, pair.why)
		if verdict != "Not near-duplicates" || !strings.HasSuffix(why, passed) || strings.Contains(why, "under") {
			t.Errorf("%q and %q: verdict %q, why %q; want not near-duplicates and %q (API: %+v)", pair.a, pair.b, verdict, why, passed, api.Rule)
		}
	}
	do(t, ctx, setValue("text-a", a), setValue("text-b", b))

	// An empty text gets a clear message, not a broken page.
	do(t, ctx,
		setValue("text-b", ""),
		chromedp.Click(chromedp.ID("compare-btn")),
		chromedp.WaitVisible(chromedp.ID("compare-error")),
	)
	msg := get(t, ctx, chromedp.Text(chromedp.ID("compare-error")))
	if !strings.Contains(msg, "both") {
		t.Errorf("error message for an empty text: %q", msg)
	}
	// The last result is not the answer for these texts: it goes.
	if get(t, ctx, chromedp.Evaluate[bool](`!document.getElementById("compare-result").hidden`)) {
		t.Error("the result of the texts before stays on the page under the error")
	}

	// A profile of one width shows it and offers no other; the server
	// takes the comparison.
	do(t, ctx,
		setValue("text-b", b),
		choose("profile", "nilsimsa"),
		chromedp.Click(chromedp.ID("compare-btn")),
		chromedp.WaitVisible(chromedp.ID("compare-result")),
	)
	if got := get(t, ctx, chromedp.Evaluate[string](`(s => s.disabled + " " + s.options[s.selectedIndex].textContent)(document.getElementById("bits"))`)); got != "true 256 bits" {
		t.Errorf("width menu with nilsimsa: %q, want disabled at 256 bits", got)
	}
	if w := get(t, ctx, chromedp.Text(chromedp.ID("width"))); w != "256" {
		t.Errorf("nilsimsa comparison shows %q bits, want 256", w)
	}
	do(t, ctx,
		choose("profile", "default"),
	)
	if got := get(t, ctx, chromedp.Evaluate[string](`(s => s.disabled + " " + [...s.options].filter(o => !o.disabled).length)(document.getElementById("bits"))`)); got != "false 3" {
		t.Errorf("width menu with the default profile: %q, want enabled with its 3 choices", got)
	}
}

// TestBrowserAddAndCheck adds a document through the page, then checks a
// near-copy and expects the page to list the first as its match.
func TestBrowserAddAndCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, c := startServer(t)
	ctx := newBrowser(t)
	text := longText(1, 120)
	nearCopy := strings.ToUpper(text[:1]) + strings.ReplaceAll(text[1:], " ", "  ")
	do(t, ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("add-btn")),
		setValue("doc-text", text),
		chromedp.SendKeys(chromedp.ID("doc-id"), "first"),
		chromedp.Click(chromedp.ID("add-btn")),
	)
	get(t, ctx, chromedp.Poll[chromedp.Void](`!document.getElementById("doc-result").hidden || !document.getElementById("doc-error").hidden`))
	if msg := get(t, ctx, chromedp.Evaluate[string](`document.getElementById("doc-error").textContent`)); msg != "" {
		t.Fatalf("adding failed: %s", msg)
	}
	added := get(t, ctx, chromedp.Text(chromedp.ID("doc-verdict")))
	if added != "New: stored as first." {
		t.Fatalf("after adding: %q", added)
	}
	// noMatches is the line that says no match was found, or "" when hidden.
	const noMatches = `(e => e.hidden ? "" : e.textContent)(document.getElementById("no-matches"))`
	if got := get(t, ctx, chromedp.Evaluate[string](noMatches)); got != "No stored document is a near-duplicate of this one." {
		t.Errorf("after adding a document with no match: %q", got)
	}
	if _, err := c.Get(context.Background(), "first"); err != nil {
		t.Fatalf("the page's document is not stored: %v", err)
	}
	// Pressing Add again stores nothing, and says so.
	do(t, ctx, chromedp.Click(chromedp.ID("add-btn")))
	const again = "Already stored as first with this text; nothing added."
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.getElementById("doc-verdict").textContent === `+mustJSON(again))); err != nil {
		t.Errorf("after adding the same document again: %q, want %q", get(t, ctx, chromedp.Text(chromedp.ID("doc-verdict"))), again)
	}
	// A repeat is not checked against the store: no word of matches.
	if got := get(t, ctx, chromedp.Evaluate[string](noMatches)); got != "" {
		t.Errorf("after adding the same document again, the page says %q", got)
	}
	do(t, ctx,
		setValue("doc-text", nearCopy),
		setValue("doc-id", ""),
		chromedp.Click(chromedp.ID("check-btn")),
		chromedp.WaitVisible(chromedp.CSS(`#matches tbody tr[data-id="first"]`)),
	)
	checked := get(t, ctx, chromedp.Text(chromedp.ID("doc-verdict")))
	row := get(t, ctx, chromedp.Text(chromedp.CSS(`#matches tbody tr[data-id="first"] td .match-id`)))
	if !regexp.MustCompile(`^Would be a duplicate of first \(distance [0-9]+, similarity [0-9.]+%\)\.$`).MatchString(checked) || row != "first" {
		t.Errorf("after checking a near-copy: verdict %q, match %q", checked, row)
	}
	// Check only asks about the id given too: another text under "first"
	// would be refused, and first's own text is stored already.
	verdict := `(e => e.hidden ? "" : document.getElementById("doc-verdict").textContent)(document.getElementById("doc-result"))`
	for _, c := range []struct{ text, want string }{
		{longText(2, 120), "Would be new. Adding it would be refused: the id first is stored with another text."},
		{text, "Already stored as first with this text: adding it would add nothing."},
	} {
		do(t, ctx,
			setValue("doc-text", c.text),
			setValue("doc-id", "first"),
			script(`document.getElementById("doc-result").hidden = true`),
			chromedp.Click(chromedp.ID("check-btn")),
		)
		waitFor(t, ctx, `!document.getElementById("doc-result").hidden || !document.getElementById("doc-error").hidden`, "the answer of Check only with an id")
		if got := get(t, ctx, chromedp.Evaluate[string](verdict)); got != c.want {
			t.Errorf("Check only of %.30q under the id first: %q, want %q", c.text, got, c.want)
		}
	}
	// Another text under a stored id is refused; the verdict before is
	// not this text's, so it goes.
	do(t, ctx,
		setValue("doc-text", longText(2, 120)),
		setValue("doc-id", "first"),
		chromedp.Click(chromedp.ID("add-btn")),
		chromedp.WaitVisible(chromedp.ID("doc-error")),
	)
	if msg, shown := get(t, ctx, chromedp.Text(chromedp.ID("doc-error"))), get(t, ctx, chromedp.Evaluate[bool](`!document.getElementById("doc-result").hidden`)); !strings.Contains(msg, "another text") || shown {
		t.Errorf("adding another text under a stored id: error %q, result of the text before still shown: %v", msg, shown)
	}
	// Stats on the page show the one stored document. The page drew its
	// stats when it loaded, before the document was added; the click draws
	// them again in new nodes, so the count is read by script, not from a
	// node found before.
	do(t, ctx, chromedp.Click(chromedp.ID("stats-btn")))
	const count = `document.querySelector('#stats dd[data-stat="documents"]')?.textContent ?? ""`
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(pctx, chromedp.Poll[chromedp.Void]("("+count+`) === "1"`)); err != nil {
		t.Errorf("page shows %q documents, want 1 (%v)", get(t, ctx, chromedp.Evaluate[string](count)), err)
	}
	// Sizes and durations read in their units, the exact figure in the
	// title: "store size 2.9 KiB", "retention 2 d".
	stat := func(key string) (label, text, title string) {
		js := `(() => { const dd = document.querySelector('#stats dd[data-stat="` + key + `"]');
			return dd ? [dd.previousElementSibling.textContent, dd.textContent, dd.title] : []; })()`
		v := get(t, ctx, chromedp.Evaluate[[]string](js))
		if len(v) != 3 {
			t.Fatalf("no stat %s on the page", key)
		}
		return v[0], v[1], v[2]
	}
	if label, text, title := stat("store_bytes"); label != "store size" || !regexp.MustCompile(`^[0-9]+(\.[0-9])? (B|KiB|MiB)$`).MatchString(text) || !regexp.MustCompile(`^[0-9]+$`).MatchString(title) {
		t.Errorf("store size shown as %q %q (title %q)", label, text, title)
	}
	if label, text, title := stat("index_bytes"); label != "index memory" || !regexp.MustCompile(`^[0-9]+(\.[0-9])? (B|KiB|MiB)$`).MatchString(text) || !regexp.MustCompile(`^[0-9]+$`).MatchString(title) {
		t.Errorf("index memory shown as %q %q (title %q)", label, text, title)
	}
	// The compare form names the server's profile and width.
	if got := get(t, ctx, chromedp.Evaluate[string](`$("profile").options[0].textContent + " / " + $("bits").options[0].textContent`)); got != "server's: default / server's: 64 bits" {
		t.Errorf("compare form's server choices: %q", got)
	}
	if label, text, title := stat("retention_seconds"); label != "retention" || text != "2 d" || title != "172800" {
		t.Errorf("retention shown as %q %q (title %q), want retention 2 d (172800)", label, text, title)
	}
	// Counters start again with the server, which their labels say.
	for key, want := range map[string]string{"checks": "checks since the server started", "rejected": "candidates turned down since the server started"} {
		if label, _, _ := stat(key); label != want {
			t.Errorf("stat %s labelled %q, want %q", key, label, want)
		}
	}
	// The tiny rule's distance and length, named.
	if label, text, _ := stat("tiny_k"); label != "distance, tiny texts" || text != "14 bits" {
		t.Errorf("tiny rule's distance shown as %q %q, want distance, tiny texts 14 bits", label, text)
	}
	if label, text, _ := stat("tiny_length"); label != "tiny texts, under" || text != "64 characters" {
		t.Errorf("tiny length shown as %q %q, want tiny texts, under 64 characters", label, text)
	}
	if label, text, _ := stat("tiny_words"); label != "one word apart, tiny texts of up to" || text != "12 words" {
		t.Errorf("tiny words shown as %q %q, want one word apart, tiny texts of up to 12 words", label, text)
	}
	// A server run with --tiny-length 0 has no tiny rule; one bit is one.
	if got := get(t, ctx, chromedp.Evaluate[string](`formatStat("tiny_length", 0) + " / " + formatStat("short_k", 1)`)); got != "off / 1 bit" {
		t.Errorf("tiny length 0 and a distance of 1 shown as %q, want off / 1 bit", got)
	}
	// A switch of the policy reads on or off, a state yes or no.
	if got := get(t, ctx, chromedp.Evaluate[string](`["distinct_numbers", "distinct_negation", "disk_full"].map((k, i) => formatStat(k, i !== 1)).join(" / ")`)); got != "on / off / yes" {
		t.Errorf("distinct_numbers true, distinct_negation false and disk_full true shown as %q, want on / off / yes", got)
	}
}

// TestBrowserScoresNotComputed checks that the page shows the scores a
// server run with --scores rule did not compute as "not computed", with a
// title that says why, rather than 0%, which reads as "not similar at
// all"; the score of the policy's measure shows as a percentage.
func TestBrowserScoresNotComputed(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, c := startServerWith(t, true)
	// A short text: the policy decides by the Levenshtein ratio ("Edit").
	text := "The river flooded the old town overnight and the bridge closed."
	if _, err := c.CheckAndInsert(context.Background(), client.Document{ID: "first", Text: text}); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)
	do(t, ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("check-btn")),
		setValue("doc-text", strings.Replace(text, "old", "ancient", 1)),
		chromedp.Click(chromedp.ID("check-btn")),
		chromedp.WaitVisible(chromedp.CSS(`#matches tbody tr[data-id="first"]`)),
	)
	cells := get(t, ctx, chromedp.Evaluate[[][]string](`[...document.querySelectorAll('#matches tbody tr[data-id="first"] td[data-label]')].map(td => [td.dataset.label, td.textContent, td.title])`))
	if len(cells) != 6 {
		t.Fatalf("match row %q, want 6 cells", cells)
	}
	for _, c := range cells[3:5] {
		if c[1] != "not computed" || !strings.Contains(c[2], "--scores rule") {
			t.Errorf("%s cell %q (title %q), want not computed, with a title naming --scores rule", c[0], c[1], c[2])
		}
	}
	if edit := cells[5]; !regexp.MustCompile(`^[0-9.]+%$`).MatchString(edit[1]) || edit[1] != cells[2][1] {
		t.Errorf("%s cell %q, want the similarity %q the policy decided by", edit[0], edit[1], cells[2][1])
	}
}

// TestBrowserPhone uses the page on a phone's screen (390 by 844 CSS
// pixels, touch, portrait): nothing is wider than the screen, so nothing
// needs a sideways scroll; the two texts stand one above the other; the
// buttons are tall enough to tap; and tapping Compare, then Add and Check,
// work as they do on a desktop.
func TestBrowserPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, c := startServer(t)
	ctx := newBrowser(t)
	a, b, want := comparePair(t, c)
	do(t, ctx,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3), chromedp.EmulatePortrait, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("compare-btn")),
		setValue("text-a", a),
		setValue("text-b", b),
		chromedp.Tap(chromedp.ID("compare-btn")),
		chromedp.WaitVisible(chromedp.ID("compare-result")),
	)
	if d := get(t, ctx, chromedp.Text(chromedp.ID("distance"))); d != fmt.Sprint(want.Distance) {
		t.Errorf("page shows distance %q, API says %d", d, want.Distance)
	}
	// fits lists what sticks out of the phone's 390 pixels sideways, or is
	// too short to tap (buttons, links, text boxes and menus under 44 CSS
	// pixels, the size WCAG 2.5.5 asks for), among the visible elements.
	// (A mobile browser widens the page's layout to what sticks out, so
	// window.innerWidth is no measure.)
	const fits = `(() => {
		const w = 390, bad = [];
		if (document.documentElement.scrollWidth > w) bad.push("page " + document.documentElement.scrollWidth + "px wide");
		for (const el of document.querySelectorAll("body *")) {
			const r = el.getBoundingClientRect();
			if (r.width === 0 && r.height === 0) continue;
			const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "");
			if (r.left < -0.5 || r.right > w + 0.5) bad.push(name + " spans " + Math.round(r.left) + "-" + Math.round(r.right) + "px");
			if (["BUTTON", "A", "INPUT", "SELECT"].includes(el.tagName) && r.height < 43.5) bad.push(name + " " + Math.round(r.height) + "px tall");
		}
		return bad.slice(0, 10).join("; ");
	})()`
	if bad := get(t, ctx, chromedp.Evaluate[string](fits)); bad != "" {
		t.Errorf("after Compare, on a phone: %s", bad)
	}
	stacked := get(t, ctx, chromedp.Evaluate[bool](`document.getElementById("text-b").getBoundingClientRect().top >= document.getElementById("text-a").getBoundingClientRect().bottom`))
	if !stacked {
		t.Error("the two texts stand side by side on a phone, want one above the other")
	}

	// An id with nowhere to break a line, such as a content hash.
	const id = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	text := longText(3, 120)
	do(t, ctx,
		setValue("doc-text", text),
		setValue("doc-id", id),
		chromedp.Tap(chromedp.ID("add-btn")),
		chromedp.WaitVisible(chromedp.ID("doc-result")),
		setValue("doc-text", strings.ToUpper(text[:1])+text[1:]),
		chromedp.Tap(chromedp.ID("check-btn")),
		chromedp.WaitVisible(chromedp.CSS(`#matches tbody tr[data-id="`+id+`"]`)),
	)
	if bad := get(t, ctx, chromedp.Evaluate[string](fits)); bad != "" {
		t.Errorf("after Add and Check, on a phone: %s", bad)
	}
	// The list of stored documents shows that id too.
	do(t, ctx,
		chromedp.Tap(chromedp.ID("list-btn")),
		chromedp.WaitVisible(chromedp.CSS(`#stored tbody tr[data-id="`+id+`"]`)),
	)
	if bad := get(t, ctx, chromedp.Evaluate[string](fits)); bad != "" {
		t.Errorf("with the stored documents listed, on a phone: %s", bad)
	}
}

// failedEngine is an engine whose store failed: it reports the failure in
// its stats and refuses writes, as neardup.Engine does after a failed
// store write.
type failedEngine struct{ server.Engine }

const failedMessage = "neardup: store write failed, engine stopped: write texts/0000000001.log: no space left on device"

func (f failedEngine) Stats() neardup.Stats {
	s := f.Engine.Stats()
	s.Failure = failedMessage
	return s
}

func (f failedEngine) CheckAndInsert(context.Context, neardup.Document) (neardup.Result, error) {
	return neardup.Result{}, fmt.Errorf("%w: no space left on device", neardup.ErrStoreFailed)
}

// TestBrowserStoreFailed loads the page from a server whose store failed:
// the badge says so (not "starting"), with the store's error as its
// title, and adding a document shows the error instead of a result.
func TestBrowserStoreFailed(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	opts := neardup.DefaultOptions()
	opts.InMemory = true
	e, err := neardup.Open("", &opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(failedEngine{e})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	ctx := newBrowser(t)
	do(t, ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("add-btn")),
	)
	get(t, ctx, chromedp.Poll[chromedp.Void](`document.getElementById("ready").textContent !== "…"`))
	if badge := get(t, ctx, chromedp.Text(chromedp.ID("ready"))); badge != "store failed" {
		t.Errorf("badge %q, want %q", badge, "store failed")
	}
	if title := get(t, ctx, chromedp.Evaluate[string](`document.getElementById("ready").title`)); title != failedMessage {
		t.Errorf("badge title %q, want the store's error", title)
	}
	do(t, ctx,
		setValue("doc-text", longText(5, 40)),
		chromedp.Click(chromedp.ID("add-btn")),
		chromedp.WaitVisible(chromedp.ID("doc-error")),
	)
	if msg := get(t, ctx, chromedp.Text(chromedp.ID("doc-error"))); !strings.Contains(msg, "no space left on device") {
		t.Errorf("error shown after adding: %q", msg)
	}
}

// steeredServer is startServer's server behind a handler a test steers: a
// request whose method and path ("POST /v1/compare") have a hook goes to
// the hook instead of the server.
type steeredServer struct {
	*httptest.Server
	next  http.Handler
	mu    sync.Mutex
	hooks map[string]http.HandlerFunc
	done  chan struct{} // closed when the test ends: held requests go on
}

func startSteeredServer(t *testing.T, o server.Options) (*steeredServer, *client.Client) {
	t.Helper()
	e := openMemEngine(t)
	s, err := server.New(o)
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(e)
	ss := &steeredServer{next: s.Handler(), hooks: map[string]http.HandlerFunc{}, done: make(chan struct{})}
	ss.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ss.mu.Lock()
		h := ss.hooks[r.Method+" "+r.URL.Path]
		ss.mu.Unlock()
		if h == nil {
			h = ss.next.ServeHTTP
		}
		h(w, r)
	}))
	t.Cleanup(func() {
		ss.Close()
		e.Close()
	})
	t.Cleanup(func() { close(ss.done) }) // before Close, which waits for held requests
	return ss, client.New(ss.URL, ss.Client())
}

// hook sends the requests of route to h, or to the server again when h is
// nil.
func (ss *steeredServer) hook(route string, h http.HandlerFunc) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if h == nil {
		delete(ss.hooks, route)
	} else {
		ss.hooks[route] = h
	}
}

// hold keeps the requests of route from the server until the returned
// function is called (or the client gives up), then serves them.
func (ss *steeredServer) hold(route string) (release func()) {
	ch := make(chan struct{})
	ss.hook(route, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-ch:
		case <-ss.done:
		case <-r.Context().Done():
			return
		}
		ss.next.ServeHTTP(w, r)
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			ss.hook(route, nil)
			close(ch)
		})
	}
}

// answerError answers as the server does with an error.
func answerError(status int, code, message string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"code":%q,"message":%q}}`, code, message)
	}
}

// waitFor waits up to 10 s for the JavaScript expression js to be true,
// and fails the test if it does not become so.
func waitFor(t *testing.T, ctx context.Context, js, what string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// shown tells whether the element with the given id is shown.
func shown(id string) chromedp.Action[bool] {
	return chromedp.Evaluate[bool](fmt.Sprintf(`!document.getElementById(%q).hidden`, id))
}

// steeredComparePage opens the page of a steered server in a browser, with
// two near texts, a and b, typed into the compare form.
func steeredComparePage(t *testing.T) (srv *steeredServer, ctx context.Context, a, b string) {
	t.Helper()
	srv, c := startSteeredServer(t, server.Options{})
	ctx = newBrowser(t)
	a, b, _ = comparePair(t, c)
	do(t, ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("compare-btn")),
		setValue("text-a", a),
		setValue("text-b", b),
	)
	return srv, ctx, a, b
}

// TestBrowserStaleResult changes a form's inputs after its result, and
// while its request is on its way: the result of the inputs before is not
// shown as the answer for the inputs now.
func TestBrowserStaleResult(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, ctx, _, _ := steeredComparePage(t)
	for _, change := range []struct {
		what string
		step chromedp.Action[chromedp.Void]
	}{
		{"typing into Text A", chromedp.SendKeys(chromedp.ID("text-a"), " Again.")},
		{"typing into Text B", chromedp.SendKeys(chromedp.ID("text-b"), " Again.")},
		{"choosing another profile", choose("profile", "classic")},
		{"choosing another width", choose("bits", "128")},
	} {
		do(t, ctx,
			chromedp.Click(chromedp.ID("compare-btn")),
			chromedp.WaitVisible(chromedp.ID("compare-result")),
			change.step,
		)
		if get(t, ctx, shown("compare-result")) {
			t.Errorf("after %s, the result of the texts before is still shown", change.what)
		}
	}
	// An answer that comes after the texts changed is not shown as theirs.
	release := srv.hold("POST /v1/compare")
	do(t, ctx, chromedp.Click(chromedp.ID("compare-btn")))
	waitFor(t, ctx, `document.getElementById("compare-btn").disabled`, "Compare pressed")
	do(t, ctx, chromedp.SendKeys(chromedp.ID("text-b"), " Once more."))
	release()
	waitFor(t, ctx, `!document.getElementById("compare-btn").disabled`, "the held comparison answered")
	if get(t, ctx, shown("compare-result")) || !get(t, ctx, shown("compare-note")) {
		t.Errorf("the answer for texts changed while it came: result shown %v, note %q", get(t, ctx, shown("compare-result")), get(t, ctx, chromedp.Evaluate[string](`document.getElementById("compare-note").textContent`)))
	}

	// The same in Check or add: the text, then the id.
	do(t, ctx, setValue("doc-text", longText(7, 60)))
	for _, change := range []struct {
		what string
		step chromedp.Action[chromedp.Void]
	}{
		{"typing into the text", chromedp.SendKeys(chromedp.ID("doc-text"), " more")},
		{"typing an id", chromedp.SendKeys(chromedp.ID("doc-id"), "seven")},
	} {
		do(t, ctx,
			chromedp.Click(chromedp.ID("check-btn")),
			chromedp.WaitVisible(chromedp.ID("doc-result")),
			change.step,
		)
		if get(t, ctx, shown("doc-result")) {
			t.Errorf("after %s, the result of the document before is still shown", change.what)
		}
	}
	// A document added while its text changed is stored all the same: the
	// page says so, but not as the answer for the text it holds now.
	release = srv.hold("POST /v1/documents")
	do(t, ctx, chromedp.Click(chromedp.ID("add-btn")))
	waitFor(t, ctx, `document.getElementById("add-btn").disabled`, "Check and add pressed")
	do(t, ctx, chromedp.SendKeys(chromedp.ID("doc-text"), " and more"))
	release()
	waitFor(t, ctx, `!document.getElementById("add-btn").disabled`, "the held document answered")
	note := get(t, ctx, chromedp.Evaluate[string](`document.getElementById("doc-note").hidden ? "" : document.getElementById("doc-note").textContent`))
	if get(t, ctx, shown("doc-result")) || !strings.Contains(note, "New: stored as seven.") {
		t.Errorf("the answer for a text changed while it came: result shown %v, note %q", get(t, ctx, shown("doc-result")), note)
	}
	// A document refused while its text changed: the refusal is shown,
	// not hidden behind a note that the text changed.
	refuse := make(chan struct{})
	srv.hook("POST /v1/documents", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-refuse:
		case <-srv.done:
		}
		answerError(413, "body_too_large", "request body too large: more than 4194304 bytes")(w, r)
	})
	do(t, ctx, chromedp.Click(chromedp.ID("add-btn")))
	waitFor(t, ctx, `document.getElementById("add-btn").disabled`, "Check and add pressed")
	do(t, ctx, chromedp.SendKeys(chromedp.ID("doc-text"), " and still more"))
	close(refuse)
	waitFor(t, ctx, `!document.getElementById("add-btn").disabled`, "the refused document answered")
	refusal := get(t, ctx, chromedp.Evaluate[string](`document.getElementById("doc-error").hidden ? "" : document.getElementById("doc-error").firstChild.textContent`))
	if refusal != "The text is too long for this server (at most 4 MiB)." || get(t, ctx, shown("doc-result")) {
		t.Errorf("a document refused while its text changed: error %q, result shown %v; want the refusal", refusal, get(t, ctx, shown("doc-result")))
	}
}

// TestBrowserFocusAndBusy presses each button with the keyboard: while its
// request is on its way the button says so and its result is marked busy,
// the section's last error goes at once, and the focus is on the button
// again when the answer came. A server that does not answer within the
// page's wait gets a message that says so.
func TestBrowserFocusAndBusy(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, ctx, _, b := steeredComparePage(t)
	do(t, ctx, setValue("doc-text", longText(8, 60)))
	for _, btn := range []string{"compare-btn", "check-btn", "add-btn", "stats-btn"} {
		do(t, ctx, chromedp.Focus(chromedp.ID(btn)), chromedp.KeyEvent(kb.Enter))
		waitFor(t, ctx, `!document.getElementById("`+btn+`").disabled`, "the request of "+btn)
		if got := get(t, ctx, chromedp.Evaluate[string](`document.activeElement.tagName + "#" + document.activeElement.id`)); got != "BUTTON#"+btn {
			t.Errorf("after Enter on %s, the focus is on %s", btn, got)
		}
	}

	do(t, ctx,
		setValue("text-b", ""),
		chromedp.Click(chromedp.ID("compare-btn")),
		chromedp.WaitVisible(chromedp.ID("compare-error")),
	)
	release := srv.hold("POST /v1/compare")
	defer release()
	do(t, ctx,
		setValue("text-b", b),
		script(`waits.request = 1000`),
		chromedp.Click(chromedp.ID("compare-btn")),
	)
	const state = `(() => { const b = document.getElementById("compare-btn");
		return [b.textContent, String(b.disabled), String(document.getElementById("compare-result").getAttribute("aria-busy")), String(document.getElementById("compare-error").hidden)].join(" / "); })()`
	if got, want := get(t, ctx, chromedp.Evaluate[string](state)), "Comparing… / true / true / true"; got != want {
		t.Errorf("while comparing: %q (button, disabled, result busy, error hidden), want %q", got, want)
	}
	waitFor(t, ctx, `!document.getElementById("compare-error").hidden`, "a message when the server does not answer")
	if msg := get(t, ctx, chromedp.Text(chromedp.ID("compare-error"))); msg != "The server did not answer within 1 s." {
		t.Errorf("when the server does not answer: %q", msg)
	}
	if got, want := get(t, ctx, chromedp.Evaluate[string](state)), "Compare / false / null / false"; got != want {
		t.Errorf("after the server did not answer: %q (button, disabled, result busy, error hidden), want %q", got, want)
	}
}

// TestBrowserErrorWording checks that errors read in the page's words: a
// text too long for the server, a busy server, a server not reached.
func TestBrowserErrorWording(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, _ := startSteeredServer(t, server.Options{MaxBody: 1 << 20})
	ctx := newBrowser(t)
	// message is the error's own words, without the code after them.
	const message = `document.getElementById("%s").firstChild?.textContent ?? ""`
	do(t, ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("compare-btn")),
		setValue("text-a", strings.Repeat("many words ", 100_000)),
		setValue("text-b", "a few words"),
		chromedp.Click(chromedp.ID("compare-btn")),
		chromedp.WaitVisible(chromedp.ID("compare-error")),
	)
	if msg := get(t, ctx, chromedp.Evaluate[string](fmt.Sprintf(message, "compare-error"))); msg != "The text is too long for this server (at most 1 MiB)." {
		t.Errorf("a text too long: %q", msg)
	}
	// A text of zero-width spaces alone: no visible characters, which
	// the page says in its own words.
	for _, btn := range []string{"add-btn", "check-btn"} {
		do(t, ctx,
			setValue("doc-text", "\u200b\u200b\u200b"),
			script(`document.getElementById("doc-error").hidden = true`),
			chromedp.Click(chromedp.ID(btn)),
			chromedp.WaitVisible(chromedp.ID("doc-error")),
		)
		if msg := get(t, ctx, chromedp.Evaluate[string](fmt.Sprintf(message, "doc-error"))); msg != "The text has no visible characters." {
			t.Errorf("%s of zero-width spaces: %q", btn, msg)
		}
	}
	srv.hook("POST /v1/query", answerError(429, "overloaded", "too many requests in progress; retry shortly"))
	do(t, ctx,
		setValue("doc-text", "a document"),
		chromedp.Click(chromedp.ID("check-btn")),
		chromedp.WaitVisible(chromedp.ID("doc-error")),
	)
	if msg := get(t, ctx, chromedp.Evaluate[string](fmt.Sprintf(message, "doc-error"))); msg != "The server is busy; try again in a moment." {
		t.Errorf("a busy server: %q", msg)
	}
	srv.Close()
	do(t, ctx,
		setValue("text-a", "a few other words"),
		chromedp.Click(chromedp.ID("compare-btn")),
	)
	waitFor(t, ctx, `document.getElementById("compare-error").textContent !== "" && !document.getElementById("compare-btn").disabled`, "an error when the server is gone")
	if msg := get(t, ctx, chromedp.Text(chromedp.ID("compare-error"))); msg != "The server cannot be reached." {
		t.Errorf("a server not reached: %q", msg)
	}
}

// TestBrowserRecovers loads the page while the server cannot give its
// stats for a moment: the page asks again and shows them. Then the server
// is not ready for a while: once it is again, the errors of not reaching
// it go and the stats are shown again, without a click.
func TestBrowserRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, _ := startSteeredServer(t, server.Options{})
	var refused atomic.Int32
	starting := answerError(503, "unavailable", "the server is starting; retry shortly")
	srv.hook("GET /v1/stats", func(w http.ResponseWriter, r *http.Request) {
		if refused.Add(1) <= 2 {
			starting(w, r)
			return
		}
		srv.next.ServeHTTP(w, r)
	})
	ctx := newBrowser(t)
	do(t, ctx, chromedp.Navigate(srv.URL+"/"))
	waitFor(t, ctx, `document.querySelector('#stats dd[data-stat="documents"]') !== null`, "stats shown after the server could give them")
	if got := get(t, ctx, chromedp.Evaluate[string](`String(document.getElementById("stats-error").hidden) + " " + document.getElementById("profile").options[0].textContent`)); got != "true server's: default" {
		t.Errorf("after the stats came: %q (stats error hidden, first profile choice)", got)
	}

	srv.hook("GET /readyz", starting)
	srv.hook("GET /v1/stats", starting)
	srv.hook("POST /v1/compare", starting)
	do(t, ctx,
		script(`waits.readyPoll = 300; waits.readyEvery = 300`),
		setValue("text-a", "some words"),
		setValue("text-b", "some other words"),
		chromedp.Click(chromedp.ID("compare-btn")),
		chromedp.WaitVisible(chromedp.ID("compare-error")),
		chromedp.Click(chromedp.ID("stats-btn")),
		chromedp.WaitVisible(chromedp.ID("stats-error")),
	)
	waitFor(t, ctx, `document.getElementById("ready").textContent === "not ready"`, "badge of a server not ready")
	for _, route := range []string{"GET /readyz", "GET /v1/stats", "POST /v1/compare"} {
		srv.hook(route, nil)
	}
	waitFor(t, ctx, `document.getElementById("ready").textContent === "ready"`, "badge of the server ready again")
	waitFor(t, ctx, `document.getElementById("compare-error").hidden && document.getElementById("stats-error").hidden && !document.getElementById("stats").hidden`,
		"errors gone and stats shown once the server is ready again")

	// The page goes on asking while the server is ready: the badge
	// follows a server that stops being ready, without a click.
	srv.hook("GET /readyz", starting)
	waitFor(t, ctx, `document.getElementById("ready").textContent === "not ready"`, "badge of a server no longer ready, without a click")
	// A server slow to answer is not asked again before it has answered,
	// neither by the page's timer nor after a button's request.
	var asked atomic.Int32
	answer := make(chan struct{})
	srv.hook("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		select {
		case <-answer:
		case <-srv.done:
		case <-r.Context().Done():
			return
		}
		srv.next.ServeHTTP(w, r)
	})
	for deadline := time.Now().Add(5 * time.Second); asked.Load() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the page did not ask the server whether it is ready within 5 s")
		}
	}
	do(t, ctx,
		chromedp.Click(chromedp.ID("stats-btn")),
		chromedp.Poll[chromedp.Void](`!document.getElementById("stats-btn").disabled`),
		chromedp.Sleep(time.Second),
	)
	if n := asked.Load(); n != 1 {
		t.Errorf("the server was asked %d times whether it is ready while it did not answer, want once", n)
	}
	close(answer)
	waitFor(t, ctx, `document.getElementById("ready").textContent === "ready"`, "badge of the server ready again after its slow answer")
}

// colorScheme makes the page's prefers-color-scheme the given one
// ("light" or "dark"), as a system setting would.
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	})
}

// TestBrowserContrast checks, in the light and the dark colour scheme, the
// contrast of the page's text against its background (4.5:1 at least), of
// a grid's set bit that differs against a set bit that does not, and of a
// clear bit that differs against one that does not (3:1 at least), and of
// a clear bit, in the grid and the legend, against the card (1.5:1).
func TestBrowserContrast(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, _ := startServer(t)
	ctx := newBrowser(t)
	for _, scheme := range []string{"light", "dark"} {
		do(t, ctx,
			colorScheme(scheme),
			chromedp.Navigate(srv.URL+"/"),
			chromedp.WaitVisible(chromedp.ID("compare-btn")),
		)
		dark := get(t, ctx, chromedp.Evaluate[bool](`matchMedia("(prefers-color-scheme: dark)").matches`))
		if dark != (scheme == "dark") {
			t.Fatalf("%s scheme asked for, the page's media query says dark %v", scheme, dark)
		}
		checkContrast(t, ctx, scheme)
	}
}

// checkContrast measures the contrasts TestBrowserContrast asks for in the
// page as it is shown.
func checkContrast(t *testing.T, ctx context.Context, scheme string) {
	t.Helper()
	const measure = `(() => {
		const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
		const lum = (c) => {
			const [r, g, b] = rgb(c).map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
			return 0.2126 * r + 0.7152 * g + 0.0722 * b;
		};
		const ratio = (x, y) => { const a = lum(x), b = lum(y); return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); };
		const probe = (tag, cls, parent) => {
			const el = document.createElement(tag);
			el.className = cls;
			el.textContent = "x";
			parent.appendChild(el);
			const s = getComputedStyle(el);
			const c = { color: s.color, bg: s.backgroundColor, outline: s.outlineColor, shadow: s.boxShadow };
			el.remove();
			return c;
		};
		const card = getComputedStyle(document.getElementById("compare")).backgroundColor;
		// shown is the contrast against the card of a cell's edge (its
		// box shadow) or of its fill, whichever stands out more.
		const shown = (shadow, fill) => Math.max(ratio(fill, card), shadow === "none" ? 0 : ratio(shadow, card));
		const page = getComputedStyle(document.body).backgroundColor;
		const button = getComputedStyle(document.getElementById("compare-btn"));
		const quiet = getComputedStyle(document.getElementById("stats-btn"));
		const text = getComputedStyle(document.getElementById("text-a"));
		const grid = document.getElementById("grid-a");
		const badge = probe("span", "badge ready", document.querySelector("header"));
		const on = probe("span", "cell on", grid), onDiff = probe("span", "cell on diff", grid);
		const off = probe("span", "cell", grid), offDiff = probe("span", "cell diff", grid);
		return {
			"text: body": ratio(getComputedStyle(document.body).color, page),
			"text: muted": ratio(probe("p", "tagline", document.querySelector("header")).color, card),
			"text: button": ratio(button.color, button.backgroundColor),
			"text: secondary button": ratio(quiet.color, quiet.backgroundColor),
			"text: text box": ratio(text.color, text.backgroundColor),
			"text: verdict of near-duplicates": ratio(probe("p", "verdict dup", document.getElementById("compare")).color, card),
			"text: verdict of a new text": ratio(probe("p", "verdict new", document.getElementById("compare")).color, card),
			"text: stored text under a match": ratio(probe("span", "excerpt", document.getElementById("matches")).color, card),
			"text: verdict of a repeat": ratio(probe("p", "verdict same", document.getElementById("compare")).color, card),
			"text: ready badge": ratio(badge.color, badge.bg),
			"text: error": ratio(probe("p", "error", document.getElementById("compare")).color, probe("p", "error", document.getElementById("compare")).bg),
			"cells: set and differs, set": ratio(onDiff.bg, on.bg),
			"cells: clear and differs (outline), clear": ratio(offDiff.outline, off.bg),
			"edge: clear bit, card": shown(off.shadow, off.bg),
			"edge: legend's clear bit, card": (s => shown(s.boxShadow, s.backgroundColor))(getComputedStyle(document.querySelector(".legend .cell:not(.on)"))),
			"page: luminance of the background": lum(page),
		};
	})()`
	for what, r := range get(t, ctx, chromedp.Evaluate[map[string]float64](measure)) {
		if strings.HasPrefix(what, "page:") {
			// A dark scheme's background is near black, a light one's
			// near white.
			if dark := r < 0.05; dark != (scheme == "dark") || !dark && r < 0.8 {
				t.Errorf("%s scheme: the page's background has luminance %.3f", scheme, r)
			}
			continue
		}
		least := 3.0
		switch {
		case strings.HasPrefix(what, "text:"):
			least = 4.5
		case strings.HasPrefix(what, "edge:"):
			// Where a clear bit is, beside the card's colour.
			least = 1.5
		}
		if r < least {
			t.Errorf("%s scheme, %s: contrast %.2f:1, want at least %.1f:1", scheme, what, r, least)
		}
	}
}

// checkNearCopy stores text as "first" through c, opens the page of srv
// and checks a near-copy of text there, and returns the near-copy once its
// match is listed with its Compare button.
func checkNearCopy(t *testing.T, ctx context.Context, c *client.Client, url, text string) string {
	t.Helper()
	if _, err := c.CheckAndInsert(context.Background(), client.Document{ID: "first", Text: text}); err != nil {
		t.Fatal(err)
	}
	nearCopy := strings.ToUpper(text[:1]) + strings.ReplaceAll(text[1:], " ", "  ") + " More words."
	do(t, ctx,
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible(chromedp.ID("check-btn")),
		setValue("doc-text", nearCopy),
		chromedp.Click(chromedp.ID("check-btn")),
	)
	waitFor(t, ctx, `document.querySelector('#matches tbody tr[data-id="first"] button') !== null && !document.getElementById("doc-result").hidden`, "the match of the near-copy, with a Compare button")
	return nearCopy
}

// matchButton is the Compare button of the match "first".
var matchButton = chromedp.CSS(`#matches tbody tr[data-id="first"] button`)

// TestBrowserCompareMatch checks a near-copy of a stored document in the
// page and presses its match's Compare button: the compare section gets
// the text checked as Text A and the stored text as Text B, with the
// server's profile (another chosen before is put back), shows the distance
// the API's comparison of the two gives, names the stored document, and is
// brought into view with the focus on its result. The match's row shows the
// start of the stored text.
func TestBrowserCompareMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, c := startServer(t)
	ctx := newBrowser(t)
	text := longText(11, 150)
	do(t, ctx, chromedp.EmulateViewport(1200, 700))
	nearCopy := checkNearCopy(t, ctx, c, srv.URL, text)
	want, err := c.Compare(context.Background(), nearCopy, text, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!document.querySelector('#matches tbody tr[data-id="first"] .excerpt').hidden`, "the start of the stored text in the match's row")
	if got := get(t, ctx, chromedp.Evaluate[string](`document.querySelector('#matches tbody tr[data-id="first"] .excerpt').textContent`)); !strings.HasPrefix(text, strings.TrimSuffix(got, "…")) || len(got) < 150 || len(got) > 210 || !strings.HasSuffix(got, "…") {
		t.Errorf("the match's row shows %q of the stored text %q, want its first 200 or so characters", got, text[:220])
	}
	do(t, ctx,
		choose("profile", "nilsimsa"),
		script(`window.scrollTo(0, document.body.scrollHeight)`),
		chromedp.Click(matchButton),
	)
	waitFor(t, ctx, `!document.getElementById("compare-result").hidden && !document.querySelector('#matches tbody tr[data-id="first"] button').disabled && document.getElementById("compare-btn").textContent === "Compare"`, "the comparison of the match")
	inputs := get(t, ctx, chromedp.Evaluate[[]string](`["text-a", "text-b", "profile"].map(id => document.getElementById(id).value)`))
	if inputs[0] != nearCopy || inputs[1] != text || inputs[2] != "" {
		t.Errorf("compare form after Compare on the match: Text A %.40q, Text B %.40q, profile %q; want the text checked %.40q, the stored text %.40q, the server's profile", inputs[0], inputs[1], inputs[2], nearCopy, text)
	}
	if d := get(t, ctx, chromedp.Text(chromedp.ID("distance"))); d != fmt.Sprint(want.Distance) {
		t.Errorf("page shows distance %q, POST /v1/compare says %d", d, want.Distance)
	}
	if row := get(t, ctx, chromedp.Evaluate[string](`document.querySelector('#matches tbody tr[data-id="first"] td[data-label="Distance"]').textContent`)); row != fmt.Sprint(want.Distance) {
		t.Errorf("the match's row says distance %s, its comparison %d", row, want.Distance)
	}
	diff := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#grid-a .cell.diff").length`))
	if diff != want.Distance {
		t.Errorf("grids highlight %d bits, want %d", diff, want.Distance)
	}
	if v, wantV := get(t, ctx, chromedp.Text(chromedp.ID("verdict"))), map[bool]string{true: "Near-duplicates", false: "Not near-duplicates"}[want.Duplicate]; v != wantV {
		t.Errorf("verdict %q, want %q", v, wantV)
	}
	if src := get(t, ctx, chromedp.Text(chromedp.ID("compare-source"))); !strings.Contains(src, "stored document first") {
		t.Errorf("the comparison does not say it is of the stored document first: %q", src)
	}
	view := get(t, ctx, chromedp.Evaluate[string](`(() => { const r = document.getElementById("compare").getBoundingClientRect();
		return document.activeElement.id + " " + (r.top >= -1 && r.top < innerHeight / 2); })()`))
	if view != "compare-result true" {
		t.Errorf("after Compare on the match: focus and compare section in view %q, want the focus on compare-result and the section in view", view)
	}

	// Typing into the compare form makes the result go, the line naming
	// the stored document with it; pressing Compare then compares the
	// form's texts, named by nothing.
	do(t, ctx, chromedp.SendKeys(chromedp.ID("text-b"), " Edited."))
	if get(t, ctx, shown("compare-result")) {
		t.Error("the comparison of the match stays shown after Text B changed")
	}
	do(t, ctx, chromedp.Click(chromedp.ID("compare-btn")), chromedp.WaitVisible(chromedp.ID("compare-result")))
	if get(t, ctx, shown("compare-source")) {
		t.Errorf("a comparison of typed texts is said to be of a stored document: %q", get(t, ctx, chromedp.Text(chromedp.ID("compare-source"))))
	}
}

// TestBrowserCompareMatchRefused presses a match's Compare button when the
// stored document cannot be compared: stored without its text, the compare
// form changed while it was on its way, and deleted since the check. Each
// gets a message in the Check or add section, and leaves the compare form
// as the user left it.
func TestBrowserCompareMatchRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, c := startSteeredServer(t, server.Options{})
	ctx := newBrowser(t)
	text := longText(12, 120)
	checkNearCopy(t, ctx, c, srv.URL, text)
	const typedA, typedB = "A text typed before.", "Another text typed before."
	do(t, ctx, setValue("text-a", typedA), setValue("text-b", typedB))
	// form is what the compare form holds and shows.
	const form = `["text-a", "text-b"].map(id => document.getElementById(id).value).concat(String(document.getElementById("compare-result").hidden))`
	unchanged := func(when string, a, b string) {
		t.Helper()
		if got := get(t, ctx, chromedp.Evaluate[[]string](form)); got[0] != a || got[1] != b || got[2] != "true" {
			t.Errorf("%s: compare form %.60q, want %q, %q and no result", when, got, a, b)
		}
	}
	// press presses the match's Compare button and waits for its answer.
	press := func() {
		t.Helper()
		do(t, ctx, chromedp.Click(matchButton))
		waitFor(t, ctx, `!document.querySelector('#matches tbody tr[data-id="first"] button').disabled && (!document.getElementById("doc-error").hidden || !document.getElementById("doc-note").hidden)`, "a message after Compare on the match")
	}
	message := func() string {
		return get(t, ctx, chromedp.Evaluate[string](`(e => e.hidden ? "" : e.textContent)(document.getElementById("doc-error"))`))
	}

	// A store that keeps no texts answers an empty one.
	srv.hook("GET /v1/documents/first", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"first","text":"","meta":null}`)
	})
	press()
	if msg := message(); msg != "The store keeps no text of first (only its fingerprint): there is nothing to compare with." {
		t.Errorf("a match stored without its text: %q", msg)
	}
	unchanged("a match stored without its text", typedA, typedB)
	srv.hook("GET /v1/documents/first", nil)

	// The user types into Text A while the document is on its way.
	release := srv.hold("GET /v1/documents/first")
	do(t, ctx, chromedp.Click(matchButton))
	waitFor(t, ctx, `document.querySelector('#matches tbody tr[data-id="first"] button').disabled`, "Compare on the match pressed")
	do(t, ctx, chromedp.SendKeys(chromedp.ID("text-a"), " More."))
	release()
	waitFor(t, ctx, `!document.querySelector('#matches tbody tr[data-id="first"] button').disabled`, "the held document answered")
	if note := get(t, ctx, chromedp.Evaluate[string](`(e => e.hidden ? "" : e.textContent)(document.getElementById("doc-note"))`)); !strings.Contains(note, "The compare form changed") {
		t.Errorf("the compare form changed while the document came: note %q", note)
	}
	unchanged("the compare form changed while the document came", typedA+" More.", typedB)

	// The user types into the text checked while the document is on its
	// way: the match is no longer one of the text the form holds.
	release = srv.hold("GET /v1/documents/first")
	do(t, ctx, chromedp.Click(matchButton))
	waitFor(t, ctx, `document.querySelector('#matches tbody tr[data-id="first"] button').disabled`, "Compare on the match pressed")
	do(t, ctx, chromedp.SendKeys(chromedp.ID("doc-text"), " Even more."))
	release()
	waitFor(t, ctx, `!document.getElementById("doc-note").hidden`, "a note on the text changed while the document came")
	if note := get(t, ctx, chromedp.Text(chromedp.ID("doc-note"))); !strings.HasPrefix(note, "The text changed while the page was fetching first") {
		t.Errorf("the text checked changed while the document came: note %q", note)
	}
	unchanged("the text checked changed while the document came", typedA+" More.", typedB)
	// Checked again, it is listed again.
	do(t, ctx, chromedp.Click(chromedp.ID("check-btn")))
	waitFor(t, ctx, `document.querySelector('#matches tbody tr[data-id="first"] button') !== null && !document.getElementById("doc-result").hidden`, "the match of the text checked again")

	// Deleted since the check.
	if err := c.Delete(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	press()
	if msg := message(); !strings.HasPrefix(msg, "The store no longer holds first (it was deleted or expired since the check)") || !strings.Contains(msg, "not_found, HTTP 404") {
		t.Errorf("a match deleted since the check: %q", msg)
	}
	unchanged("a match deleted since the check", typedA+" More.", typedB)
	if focus := get(t, ctx, chromedp.Evaluate[string](`document.activeElement.className`)); focus != "compare-match" {
		t.Errorf("after the message, the focus is on %q, want the match's Compare button", focus)
	}

	// A document whose id is ".." cannot be asked for by a browser, which
	// resolves the path segment away: a note says so, and how curl can.
	dots := longText(13, 120)
	if _, err := c.CheckAndInsert(context.Background(), client.Document{ID: "..", Text: dots}); err != nil {
		t.Fatal(err)
	}
	wantNote := `A browser cannot ask for the document with id ".." (it takes ".." in a path for a step, even written %2E%2E); curl can: curl ` + srv.URL + `/v1/documents/%2E%2E`
	do(t, ctx,
		setValue("doc-text", strings.ToUpper(dots[:1])+dots[1:]),
		setValue("doc-id", ".."),
		chromedp.Click(chromedp.ID("check-btn")),
	)
	waitFor(t, ctx, `document.querySelector('#matches tbody tr[data-id=".."] button') !== null && !document.getElementById("doc-result").hidden && !document.getElementById("check-btn").disabled`, `the match ".."`)
	if note := get(t, ctx, chromedp.Evaluate[string](`(e => e.hidden ? "" : e.textContent)(document.getElementById("doc-note"))`)); note != `Whether the id ".." is taken, the page cannot tell. `+wantNote {
		t.Errorf(`Check only under the id "..": note %q`, note)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`#matches tbody tr[data-id=".."] button`)))
	waitFor(t, ctx, `!document.querySelector('#matches tbody tr[data-id=".."] button').disabled && (!document.getElementById("doc-error").hidden || !document.getElementById("doc-note").hidden)`, `a message after Compare on the match ".."`)
	if note, msg := get(t, ctx, chromedp.Evaluate[string](`(e => e.hidden ? "" : e.textContent)(document.getElementById("doc-note"))`)), message(); note != wantNote || msg != "" {
		t.Errorf(`Compare on the match "..": note %q, error %q; want the note %q`, note, msg, wantNote)
	}
	unchanged(`Compare on the match ".."`, typedA+" More.", typedB)
}

// TestBrowserOpenFile opens two files into the texts to compare and one
// into the document to add, as the page's "Open a file" buttons do, and
// checks that the texts are the files' (UTF-8, Chinese included), that the
// comparison is the API's, that the opened document is added, and that a
// file that is no text is refused with a message naming it.
func TestBrowserOpenFile(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, c := startServer(t)
	ctx := newBrowser(t)
	a, b, want := comparePair(t, c)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	doc := "一个中文的文件，从页面打开：neardup 检查它是否与已存的文档相近。"
	do(t, ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("compare-btn")),
		chromedp.SetUploadFiles(chromedp.ID("file-a"), []string{write("a.txt", a)}),
		chromedp.SetUploadFiles(chromedp.ID("file-b"), []string{write("b.md", b)}),
	)
	waitFor(t, ctx, fmt.Sprintf(`document.getElementById("text-a").value === %s && document.getElementById("text-b").value === %s`, mustJSON(a), mustJSON(b)), "the files in the text boxes")
	if note := get(t, ctx, chromedp.Text(chromedp.ID("compare-note"))); !strings.Contains(note, "Opened b.md") {
		t.Errorf("note %q, want it to name the file opened", note)
	}
	do(t, ctx,
		chromedp.Click(chromedp.ID("compare-btn")),
		chromedp.WaitVisible(chromedp.ID("compare-result")),
	)
	if d := get(t, ctx, chromedp.Text(chromedp.ID("distance"))); d != fmt.Sprint(want.Distance) {
		t.Errorf("page shows distance %q for the files, API says %d", d, want.Distance)
	}

	// A file that is no text: refused, the text box left as it was.
	do(t, ctx, chromedp.SetUploadFiles(chromedp.ID("file-a"), []string{write("image.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")}))
	waitFor(t, ctx, `!document.getElementById("compare-error").hidden`, "the error for a file that is no text")
	if msg := get(t, ctx, chromedp.Text(chromedp.ID("compare-error"))); msg != "image.png is not a text file (it holds NUL bytes): open a text, HTML or Markdown file." {
		t.Errorf("error %q, want it to name the file and its NUL bytes", msg)
	}
	if v := get(t, ctx, chromedp.Evaluate[string](`document.getElementById("text-a").value`)); v != a {
		t.Errorf("text A is now %q, want it left as it was", v)
	}
	// A file in Latin-1, not UTF-8, and an empty file: refused as well,
	// never opened with U+FFFD in place of letters, nor as an empty box.
	for _, f := range []struct{ name, bytes, want string }{
		{"latin1.txt", "caf\xe9 cr\xe8me", "latin1.txt is not UTF-8 text: save it as UTF-8 and open it again."},
		{"empty.txt", "", "empty.txt is empty: there is no text to open."},
	} {
		do(t, ctx,
			script(`document.getElementById("compare-error").hidden = true`),
			chromedp.SetUploadFiles(chromedp.ID("file-a"), []string{write(f.name, f.bytes)}),
		)
		waitFor(t, ctx, `!document.getElementById("compare-error").hidden`, "the error for "+f.name)
		if msg := get(t, ctx, chromedp.Text(chromedp.ID("compare-error"))); msg != f.want {
			t.Errorf("opening %s: error %q, want %q", f.name, msg, f.want)
		}
		if v := get(t, ctx, chromedp.Evaluate[string](`document.getElementById("text-a").value`)); v != a {
			t.Errorf("after opening %s, text A is %q, want it left as it was", f.name, v)
		}
	}

	do(t, ctx, chromedp.SetUploadFiles(chromedp.ID("file-doc"), []string{write("doc.txt", doc)}))
	waitFor(t, ctx, fmt.Sprintf(`document.getElementById("doc-text").value === %s`, mustJSON(doc)), "the file in the document box")
	do(t, ctx,
		chromedp.Click(chromedp.ID("add-btn")),
		chromedp.WaitVisible(chromedp.ID("doc-result")),
	)
	st, err := c.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 1 {
		t.Errorf("%d documents stored after adding the opened file, want 1", st.Documents)
	}
}

// TestBrowserStoredList checks the page's list of stored documents: an
// empty store says so; then the first page shows the first 20 documents
// in the order stored, each with its id, when it was seen and the start
// of its text, and Show more, under them, adds the rest and goes once none
// are left. A document added on the page appears in the list shown, and
// Refresh shows the first page again.
func TestBrowserStoredList(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, c := startServer(t)
	ctx := newBrowser(t)
	do(t, ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("list-btn")),
		chromedp.Click(chromedp.ID("list-btn")),
		chromedp.WaitVisible(chromedp.ID("list-none")),
	)
	var ids []string
	for i := range 25 {
		d := client.Document{ID: fmt.Sprintf("doc %02d", i), Text: longText(uint64(100+i), 30)}
		if r, err := c.CheckAndInsert(context.Background(), d); err != nil || !r.Inserted {
			t.Fatalf("insert %s: %+v, %v", d.ID, r, err)
		}
		ids = append(ids, d.ID)
	}
	rows := `[...document.querySelectorAll("#stored tbody tr")].map((tr) => tr.dataset.id)`
	do(t, ctx,
		chromedp.Click(chromedp.ID("list-btn")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#stored tbody tr").length === 20`),
	)
	if got := get(t, ctx, chromedp.Evaluate[[]string](rows)); !slices.Equal(got, ids[:20]) {
		t.Fatalf("first page shows %q, want %q", got, ids[:20])
	}
	if none := get(t, ctx, chromedp.Evaluate[bool](`!document.getElementById("list-none").hidden`)); none {
		t.Errorf("the list says the store is empty beside its rows")
	}
	cells := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#stored tbody tr:first-child td")].map((td) => td.textContent)`))
	if len(cells) != 3 || cells[0] != "doc 00" || !regexp.MustCompile(`^20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9:]{8} UTC$`).MatchString(cells[1]) || !strings.HasPrefix(longText(100, 30), strings.TrimSuffix(cells[2], "…")) {
		t.Errorf("first row: %q, want its id, when it was seen and the start of its text", cells)
	}
	do(t, ctx, chromedp.WaitVisible(chromedp.ID("more-btn")))
	// Show more stands under the rows, where the next ones come, and the
	// first button, once the list is shown, loads it again.
	if got := get(t, ctx, chromedp.Evaluate[string](`(document.getElementById("more-btn").getBoundingClientRect().top >= document.getElementById("stored").getBoundingClientRect().bottom) + " " + document.getElementById("list-btn").textContent`)); got != "true Refresh" {
		t.Errorf("Show more under the table, and the first button's label: %q, want true Refresh", got)
	}
	do(t, ctx,
		chromedp.Click(chromedp.ID("more-btn")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#stored tbody tr").length === 25`),
		chromedp.Poll[chromedp.Void](`document.getElementById("more-btn").hidden`),
	)
	if got := get(t, ctx, chromedp.Evaluate[[]string](rows)); !slices.Equal(got, ids) {
		t.Fatalf("after Show more: %q, want %q", got, ids)
	}
	// A document added on the page appears under those listed, which stay.
	do(t, ctx,
		setValue("doc-text", longText(125, 30)),
		setValue("doc-id", "doc 25"),
		chromedp.Click(chromedp.ID("add-btn")),
	)
	waitFor(t, ctx, `document.querySelectorAll("#stored tbody tr").length === 26 && !document.getElementById("list-btn").disabled`, "the document added in the list")
	if got := get(t, ctx, chromedp.Evaluate[[]string](rows)); !slices.Equal(got, append(ids, "doc 25")) {
		t.Errorf("after adding doc 25 on the page, the list shows %q", got)
	}
	// Refresh shows the first page again.
	do(t, ctx,
		chromedp.Click(chromedp.ID("list-btn")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#stored tbody tr").length === 20 && !document.getElementById("more-btn").hidden`),
	)
}
