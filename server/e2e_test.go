package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/server"
)

// childDirEnv, when set, makes the test binary a server child process
// serving the store in that directory (see TestMain).
const childDirEnv = "NEARDUP_SERVER_TEST_CHILD_DIR"

// childMinFreeEnv, when set with childDirEnv, is the child engine's
// Options.MinFreeBytes.
const childMinFreeEnv = "NEARDUP_SERVER_TEST_CHILD_MIN_FREE"

// childFileLimitEnv, when set with childDirEnv, is the largest file the
// child may write, in bytes (RLIMIT_FSIZE): a write past it fails as on a
// full disk (EFBIG instead of ENOSPC).
const childFileLimitEnv = "NEARDUP_SERVER_TEST_CHILD_FILE_LIMIT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childDirEnv); dir != "" {
		if v := os.Getenv(childFileLimitEnv); v != "" {
			n, err := strconv.ParseUint(v, 10, 64)
			if err == nil {
				err = limitFileSize(n)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "child: file limit:", err)
				os.Exit(1)
			}
		}
		os.Exit(runChild(dir))
	}
	os.Exit(m.Run())
}

// runChild serves the durable store in dir on a free loopback port, prints
// "ADDR host:port" once ready, and drains and exits 0 on SIGTERM, as
// `neardup serve` does.
func runChild(dir string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	opts := neardup.DefaultOptions()
	if v := os.Getenv(childMinFreeEnv); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child: min free:", err)
			return 1
		}
		opts.MinFreeBytes = n
	}
	err := server.Run(ctx, server.Config{
		Addr:   "127.0.0.1:0",
		Dir:    dir,
		Engine: opts,
		Ready:  func(a net.Addr) { fmt.Printf("ADDR %s\n", a) },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// openMemEngine opens an engine with its store in memory, with the
// default options; the caller closes it.
func openMemEngine(t *testing.T) *neardup.Engine {
	t.Helper()
	return openMemEngineWith(t, false)
}

// openMemEngineWith is openMemEngine with neardup.Options.RuleScoreOnly
// set to ruleOnly.
func openMemEngineWith(t *testing.T, ruleOnly bool) *neardup.Engine {
	t.Helper()
	opts := neardup.DefaultOptions()
	opts.InMemory = true
	opts.RuleScoreOnly = ruleOnly
	e, err := neardup.Open("", &opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// startServer serves a fresh in-memory engine through a real loopback
// listener and returns the server and a client of it.
func startServer(t *testing.T) (*httptest.Server, *client.Client) {
	t.Helper()
	return startServerWith(t, false)
}

// startServerWith is startServer with an engine and a server that give a
// duplicate's matches only the rule's score when ruleOnly is set (serve
// --scores rule).
func startServerWith(t *testing.T, ruleOnly bool) (*httptest.Server, *client.Client) {
	t.Helper()
	opts := neardup.DefaultOptions()
	opts.RuleScoreOnly = ruleOnly
	return startServerOf(t, opts, server.Options{RuleScoreOnly: ruleOnly})
}

// startServerOf is startServer with an engine of the options eo (kept in
// memory) and a server of so.
func startServerOf(t *testing.T, eo neardup.Options, so server.Options) (*httptest.Server, *client.Client) {
	t.Helper()
	eo.InMemory = true
	e, err := neardup.Open("", &eo)
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(so)
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	s.SetEngine(e)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		srv.Close()
		e.Close()
	})
	return srv, client.New(srv.URL, srv.Client())
}

// longText returns a deterministic text of n words drawn from a synthetic
// vocabulary; different seeds give unrelated texts.
func longText(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 0x6e656172))
	syll := []string{"ka", "lo", "mi", "ren", "to", "sa", "vi", "de", "pul", "an", "so", "ter", "gu", "ni", "bar", "el"}
	words := make([]string, n)
	for i := range words {
		var b strings.Builder
		for j := 0; j < 2+r.IntN(3); j++ {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		words[i] = b.String()
	}
	return strings.Join(words, " ")
}

// TestConcurrentNearDuplicates posts copies of the same texts (differing in
// case and spacing) from many clients at once: for each text exactly one
// copy is kept and every other names it.
func TestConcurrentNearDuplicates(t *testing.T) {
	srv, c := startServer(t)
	_ = srv
	const groups, copies = 12, 8
	type answer struct {
		group int
		res   client.Result
	}
	answers := make(chan answer, groups*copies)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range groups {
		base := longText(uint64(100+g), 150)
		for i := range copies {
			text := base
			switch i % 3 {
			case 1:
				text = strings.ToUpper(base)
			case 2:
				text = strings.ReplaceAll(base, " ", "  ") + " "
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res, err := c.CheckAndInsert(context.Background(), client.Document{ID: fmt.Sprintf("g%d-c%d", g, i), Text: text})
				if err != nil {
					t.Error(err)
					return
				}
				answers <- answer{g, res}
			}()
		}
	}
	close(start)
	wg.Wait()
	close(answers)
	kept := make(map[int][]string)
	dupOf := make(map[int][]string)
	for a := range answers {
		if a.res.Duplicate {
			dupOf[a.group] = append(dupOf[a.group], *a.res.DuplicateOf)
		} else {
			if !a.res.Inserted {
				t.Errorf("%s: neither inserted nor a duplicate", a.res.ID)
			}
			kept[a.group] = append(kept[a.group], a.res.ID)
		}
	}
	for g := range groups {
		if len(kept[g]) != 1 {
			t.Errorf("group %d: kept %v, want exactly one", g, kept[g])
			continue
		}
		for _, of := range dupOf[g] {
			if of != kept[g][0] {
				t.Errorf("group %d: a copy names %s, not the kept %s", g, of, kept[g][0])
			}
		}
		if len(dupOf[g]) != copies-1 {
			t.Errorf("group %d: %d duplicates, want %d", g, len(dupOf[g]), copies-1)
		}
	}
	st, err := c.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != groups {
		t.Errorf("store holds %d documents, want %d", st.Documents, groups)
	}
	// The client reads the policy's distances.
	if def := neardup.DefaultPolicy(); st.K != def.Long.MaxDistance || st.ShortK != def.Short.MaxDistance || st.TinyK != def.Tiny.MaxDistance || st.TinyLength != def.TinyLength {
		t.Errorf("stats k %d, short_k %d, tiny_k %d, tiny_length %d; want the default policy's", st.K, st.ShortK, st.TinyK, st.TinyLength)
	}
}

// child is a server running in a child process.
type child struct {
	cmd  *exec.Cmd
	addr string
	done chan error
}

// startChild re-executes the test binary as a server on dir, with env
// added to its environment.
func startChild(t *testing.T, dir string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childDirEnv+"="+dir), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := &child{cmd: cmd, done: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "ADDR "); ok {
				addr <- a
			}
		}
		ch.done <- cmd.Wait()
	}()
	select {
	case ch.addr = <-addr:
	case err := <-ch.done:
		t.Fatalf("child exited before serving: %v", err)
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("child did not start serving within 60 s")
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
	})
	return ch
}

// postStream posts unique documents from several clients until stop
// closes, and returns the ids of those the server acknowledged as stored.
func postStream(c *client.Client, workers int, stop <-chan struct{}, acked *atomic.Int64) []string {
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("w%d-%d", w, n)
				res, err := c.CheckAndInsert(context.Background(), client.Document{ID: id, Text: id + " " + longText(uint64(w)<<32|uint64(n), 60)})
				if err != nil {
					return // the server is gone: unacknowledged
				}
				if res.Inserted {
					mu.Lock()
					ids = append(ids, id)
					mu.Unlock()
					acked.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return ids
}

// checkAcked restarts a server on dir and checks that every id is stored.
func checkAcked(t *testing.T, dir string, ids []string) {
	t.Helper()
	ch := startChild(t, dir)
	c := client.New("http://"+ch.addr, &http.Client{Timeout: 10 * time.Second})
	missing := 0
	for _, id := range ids {
		d, err := c.Get(context.Background(), id)
		if err != nil || !strings.HasPrefix(d.Text, id+" ") {
			missing++
			if missing <= 5 {
				t.Errorf("acknowledged document %s lost: %v", id, err)
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged documents lost", missing, len(ids))
	}
	ch.cmd.Process.Signal(syscall.SIGTERM)
	if err := <-ch.done; err != nil {
		t.Errorf("restarted server did not exit cleanly on SIGTERM: %v", err)
	}
}

// postUntil starts 8 clients posting to ch and returns once n documents
// are acknowledged (or 20 s have passed). Closing stop ends the posting;
// result then yields the acknowledged ids.
func postUntil(ch *child, n int64) (stop chan struct{}, result chan []string) {
	c := client.New("http://"+ch.addr, &http.Client{Timeout: 10 * time.Second})
	stop = make(chan struct{})
	result = make(chan []string)
	var acked atomic.Int64
	go func() { result <- postStream(c, 8, stop, &acked) }()
	deadline := time.Now().Add(20 * time.Second)
	for acked.Load() < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return stop, result
}

// TestKillDuringPosts kills the server with SIGKILL while clients post,
// restarts it on the same store and expects every acknowledged document.
func TestKillDuringPosts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir := t.TempDir()
	ch := startChild(t, dir)
	stop, result := postUntil(ch, 1000)
	if err := ch.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-ch.done
	close(stop)
	ids := <-result
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed by SIGKILL: %v", err)
	}
	if len(ids) == 0 {
		t.Fatal("no document was acknowledged before the kill")
	}
	t.Logf("%d documents acknowledged before SIGKILL", len(ids))
	checkAcked(t, dir, ids)
}

// TestSIGTERMDrains stops the server with SIGTERM while clients post: it
// must exit 0, and every acknowledged document must survive.
func TestSIGTERMDrains(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir := t.TempDir()
	ch := startChild(t, dir)
	stop, result := postUntil(ch, 300)
	ch.cmd.Process.Signal(syscall.SIGTERM)
	err := <-ch.done
	close(stop)
	ids := <-result
	if err != nil {
		t.Fatalf("server exited with %v after SIGTERM, want status 0", err)
	}
	checkAcked(t, dir, ids)
}

// TestQueryByFingerprint looks a stored document up by its fingerprint
// through real HTTP: a fingerprint a few bits away finds it, one far away
// does not, and a fingerprint of the wrong width is a 400.
func TestQueryByFingerprint(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	res, err := c.CheckAndInsert(ctx, client.Document{ID: "doc", Text: longText(7, 200)})
	if err != nil {
		t.Fatal(err)
	}
	fp, err := neardup.ParseFingerprint(res.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	near := neardup.FromUint64(fp.Uint64() ^ 0b101).String()
	q, err := c.Query(ctx, client.Query{Fingerprint: near})
	if err != nil {
		t.Fatal(err)
	}
	if !q.Duplicate || q.DuplicateOf == nil || *q.DuplicateOf != "doc" || len(q.Matches) != 1 || q.Matches[0].Distance != 2 {
		t.Fatalf("query by a fingerprint 2 bits away: %+v", q)
	}
	far := neardup.FromUint64(^fp.Uint64()).String()
	if q, err = c.Query(ctx, client.Query{Fingerprint: far}); err != nil || q.Duplicate || len(q.Matches) != 0 {
		t.Fatalf("query by the complement: %+v, %v", q, err)
	}
	if _, err := c.Query(ctx, client.Query{Fingerprint: strings.Repeat("0", 32)}); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("128-bit query of a 64-bit store: %v, want a 400", err)
	}
}

// TestQueryTextK queries by text with "k": the verdict follows the
// matches within k, so a duplicate further than k bits away is neither a
// match nor the duplicate_of, as in a query by fingerprint.
func TestQueryTextK(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	stored := "The city council approved the new budget on Tuesday after a long debate about schools, roads and parks in the northern districts of the town."
	query := "The city council approved the new budget on Wednesday after long debate about schools, roads and parks in northern districts of the town."
	res, err := c.CheckAndInsert(ctx, client.Document{ID: "kq1", Text: stored})
	if err != nil {
		t.Fatal(err)
	}
	all, err := c.Query(ctx, client.Query{Text: query})
	if err != nil {
		t.Fatal(err)
	}
	if !all.Duplicate || all.DuplicateOf == nil || *all.DuplicateOf != "kq1" || len(all.Matches) != 1 {
		t.Fatalf("query without k: %+v", all)
	}
	d := all.Matches[0].Distance
	if d == 0 {
		t.Fatalf("the texts' fingerprints are equal (%s); the test needs them apart", res.Fingerprint)
	}
	for _, k := range []int{d - 1, d} {
		q, err := c.Query(ctx, client.Query{Text: query, K: &k})
		if err != nil {
			t.Fatal(err)
		}
		within := k >= d
		if q.Duplicate != within || (q.DuplicateOf != nil) != within || len(q.Matches) != map[bool]int{false: 0, true: 1}[within] {
			t.Errorf("query with k %d, the stored text %d bits away: %+v", k, d, q)
		}
	}
}

// TestClientQueryBatch asks several queries in one request through the
// client and real HTTP: each is answered as Query answers it alone, and a
// refused one carries its error.
func TestClientQueryBatch(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	text := longText(7, 200)
	res, err := c.CheckAndInsert(ctx, client.Document{ID: "doc", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	qs := []client.Query{{Text: strings.ToUpper(text)}, {Fingerprint: res.Fingerprint}, {Text: "  "}, {Text: longText(8, 200)}}
	rs, err := c.QueryBatch(ctx, qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		if i == 2 {
			continue
		}
		want, err := c.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rs[i], want) {
			t.Errorf("query %d: batch gave %+v, alone %+v", i, rs[i], want)
		}
	}
	if !rs[0].Duplicate || *rs[0].DuplicateOf != "doc" || !rs[1].Duplicate || rs[3].Duplicate {
		t.Errorf("duplicates: %+v", rs)
	}
	if e := rs[2].Error; e == nil || e.Code != "missing_text" {
		t.Errorf("blank text: %+v, error %+v", rs[2], e)
	}
}

// TestRefusedDocuments checks what a client learns of a document the
// engine refuses, alone and in a batch: the status, the code, and the
// engine's reason naming the document.
func TestRefusedDocuments(t *testing.T) {
	_, c := startServer(t)
	ctx := context.Background()
	if _, err := c.CheckAndInsert(ctx, client.Document{ID: "a", Text: longText(1, 50)}); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	const (
		conflict = `id already stored with another text: "a"`
		expired  = `document time outside the retention window: "old"`
	)
	for _, tc := range []struct {
		d       client.Document
		status  int
		code    string
		message string
	}{
		{client.Document{ID: "a", Text: longText(2, 50)}, 409, "id_conflict", conflict},
		{client.Document{ID: "old", Text: longText(3, 50), Time: old}, 400, "expired", expired},
	} {
		_, err := c.CheckAndInsert(ctx, tc.d)
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Status != tc.status || ce.Code != tc.code || !strings.HasPrefix(ce.Message, tc.message) {
			t.Errorf("post of %q: %v, want %d %s %q", tc.d.ID, err, tc.status, tc.code, tc.message)
		}
	}
	rs, err := c.Batch(ctx, []client.Document{
		{ID: "a", Text: longText(2, 50)},
		{ID: "b", Text: longText(4, 50)},
		{ID: "old", Text: longText(3, 50), Time: old},
	})
	if err != nil {
		t.Fatal(err)
	}
	if e := rs[0].Error; e == nil || e.Code != "id_conflict" || e.Message != conflict || rs[0].ID != "a" {
		t.Errorf("batch, conflicting id: %+v, error %+v", rs[0], e)
	}
	if rs[1].Error != nil || !rs[1].Inserted {
		t.Errorf("batch, new document: %+v, error %+v", rs[1], rs[1].Error)
	}
	if e := rs[2].Error; e == nil || e.Code != "expired" || !strings.HasPrefix(e.Message, expired) {
		t.Errorf("batch, expired document: %+v, error %+v", rs[2], e)
	}
}

// TestStoreFull lets the server's files grow to 1 MiB at most, so that a
// write fails as on a full disk, while clients post. From the failure on,
// posts, /readyz and /healthz answer 503 store_failed, /v1/stats names the
// failure and the metric neardup_store_failed is 1; after a restart
// without the limit, every document acknowledged before is there.
func TestStoreFull(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	if !canLimitFileSize {
		t.Skip("no file size limit on this system")
	}
	dir := t.TempDir()
	ch := startChild(t, dir, childFileLimitEnv+"=1048576")
	c := client.New("http://"+ch.addr, &http.Client{Timeout: 10 * time.Second})
	var acked atomic.Int64
	stop := make(chan struct{})
	result := make(chan []string)
	go func() { result <- postStream(c, 8, stop, &acked) }()
	// postStream's clients stop at their first error: the failure.
	var ids []string
	select {
	case ids = <-result:
	case <-time.After(90 * time.Second):
		close(stop)
		<-result
		t.Fatal("the store took documents for 90 s past a limit of 1 MiB a file")
	}
	if len(ids) == 0 {
		t.Fatal("no document was acknowledged before the store failed")
	}
	t.Logf("%d documents acknowledged before the store failed", len(ids))

	var ce *client.Error
	_, err := c.CheckAndInsert(context.Background(), client.Document{ID: "after", Text: longText(99, 60)})
	if !errors.As(err, &ce) || ce.Status != http.StatusServiceUnavailable || ce.Code != "store_failed" {
		t.Errorf("a post after the failure: %v, want 503 store_failed", err)
	}
	for _, path := range []string{"/readyz", "/healthz"} {
		resp, err := http.Get("http://" + ch.addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"store_failed"`) {
			t.Errorf("%s after the failure: %d %s, want 503 store_failed", path, resp.StatusCode, body)
		}
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			t.Errorf("%s after the failure: Retry-After %q; only a restart mends it", path, ra)
		}
	}
	st, err := c.Stats(context.Background())
	if err != nil || !strings.Contains(st.Failure, "file too large") {
		t.Errorf("/v1/stats failure %q (%v), want the store's error", st.Failure, err)
	}
	resp, err := http.Get("http://" + ch.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "\nneardup_store_failed 1\n") {
		t.Error("/metrics does not show neardup_store_failed 1")
	}
	ch.cmd.Process.Signal(syscall.SIGTERM)
	<-ch.done // closing a failed store may fail too: any exit will do
	checkAcked(t, dir, ids)
}

// TestDiskFullRefusesPosts serves a store whose engine wants more free
// space than any disk has: posts, single or in a batch, get 507
// insufficient_storage and store nothing, while the server stays ready and
// answers reads, and /v1/stats and /metrics show the free space measured.
func TestDiskFullRefusesPosts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	ch := startChild(t, t.TempDir(), childMinFreeEnv+"=1125899906842624") // 1 PiB
	c := client.New("http://"+ch.addr, &http.Client{Timeout: 10 * time.Second})
	ctx := context.Background()
	doc := client.Document{ID: "d", Text: longText(7, 60)}
	var ce *client.Error
	if _, err := c.CheckAndInsert(ctx, doc); !errors.As(err, &ce) || ce.Status != http.StatusInsufficientStorage || ce.Code != "insufficient_storage" || !strings.Contains(ce.Message, "bytes free") {
		t.Errorf("a post: %v, want 507 insufficient_storage with the figures", err)
	}
	if _, err := c.Batch(ctx, []client.Document{doc}); !errors.As(err, &ce) || ce.Status != http.StatusInsufficientStorage {
		t.Errorf("a batch: %v, want 507", err)
	}
	if _, err := c.Get(ctx, "d"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("Get of a refused document: %v, want not found", err)
	}
	if _, err := c.Query(ctx, client.Query{Text: doc.Text}); err != nil {
		t.Errorf("a query: %v", err)
	}
	resp, err := http.Get("http://" + ch.addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz: %d, want 200: reads go on", resp.StatusCode)
	}
	st, err := c.Stats(ctx)
	if err != nil || !st.DiskFull || st.FreeBytes <= 0 {
		t.Errorf("/v1/stats: %+v, %v; want disk_full and the free bytes", st, err)
	}
	resp, err = http.Get("http://" + ch.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "\nneardup_store_free_bytes ") || strings.Contains(string(body), "\nneardup_store_free_bytes 0\n") {
		t.Error("/metrics does not show the free bytes")
	}
	ch.cmd.Process.Signal(syscall.SIGTERM)
	if err := <-ch.done; err != nil {
		t.Errorf("server did not exit cleanly on SIGTERM: %v", err)
	}
}

// TestClientDotIDs stores documents whose ids are the dot segments "." and
// "..", which an HTTP client or server resolves away when they stand as
// they are in a path, and gets and deletes them through the client; and a
// client with a wrong base URL gets no_route, not "no such document".
func TestClientDotIDs(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	for i, id := range []string{".", ".."} {
		text := longText(uint64(20+i), 60)
		if _, err := c.CheckAndInsert(ctx, client.Document{ID: id, Text: text}); err != nil {
			t.Fatal(err)
		}
		if d, err := c.Get(ctx, id); err != nil || d.Text != text {
			t.Errorf("Get(%q) = %q, %v", id, d.Text, err)
		}
		if err := c.Delete(ctx, id); err != nil {
			t.Errorf("Delete(%q): %v", id, err)
		}
		if _, err := c.Get(ctx, id); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("Get(%q) after Delete: %v, want ErrNotFound", id, err)
		}
	}
	_, err := client.New(srv.URL+"/nope", nil).Get(ctx, "x")
	var e *client.Error
	if !errors.As(err, &e) || e.Code != "no_route" || errors.Is(err, client.ErrNotFound) {
		t.Errorf("a wrong base URL: %v, want no_route, not ErrNotFound", err)
	}
}
