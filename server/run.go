package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
)

// Config is everything Run needs to serve an engine: where to listen, where
// the store lives, and the options of the engine and of the server.
type Config struct {
	// Addr is the TCP address to listen on, such as "127.0.0.1:8080";
	// port 0 picks a free port (see Ready).
	Addr string
	// Dir is the engine's data directory; it is created if missing.
	Dir string
	// Engine configures the engine; Open's defaults apply to zero fields.
	Engine neardup.Options
	// Server configures the HTTP side. Its Fingerprint and Policy are set
	// from Engine's when zero, so /v1/compare judges as the engine does,
	// and its RuleScoreOnly is set when Engine's is.
	Server Options
	// TLSCert and TLSKey, when set (both or neither), are PEM files of
	// the certificate (or chain) and key Run serves HTTPS with, read again
	// when they change (see TLSConfig). Unset: plain HTTP, or
	// Server.TLS when that is set.
	TLSCert, TLSKey string
	// Ready, if not nil, is called with the listening address once the
	// engine is open and requests are served.
	Ready func(addr net.Addr)
}

// Run listens on c.Addr, opens the engine in c.Dir and serves it until ctx
// ends; then it drains (stops accepting, finishes in-flight requests),
// closes the engine, which flushes the store, and returns nil. While the
// engine opens, /healthz answers 200 and the API 503, so a slow restore is
// visible to probes rather than a refused connection. If ctx ends while the
// engine opens, Run stops serving and returns nil at once, with nothing
// acknowledged; the engine, if it opens after all, is closed in the
// background.
func Run(ctx context.Context, c Config) (err error) {
	if c.Server.Logger == nil {
		c.Server.Logger = slog.New(slog.DiscardHandler)
	}
	log := c.Server.Logger
	c.Server.RuleScoreOnly = c.Server.RuleScoreOnly || c.Engine.RuleScoreOnly
	if c.Server.Fingerprint == (neardup.Config{}) {
		c.Server.Fingerprint = c.Engine.Fingerprint
	}
	if c.Server.Policy == nil && c.Engine.Policy != (neardup.Policy{}) {
		p := c.Engine.Policy
		c.Server.Policy = &p
	}
	if c.Server.Policy == nil && c.Engine.K > 0 {
		p := neardup.DefaultPolicy()
		p.Long.MaxDistance = c.Engine.K
		c.Server.Policy = &p
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New("server: TLS needs both a certificate file and a key file")
	}
	if c.TLSCert != "" {
		if c.Server.TLS, err = TLSConfig(c.TLSCert, c.TLSKey, log); err != nil {
			return err
		}
	}
	s, err := New(c.Server)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- s.Serve(serveCtx, ln) }()
	data := c.Dir
	if c.Engine.InMemory || c.Dir == "" {
		data = "(in-memory)" // nothing is kept in Dir
	}
	scheme := "http"
	if c.Server.TLS != nil {
		scheme = "https"
	}
	log.Info("listening, opening the store", "addr", ln.Addr().String(), "scheme", scheme, "data", data)

	opts := c.Engine
	type opened struct {
		e   *neardup.Engine
		err error
	}
	open := make(chan opened, 1)
	go func() {
		e, err := neardup.Open(c.Dir, &opts)
		open <- opened{e, err}
	}()
	var e *neardup.Engine
	select {
	case o := <-open:
		e, err = o.e, o.err
	case <-ctx.Done():
		// A signal while the store opens (which can take long: a big
		// index to rebuild, or a full disk that pebble's first flush
		// waits on): stop now, nothing was acknowledged. The store is
		// closed if it opens after all.
		go func() {
			o := <-open
			if o.err != nil {
				log.Info("the store failed to open after the stop", "error", o.err.Error())
				return
			}
			if err := o.e.Close(); err != nil {
				log.Warn("the store opened after the stop; closing it failed", "error", err.Error())
				return
			}
			log.Info("the store opened after the stop; store closed")
		}()
		stop()
		<-served
		log.Info("stopped before the store was open; nothing to save", "reason", context.Cause(ctx).Error())
		return nil
	}
	if err != nil {
		stop()
		<-served
		return err
	}
	defer func() {
		if cerr := e.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("server: closing the store: %w", cerr)
		}
		log.Info("store closed")
	}()
	s.SetEngine(e)
	st := e.Stats()
	if st.MissingTexts > 0 {
		log.Warn("deleted the records whose texts are missing from the store's text files: a commit that a stopped machine never finished, or, if many, text files cut short or removed",
			"records", st.MissingTexts, "data", data)
	}
	log.Info("ready", "url", scheme+"://"+ln.Addr().String()+"/", "documents", st.Documents, "open_seconds", st.OpenSeconds,
		"bit_tests", index.Kernel())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		watchStore(serveCtx, e.Stats, log, watchEvery)
	}()
	if c.Ready != nil {
		c.Ready(ln.Addr())
	}
	err = <-served
	stop()
	<-watched // before the deferred Close
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// watchEvery is how often Run has watchStore look at the store's state.
const watchEvery = time.Second

// watchStore logs the changes of the store's state that an operator must
// hear of, as stats (the engine's Stats) show them every period until ctx
// ends: the disk too full for posts (they get 507) and space back, and a
// failed store (everything but /healthz answers 503 until a restart). A
// disk already full at the start is logged at once.
func watchStore(ctx context.Context, stats func() neardup.Stats, log *slog.Logger, every time.Duration) {
	full, failed := false, false
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		st := stats()
		switch {
		case st.DiskFull && !full:
			log.Warn("the disk is too full to store more: posts get 507 insufficient_storage until space is freed (see --min-free)", "free_bytes", st.FreeBytes)
		case !st.DiskFull && full:
			log.Info("disk space is back: posts are stored again", "free_bytes", st.FreeBytes)
		}
		if st.Failure != "" && !failed {
			log.Error("the store failed: the API answers 503 store_failed until the server is restarted", "error", st.Failure)
		}
		full, failed = st.DiskFull, st.Failure != ""
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
