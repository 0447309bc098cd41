package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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

// TestBrowserCompare loads the page, types two texts, presses Compare and
// checks that the distance the page shows is the API's, and that the bit
// grids highlight exactly that many differing bits.
func TestBrowserCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: slow")
	}
	srv, c := startServer(t)
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
	if _, err := c.Get(context.Background(), "first"); err != nil {
		t.Fatalf("the page's document is not stored: %v", err)
	}
	// Pressing Add again stores nothing, and says so.
	do(t, ctx, chromedp.Click(chromedp.ID("add-btn")))
	const again = "Already stored as first with this text; nothing added."
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.getElementById("doc-verdict").textContent === `+mustJSON(again))); err != nil {
		t.Errorf("after adding the same document again: %q, want %q", get(t, ctx, chromedp.Text(chromedp.ID("doc-verdict"))), again)
	}
	do(t, ctx,
		setValue("doc-text", nearCopy),
		chromedp.Click(chromedp.ID("check-btn")),
		chromedp.WaitVisible(chromedp.CSS(`#matches tbody tr[data-id="first"]`)),
	)
	checked := get(t, ctx, chromedp.Text(chromedp.ID("doc-verdict")))
	row := get(t, ctx, chromedp.Text(chromedp.CSS(`#matches tbody tr[data-id="first"] td`)))
	if !regexp.MustCompile(`^Would be a duplicate of first \(distance [0-9]+, similarity [0-9.]+%\)\.$`).MatchString(checked) || row != "first" {
		t.Errorf("after checking a near-copy: verdict %q, match %q", checked, row)
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
	// too short to tap (buttons under 40 CSS pixels), among the visible
	// elements. (A mobile browser widens the page's layout to what sticks
	// out, so window.innerWidth is no measure.)
	const fits = `(() => {
		const w = 390, bad = [];
		if (document.documentElement.scrollWidth > w) bad.push("page " + document.documentElement.scrollWidth + "px wide");
		for (const el of document.querySelectorAll("body *")) {
			const r = el.getBoundingClientRect();
			if (r.width === 0 && r.height === 0) continue;
			const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "");
			if (r.left < -0.5 || r.right > w + 0.5) bad.push(name + " spans " + Math.round(r.left) + "-" + Math.round(r.right) + "px");
			if (el.tagName === "BUTTON" && r.height < 40) bad.push(name + " " + Math.round(r.height) + "px tall");
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
