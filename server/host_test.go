package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// TestHostPolicy checks which Host headers the check lets through: the
// port aside, in any case, with or without a final dot and IPv6 brackets.
func TestHostPolicy(t *testing.T) {
	lan := netip.MustParseAddr("192.168.1.5")
	tests := []struct {
		allowed []string
		host    string
		local   netip.Addr
		want    bool
	}{
		{nil, "localhost:8080", netip.Addr{}, true},
		{nil, "LocalHost", netip.Addr{}, true},
		{nil, "localhost.:8080", netip.Addr{}, true},
		{nil, "app.localhost:8080", netip.Addr{}, true},
		{nil, "127.0.0.1:8080", netip.Addr{}, true},
		{nil, "127.1.2.3", netip.Addr{}, true},
		{nil, "[::1]:8080", netip.Addr{}, true},
		{nil, "[::1]", netip.Addr{}, true},
		{nil, "[::ffff:127.0.0.1]:8080", netip.Addr{}, true},
		{nil, "", netip.Addr{}, true}, // HTTP/1.0 without a Host
		{nil, "evil.example:8080", netip.Addr{}, false},
		{nil, "evil.example", netip.Addr{}, false},
		{nil, "localhost.evil.example", netip.Addr{}, false},
		{nil, "evillocalhost", netip.Addr{}, false},
		{nil, "192.168.1.5:8080", netip.Addr{}, false},
		// The address the request came in on is the server's own.
		{nil, "192.168.1.5:8080", lan, true},
		{nil, "192.168.1.6:8080", lan, false},
		{nil, "[fe80::1]:8080", lan, false},
		{[]string{"neardup.example"}, "neardup.example:8080", netip.Addr{}, true},
		{[]string{"neardup.example"}, "NEARDUP.Example.", netip.Addr{}, true},
		{[]string{"neardup.example"}, "a.neardup.example", netip.Addr{}, false},
		{[]string{"neardup.example"}, "localhost:8080", netip.Addr{}, true},
		{[]string{"NearDup.Example."}, "neardup.example", netip.Addr{}, true},
		{[]string{"*.corp.example"}, "a.corp.example", netip.Addr{}, true},
		{[]string{"*.corp.example"}, "a.b.corp.example:80", netip.Addr{}, true},
		{[]string{"*.corp.example"}, "corp.example", netip.Addr{}, false},
		{[]string{"*.corp.example"}, "evilcorp.example", netip.Addr{}, false},
		{[]string{"10.0.0.7"}, "10.0.0.7:8080", netip.Addr{}, true},
		{[]string{"[2001:db8::7]"}, "[2001:DB8::7]:8080", netip.Addr{}, true},
		{[]string{"2001:db8::7"}, "[2001:db8:0::7]", netip.Addr{}, true},
		{[]string{"10.0.0.7"}, "10.0.0.8", netip.Addr{}, false},
		{[]string{"*"}, "evil.example:8080", netip.Addr{}, true},
	}
	for _, tt := range tests {
		p, err := parseHosts(tt.allowed)
		if err != nil {
			t.Fatalf("parseHosts(%q): %v", tt.allowed, err)
		}
		if got := p.allows(tt.host, tt.local); got != tt.want {
			t.Errorf("allowed %q: Host %q on %v: %v, want %v", tt.allowed, tt.host, tt.local, got, tt.want)
		}
	}
}

// TestParseHostsErrors checks that entries the check could never match
// as meant are refused, naming the entry.
func TestParseHostsErrors(t *testing.T) {
	for _, list := range [][]string{{"example.com:8080"}, {""}, {" example.com"}, {"*", "example.com"}, {"*.", "x"}, {"a..b"}, {"http://example.com"}, {"*.*.example.com"}, {"ex ample"}} {
		_, err := parseHosts(list)
		if err == nil {
			t.Errorf("parseHosts(%q): no error", list)
			continue
		}
		if !strings.HasPrefix(err.Error(), "server: allowed host ") {
			t.Errorf("parseHosts(%q): %v", list, err)
		}
		if _, err := New(Options{AllowedHosts: list}); err == nil {
			t.Errorf("New with AllowedHosts %q: no error", list)
		}
	}
}

// hostRequest sends one request to addr with the given Host header, and
// an Origin of that host as a page served under that name sends, and
// returns its status and body.
func hostRequest(t *testing.T, addr, method, path, host, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Origin", "http://"+host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestDNSRebinding checks that a server on loopback answers a page whose
// name was pointed at 127.0.0.1 (DNS rebinding: same-origin requests with
// Host and Origin both the page's name) with 403 host_not_allowed on every
// route, storing, reading and deleting nothing, while localhost and the
// loopback addresses are served.
func TestDNSRebinding(t *testing.T) {
	s, e := newTestServer(t, Options{})
	ln, cancel, served := serveLoopback(t, s)
	defer func() {
		cancel()
		<-served
	}()
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	if code, body := hostRequest(t, addr, "POST", "/v1/documents", "127.0.0.1:"+port, `{"id":"kept","text":"a document the visitor stored"}`); code != 200 {
		t.Fatalf("storing through 127.0.0.1: %d %s", code, body)
	}
	evil := "evil.example:" + port
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/v1/documents", `{"id":"planted","text":"planted by another site"}`},
		{"POST", "/v1/documents/batch", `[{"id":"planted2","text":"planted too"}]`},
		{"DELETE", "/v1/documents/kept", ""},
		{"GET", "/v1/documents/kept", ""},
		{"POST", "/v1/query", `{"text":"a document the visitor stored"}`},
		{"GET", "/v1/stats", ""},
		{"GET", "/", ""},
		{"GET", "/static/app.js", ""},
		{"GET", "/metrics", ""},
		{"GET", "/healthz", ""},
		{"GET", "/readyz", ""},
		{"GET", "/v1/openapi.json", ""},
		{"GET", "/no/such/route", ""},
	} {
		code, body := hostRequest(t, addr, r.method, r.path, evil, r.body)
		var v struct{ Error errorDetail }
		json.Unmarshal([]byte(body), &v)
		if code != 403 || v.Error.Code != "host_not_allowed" {
			t.Errorf("%s %s with Host %s: %d %s, want 403 host_not_allowed", r.method, r.path, evil, code, body)
			continue
		}
		if !strings.Contains(v.Error.Message, `"`+evil+`"`) || !strings.Contains(v.Error.Message, "--allowed-hosts evil.example") || strings.Contains(body, "visitor stored") {
			t.Errorf("%s %s with Host %s: message %q, want the Host named, how to allow it, and nothing stored", r.method, r.path, evil, v.Error.Message)
		}
	}
	e.mu.Lock()
	_, kept := e.docs["kept"]
	n := len(e.docs)
	e.mu.Unlock()
	if !kept || n != 1 {
		t.Errorf("after the rebinding page's requests: kept stored %v, %d documents; want the visitor's one alone", kept, n)
	}
	for _, host := range []string{"localhost:" + port, "LOCALHOST", "app.localhost:" + port, "127.0.0.1:" + port, "127.0.0.2", "[::1]:" + port} {
		if code, body := hostRequest(t, addr, "GET", "/v1/documents/kept", host, ""); code != 200 {
			t.Errorf("GET with Host %s: %d %s, want 200", host, code, body)
		}
	}
	if code, body := hostRequest(t, addr, "DELETE", "/v1/documents/kept", "localhost:"+port, ""); code != 200 {
		t.Errorf("DELETE through localhost: %d %s, want 200", code, body)
	}
}

// TestAllowedHosts checks that AllowedHosts admits the names it lists, on
// loopback and through Handler alone, while other names stay refused.
func TestAllowedHosts(t *testing.T) {
	s, e := newTestServer(t, Options{AllowedHosts: []string{"neardup.example", "*.corp.example"}})
	ln, cancel, served := serveLoopback(t, s)
	defer func() {
		cancel()
		<-served
	}()
	addr := ln.Addr().String()
	for host, want := range map[string]int{
		"neardup.example:8080": 200, "Neardup.Example": 200, "a.corp.example:8080": 200, "localhost": 200,
		"corp.example": 403, "evil.example:8080": 403, "neardup.example.evil.example": 403,
	} {
		if code, body := hostRequest(t, addr, "POST", "/v1/documents", host, `{"text":"sent through `+host+`"}`); code != want {
			t.Errorf("POST with Host %s: %d %s, want %d", host, code, body, want)
		}
	}
	e.mu.Lock()
	n := len(e.docs)
	e.mu.Unlock()
	if n != 4 {
		t.Errorf("%d documents stored, want the 4 sent through allowed names", n)
	}
	// Handler alone, which knows no listener, checks them too.
	for host, want := range map[string]int{"neardup.example": 200, "evil.example": 403} {
		req := httptest.NewRequest("GET", "/v1/stats", nil)
		req.Host = host
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		if w.Code != want {
			t.Errorf("Handler, Host %s: %d %s, want %d", host, w.Code, w.Body.String(), want)
		}
	}
}

// TestHostsNotCheckedOffLoopback checks that a server listening on every
// interface answers any Host by default (a proxy's or LAN clients' names,
// which it cannot know), and checks them once AllowedHosts is given.
func TestHostsNotCheckedOffLoopback(t *testing.T) {
	for _, tt := range []struct {
		allowed []string
		want    int
	}{{nil, 200}, {[]string{"neardup.example"}, 403}, {[]string{"*"}, 200}} {
		s, _ := newTestServer(t, Options{AllowedHosts: tt.allowed})
		ln, err := net.Listen("tcp", "0.0.0.0:0")
		if err != nil {
			t.Skipf("cannot listen on every interface: %v", err)
		}
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		done := make(chan error)
		ctx, cancel := context.WithCancel(t.Context())
		go func() { done <- s.Serve(ctx, ln) }()
		code, body := hostRequest(t, "127.0.0.1:"+port, "POST", "/v1/documents", "neardup.lan:"+port, `{"text":"from the LAN"}`)
		if code != tt.want {
			t.Errorf("allowed hosts %q, bound to 0.0.0.0: Host neardup.lan: %d %s, want %d", tt.allowed, code, body, tt.want)
		}
		if code, body := hostRequest(t, "127.0.0.1:"+port, "GET", "/healthz", "127.0.0.1:"+port, ""); code != 200 {
			t.Errorf("allowed hosts %q, bound to 0.0.0.0: Host 127.0.0.1: %d %s, want 200", tt.allowed, code, body)
		}
		cancel()
		<-done
	}
}

// TestHostRefusalsCountedAndLogged checks that refused Hosts are counted
// in neardup_http_refused_total and logged once per host, naming the flag
// that allows it (after an upgrade behind a proxy that passes its own
// names on, every request is refused, and the log must say why without a
// line per request), and that the log stops at maxRefusedHosts hosts.
func TestHostRefusalsCountedAndLogged(t *testing.T) {
	var logBuf bytes.Buffer
	var logMu sync.Mutex
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logBuf, mu: &logMu}, nil))
	s, _ := newTestServer(t, Options{Logger: log})
	ln, cancel, served := serveLoopback(t, s)
	defer func() {
		cancel()
		<-served
	}()
	addr := ln.Addr().String()
	for range 3 {
		if code, body := hostRequest(t, addr, "GET", "/v1/stats", "proxy.example:443", ""); code != 403 {
			t.Fatalf("Host proxy.example: %d %s, want 403", code, body)
		}
	}
	for i := range maxRefusedHosts + 4 {
		hostRequest(t, addr, "GET", "/v1/stats", fmt.Sprintf("h%d.example", i), "")
	}
	logMu.Lock()
	lines := strings.Split(strings.TrimSpace(logBuf.String()), "\n")
	logMu.Unlock()
	var proxy int
	for _, l := range lines {
		if strings.Contains(l, "host=proxy.example:443") {
			proxy++
			if !strings.Contains(l, "--allowed-hosts") || !strings.Contains(l, "allow=proxy.example") {
				t.Errorf("log line %q: want the flag and the name to give it", l)
			}
		}
	}
	if proxy != 1 || len(lines) != maxRefusedHosts {
		t.Errorf("log:\n%s\nwant one line for proxy.example of its 3 refusals and %d lines in all", strings.Join(lines, "\n"), maxRefusedHosts)
	}
	if !strings.Contains(lines[len(lines)-1], "not logged") {
		t.Errorf("last log line %q: want it to say later refusals are not logged", lines[len(lines)-1])
	}
	code, metrics := hostRequest(t, addr, "GET", "/metrics", "localhost", "")
	want := fmt.Sprintf(`neardup_http_refused_total{code="host_not_allowed"} %d`, 3+maxRefusedHosts+4)
	if code != 200 || !strings.Contains(metrics, want) || !strings.Contains(metrics, `neardup_http_refused_total{code="cross_origin"} 0`) {
		t.Errorf("metrics (%d) lack %q or the cross_origin series at 0", code, want)
	}
}

// lockedWriter is an io.Writer that takes mu around each write, for a log
// that handlers write to from many goroutines.
type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
