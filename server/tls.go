package server

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// certCheckEvery is how often, at most, a handshake looks whether the
// certificate or key file has changed (a renewed certificate put in
// place): the files are then read again, without a restart.
var certCheckEvery = 10 * time.Second

// certFiles serves the certificate of a PEM certificate (chain) file and
// its key file, read again when either file changes.
type certFiles struct {
	certPath, keyPath string
	log               *slog.Logger

	mu      sync.Mutex
	cert    *tls.Certificate
	stamp   [2]time.Time // the files' modification times when read
	checked time.Time
}

// loadCertFiles reads the certificate and key files; an error names them.
func loadCertFiles(certPath, keyPath string, log *slog.Logger) (*certFiles, error) {
	c := &certFiles{certPath: certPath, keyPath: keyPath, log: log}
	cert, stamp, err := c.read()
	if err != nil {
		return nil, err
	}
	c.cert, c.stamp, c.checked = cert, stamp, time.Now()
	return c, nil
}

// read reads the pair of files, with their modification times.
func (c *certFiles) read() (*tls.Certificate, [2]time.Time, error) {
	var stamp [2]time.Time
	for i, p := range []string{c.certPath, c.keyPath} {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, stamp, fmt.Errorf("server: TLS: %w", err)
		}
		stamp[i] = fi.ModTime()
	}
	cert, err := tls.LoadX509KeyPair(c.certPath, c.keyPath)
	if err != nil {
		return nil, stamp, fmt.Errorf("server: TLS certificate %s and key %s: %w", c.certPath, c.keyPath, err)
	}
	return &cert, stamp, nil
}

// get is the tls.Config's GetCertificate: the certificate last read,
// read again first when certCheckEvery has passed and a file changed. A
// pair that does not load (a renewal half written) keeps the one before,
// and is tried again at the next check.
func (c *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.checked) < certCheckEvery {
		return c.cert, nil
	}
	c.checked = time.Now()
	var stamp [2]time.Time
	for i, p := range []string{c.certPath, c.keyPath} {
		if fi, err := os.Stat(p); err == nil {
			stamp[i] = fi.ModTime()
		}
	}
	if stamp == c.stamp {
		return c.cert, nil
	}
	cert, stamp, err := c.read()
	if err != nil {
		c.log.Warn("TLS certificate changed but does not load; serving the one before", "error", err.Error())
		return c.cert, nil
	}
	c.cert, c.stamp = cert, stamp
	c.log.Info("TLS certificate read again", "cert", c.certPath)
	return c.cert, nil
}

// TLSConfig returns the TLS configuration of a server that serves the
// certificate (or chain) in the PEM file certPath with the key in keyPath,
// and reads them again when they change, so that a renewed certificate
// needs no restart: TLS 1.2 or later, HTTP/1.1. An error names a file
// that cannot be read or a pair that does not load.
func TLSConfig(certPath, keyPath string, log *slog.Logger) (*tls.Config, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c, err := loadCertFiles(certPath, keyPath, log)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		GetCertificate: c.get,
		MinVersion:     tls.VersionTLS12,
		NextProtos:     []string{"http/1.1"},
	}, nil
}
