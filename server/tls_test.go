package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neardup/neardup"
)

// writeCert writes a new self-signed certificate for 127.0.0.1 and
// localhost, named cn, and its key, as PEM files in dir, and returns the
// certificate and the files' paths.
func writeCert(t testing.TB, dir, cn string) (*x509.Certificate, string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	// Written beside and renamed into place, as a renewal does.
	for _, f := range []struct {
		path, typ string
		der       []byte
	}{{certPath, "CERTIFICATE", der}, {keyPath, "EC PRIVATE KEY", kb}} {
		tmp := f.path + ".new"
		if err := os.WriteFile(tmp, pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: f.der}), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, f.path); err != nil {
			t.Fatal(err)
		}
	}
	return cert, certPath, keyPath
}

// TestRunTLS checks that Run with a certificate and key serves the API
// over HTTPS, answers plain HTTP on that port with a 400 that says why,
// serves a renewed certificate without a restart, and keeps the one
// before while the new files do not load.
func TestRunTLS(t *testing.T) {
	defer func(d time.Duration) { certCheckEvery = d }(certCheckEvery)
	certCheckEvery = 0 // every handshake looks at the files
	dir := t.TempDir()
	first, certPath, keyPath := writeCert(t, dir, "first")
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	ready := make(chan string, 1)
	opts := neardup.DefaultOptions()
	opts.InMemory = true
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Addr: "127.0.0.1:0", Engine: opts, TLSCert: certPath, TLSKey: keyPath,
			Ready: func(a net.Addr) { ready <- a.String() }})
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	// served returns the certificate a new connection is served, and the
	// answer to a post over it.
	served := func() (*x509.Certificate, string) {
		t.Helper()
		conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		cert := conn.ConnectionState().PeerCertificates[0]
		pool := x509.NewCertPool()
		pool.AddCert(cert)
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		defer hc.CloseIdleConnections()
		resp, err := hc.Post("https://"+addr+"/v1/documents", "application/json", strings.NewReader(`{"text":"a text sent over TLS"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("post: %d %s", resp.StatusCode, b)
		}
		return cert, string(b)
	}
	if cert, body := served(); !cert.Equal(first) || !strings.Contains(body, `"fingerprint"`) {
		t.Fatalf("served %s, answer %s; want the first certificate and a result", cert.Subject.CommonName, body)
	}

	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "HTTP request to an HTTPS server") {
		t.Errorf("plain HTTP: %d %q; want 400 saying so", resp.StatusCode, b)
	}

	// Renewed: the next connection gets the new certificate.
	second, _, _ := writeCert(t, dir, "second")
	future := time.Now().Add(time.Minute)
	os.Chtimes(certPath, future, future) // a time the files did not have
	if cert, _ := served(); !cert.Equal(second) {
		t.Errorf("after the renewal: served %s, want second", cert.Subject.CommonName)
	}
	// A key that does not load: the last good certificate stays.
	os.WriteFile(keyPath, []byte("not a key"), 0o600)
	if cert, _ := served(); !cert.Equal(second) {
		t.Errorf("with a broken key file: served %s, want second still", cert.Subject.CommonName)
	}

	stop()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestTLSConfigErrors checks that a missing file, a pair that does not
// load, and a certificate without its key are errors naming what is
// wrong.
func TestTLSConfigErrors(t *testing.T) {
	dir := t.TempDir()
	_, certPath, keyPath := writeCert(t, dir, "c")
	bad := filepath.Join(dir, "bad.pem")
	os.WriteFile(bad, []byte("-----BEGIN NOTHING-----\n"), 0o600)
	for _, tc := range []struct{ cert, key, want string }{
		{filepath.Join(dir, "none.pem"), keyPath, "none.pem: no such file"},
		{certPath, bad, "bad.pem"},
		{bad, keyPath, "bad.pem"},
	} {
		if _, err := TLSConfig(tc.cert, tc.key, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("TLSConfig(%s, %s) = %v; want an error with %q", tc.cert, tc.key, err, tc.want)
		}
	}
	if err := Run(t.Context(), Config{Addr: "127.0.0.1:0", TLSCert: certPath}); err == nil || !strings.Contains(err.Error(), "both a certificate file and a key file") {
		t.Errorf("Run with a certificate alone: %v", err)
	}
}

// BenchmarkServeTLS measures single-document posts to Serve over plain
// HTTP and over TLS (keep-alive connections, so TLS costs its record
// encryption, not handshakes), 64 clients, with a fake engine: the cost
// that --tls-cert adds to the HTTP layer. http is the baseline.
func BenchmarkServeTLS(b *testing.B) {
	cert, certPath, keyPath := writeCert(b, b.TempDir(), "bench")
	for _, scheme := range []string{"http", "https"} {
		b.Run(scheme, func(b *testing.B) {
			opts := Options{}
			tr := &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64, DisableCompression: true}
			if scheme == "https" {
				cfg, err := TLSConfig(certPath, keyPath, nil)
				if err != nil {
					b.Fatal(err)
				}
				opts.TLS = cfg
				pool := x509.NewCertPool()
				pool.AddCert(cert)
				tr.TLSClientConfig = &tls.Config{RootCAs: pool}
			}
			s, err := New(opts)
			if err != nil {
				b.Fatal(err)
			}
			s.SetEngine(newFakeEngine())
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Serve(ctx, ln) }()
			defer func() {
				stop()
				<-done
			}()
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr}
			url := scheme + "://" + ln.Addr().String() + "/v1/documents"
			bodies := make([]string, b.N)
			for i := range bodies {
				bodies[i] = benchBody(int64(i))
			}
			var n atomic.Int64
			b.SetParallelism(32) // 64 clients on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := hc.Post(url, "application/json", strings.NewReader(bodies[n.Add(1)-1]))
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		})
	}
}
