package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/neardup/neardup"
)

// Engine is the part of the near-duplicate engine the server calls;
// *neardup.Engine implements it. Implementations must be safe for
// concurrent use.
type Engine interface {
	CheckAndInsert(ctx context.Context, d neardup.Document) (neardup.Result, error)
	CheckAndInsertBatch(ctx context.Context, ds []neardup.Document) ([]neardup.Result, error)
	Check(ctx context.Context, d neardup.Document) (neardup.Result, error)
	Get(id string) (neardup.Document, error)
	Delete(id string) error
	List(ctx context.Context, o neardup.ListOptions) ([]neardup.StoredDocument, string, error)
	Stats() neardup.Stats
}

// Options configures a Server. The zero value gives the defaults stated on
// each field.
type Options struct {
	// MaxBody is the largest request body accepted, in bytes; larger bodies
	// get 413 body_too_large. Default 4 MiB.
	MaxBody int64
	// MaxBatch is the most documents one batch request may hold; more get
	// 413 batch_too_large. Default 10000.
	MaxBatch int
	// MaxInFlight is the most API requests served at once; a request
	// whose body is read when that many are in progress gets 429
	// overloaded at once. A request waiting for its body does not count.
	// Default 1024.
	MaxInFlight int
	// MaxBodyMemory bounds the bytes of request bodies held at once, as
	// they arrive and until their requests end: a body that would pass it
	// gets 429 overloaded. Handling a document takes memory of 10 to 15
	// times its bytes (a 4 MiB one 40 to 60 MiB, docs/HTTP.md), so this is
	// what bounds the memory of requests. It must be at least MaxBody:
	// a body between the two could never be read. Default 64 MiB.
	MaxBodyMemory int64
	// MaxConns is the most connections open at once; at the cap, a
	// connection idle between requests is closed to make room, and without
	// one, further connections wait in the kernel's accept queue. Default
	// 4096.
	MaxConns int
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout bound the
	// time spent on one request's headers, on reading a whole request, on
	// writing its response, and an idle keep-alive connection. Defaults
	// 5 s, 30 s, 60 s and 120 s.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// ShutdownTimeout bounds how long Serve waits for in-flight requests
	// once its context ends; requests still running then are cut off
	// (their contexts end and their connections close), and Serve returns
	// once they have returned. Default 30 s.
	ShutdownTimeout time.Duration
	// DrainDelay is how long Serve keeps serving after its context ends
	// with /readyz already answering 503, so that a load balancer stops
	// sending traffic before the listener closes. Default 0: close at once.
	DrainDelay time.Duration
	// Fingerprint is the fingerprint configuration /v1/fingerprint and
	// /v1/compare use when a request names no profile or width; it should
	// match the engine's. The zero value is the default profile at 64 bits.
	// It is checked on first use: requests get 400 if it is invalid.
	Fingerprint neardup.Config
	// Policy decides the verdict of /v1/compare; nil means
	// neardup.DefaultPolicy(). It should match the engine's.
	Policy *neardup.Policy
	// AllowedHosts are the host names, besides localhost, its subdomains
	// and the loopback addresses, that requests may name in their Host
	// header (the port aside, in any case), against DNS rebinding: a page
	// of another site whose name is later pointed at the server's address
	// sends requests that look same-origin (Origin and Host both its
	// name), which the cross_origin check lets through, but its Host
	// header still gives that name. An
	// entry is a host name ("neardup.example.com"), "*." and a domain
	// ("*.example.com": every name under example.com, not itself), or an
	// IP address; "*" alone turns the check off. A Host that is the IP
	// address the request came in on always passes. Other requests, to
	// every route, get 403 host_not_allowed.
	//
	// When nil (the default), Serve checks only requests on a loopback
	// listener (127.0.0.0/8 or ::1), the server a browser's visitor runs,
	// which DNS rebinding reaches; a server on another address is reached
	// by names it cannot know (a proxy's, LAN clients'). When set, every
	// request is checked, through Serve or Handler.
	AllowedHosts []string
	// RuleScoreOnly tells the server that the engine gives a duplicate's
	// matches only the score of the measure the Policy decided by
	// (neardup.Options.RuleScoreOnly): the API then sends the other
	// scores as null, not computed, rather than 0. Run sets it from the
	// engine's options. Default false: every score is sent as the engine
	// gives it.
	RuleScoreOnly bool
	// TLS, when not nil, makes Serve serve HTTPS (HTTP/1.1 over TLS)
	// with it; Run sets it from Config.TLSCert and TLSKey. Default nil:
	// plain HTTP, for loopback or behind a proxy that ends TLS.
	TLS *tls.Config
	// Logger receives one line per request that failed with 500 and the server's
	// lifecycle events; nil discards them.
	Logger *slog.Logger
}

// Defaults of Options.
const (
	DefaultMaxBody     = 4 << 20
	DefaultMaxBatch    = 10000
	DefaultMaxInFlight = 1024
	DefaultMaxConns    = 4096
	// DefaultMaxBodyMemory is Options.MaxBodyMemory's default: 64 MiB.
	DefaultMaxBodyMemory = 64 << 20
)

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() Options {
	o = o.withSizes()
	if o.MaxBatch == 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	if o.MaxInFlight == 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.MaxConns == 0 {
		o.MaxConns = DefaultMaxConns
	}
	setDuration(&o.ReadHeaderTimeout, 5*time.Second)
	setDuration(&o.ReadTimeout, 30*time.Second)
	setDuration(&o.WriteTimeout, 60*time.Second)
	setDuration(&o.IdleTimeout, 120*time.Second)
	setDuration(&o.ShutdownTimeout, 30*time.Second)
	if o.Fingerprint.Bits == 0 && o.Fingerprint.Profile != "nilsimsa" {
		o.Fingerprint.Bits = 64
	}
	if o.Policy == nil {
		p := neardup.DefaultPolicy()
		o.Policy = &p
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}

// withSizes returns o with MaxBody and MaxBodyMemory set to their
// defaults when zero.
func (o Options) withSizes() Options {
	if o.MaxBody == 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxBodyMemory == 0 {
		o.MaxBodyMemory = DefaultMaxBodyMemory
	}
	return o
}

func setDuration(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}

// Validate reports the first field of o that has no sensible meaning.
func (o Options) Validate() error {
	switch {
	case o.MaxBody < 0:
		return fmt.Errorf("server: MaxBody %d is negative", o.MaxBody)
	case o.MaxBatch < 0:
		return fmt.Errorf("server: MaxBatch %d is negative", o.MaxBatch)
	case o.MaxInFlight < 0:
		return fmt.Errorf("server: MaxInFlight %d is negative", o.MaxInFlight)
	case o.MaxConns < 0:
		return fmt.Errorf("server: MaxConns %d is negative", o.MaxConns)
	case o.MaxBodyMemory < 0:
		return fmt.Errorf("server: MaxBodyMemory %d is negative", o.MaxBodyMemory)
	case o.ReadHeaderTimeout < 0 || o.ReadTimeout < 0 || o.WriteTimeout < 0 || o.IdleTimeout < 0 || o.ShutdownTimeout < 0 || o.DrainDelay < 0:
		return errors.New("server: timeouts must not be negative")
	}
	// A body larger than MaxBodyMemory could never be read, even alone:
	// it would get 429 overloaded, retry shortly, on every try.
	if d := o.withSizes(); d.MaxBodyMemory < d.MaxBody {
		return fmt.Errorf("server: MaxBodyMemory %d is less than MaxBody %d: a body of more than %d bytes would be refused as overloaded on every try", d.MaxBodyMemory, d.MaxBody, d.MaxBodyMemory)
	}
	_, err := parseHosts(o.AllowedHosts)
	return err
}

// Server is the HTTP front end of an engine. Create it with New; it is safe
// for concurrent use.
type Server struct {
	opts     Options
	engine   atomic.Pointer[engineRef]
	draining atomic.Bool
	// unready makes /readyz answer 503 while the API still serves (the
	// DrainDelay before shutdown).
	unready  atomic.Bool
	inflight atomic.Int64
	// bodyBytes is the bytes of request bodies held (MaxBodyMemory).
	bodyBytes atomic.Int64
	// active counts the requests in the server's handlers.
	active  atomic.Int64
	handler http.Handler
	hosts   hostPolicy
	// hostsRefused are the hosts refused so far, for the log.
	hostsRefused refusedHosts
	routes       []Route
	metrics      *metrics
	fps          *fingerprinters
	scoring      scoring
	ids          idSource
	bufs         bufferPool
	// decoders decode the bodies sent with Content-Encoding zstd or br.
	decoders *decoders
	// statMetrics are the engine statistics exported at /metrics.
	statMetrics []statMetric
}

// engineRef boxes an Engine so it can sit in an atomic.Pointer.
type engineRef struct{ Engine }

// Route is one method and path pattern the server answers, in the syntax of
// net/http.ServeMux (for example "GET /v1/documents/{id}").
type Route struct {
	// Method is the HTTP method, such as "POST".
	Method string
	// Path is the path pattern, such as "/v1/documents/{id}".
	Path string
	// API reports whether the route belongs to the JSON API documented in
	// the OpenAPI document (the web page's assets do not).
	API bool
}

// New returns a Server configured by opts. Until SetEngine is called, API
// requests and /readyz answer 503.
func New(opts Options) (*Server, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &Server{opts: opts.withDefaults()}
	s.fps = newFingerprinters(s.opts.Fingerprint)
	s.decoders = newDecoders(defaultDecoders())
	s.scoring = newScoring(s.opts.RuleScoreOnly, *s.opts.Policy)
	s.statMetrics = statMetrics()
	s.metrics = newMetrics(s)
	ids, err := newIDSource()
	if err != nil {
		return nil, err
	}
	s.ids = ids
	if s.hosts, err = parseHosts(s.opts.AllowedHosts); err != nil {
		return nil, err
	}
	s.handler = s.checkHosts(s.buildHandler())
	return s, nil
}

// SetEngine makes the server answer API requests with e and report ready.
func (s *Server) SetEngine(e Engine) { s.engine.Store(&engineRef{e}) }

// Drain makes the server answer 503 to new API requests and to /readyz,
// so a load balancer stops sending traffic; requests already running finish.
func (s *Server) Drain() { s.draining.Store(true) }

// Handler returns the handler serving every route. It checks the Host
// header of requests when Options.AllowedHosts is set; Serve also checks
// it on a loopback listener when it is not.
func (s *Server) Handler() http.Handler { return s.handler }

// Routes returns the routes the server answers.
func (s *Server) Routes() []Route { return append([]Route(nil), s.routes...) }

// Serve accepts connections on ln and serves them until ctx ends; then it
// drains: it stops accepting, lets in-flight requests finish (up to
// Options.ShutdownTimeout) and returns nil. It closes ln. It does not close
// the engine: the caller does, after Serve returns, so the store is flushed
// after the last request. On a loopback listener it serves only the Host
// names Options.AllowedHosts describes, even when that is nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	// Requests' contexts derive from base, which is cancelled when the
	// shutdown timeout has passed with requests still running.
	base, cutOff := context.WithCancel(context.Background())
	defer cutOff()
	base = withHostCheck(base, ln)
	hs := &http.Server{
		BaseContext:       func(net.Listener) context.Context { return base },
		Handler:           s.handler,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn),
	}
	ll := newLimitListener(ln, s.opts.MaxConns)
	hs.ConnState = ll.connState
	var served net.Listener = ll
	if s.opts.TLS != nil {
		// Over the limit, so that the connections counted are the TCP
		// ones, and net/http sees *tls.Conn: it then bounds the
		// handshake by its timeouts and answers plain HTTP sent to the
		// TLS port with a 400 that says so.
		served = tls.NewListener(ll, s.opts.TLS)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(served) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
		// The cause names the signal when one stopped the server
		// (signal.NotifyContext): "terminated signal received".
		s.opts.Logger.Info("stopping", "reason", context.Cause(ctx).Error())
	}
	if d := s.opts.DrainDelay; d > 0 {
		s.unready.Store(true)
		s.opts.Logger.Info("not ready; serving until the drain delay ends", "delay", d)
		select {
		case <-time.After(d):
		case err := <-errc:
			return fmt.Errorf("server: %w", err)
		}
	}
	s.Drain()
	if s.engine.Load() != nil {
		// Without an engine (its store failed to open, or a signal came
		// first) there was nothing to drain, and Run says what happened.
		s.opts.Logger.Info("draining", "in_flight", s.inflight.Load())
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// Requests still running at the timeout are cut off: their
		// contexts end (the engine stops queries and checks between
		// documents) and their connections close. What they stored is
		// stored; the store closes once they have returned.
		s.opts.Logger.Warn("shutdown timeout: cutting off the requests still running", "timeout", s.opts.ShutdownTimeout, "running", s.active.Load())
		cutOff()
		hs.Close()
		deadline := time.Now().Add(s.opts.ShutdownTimeout)
		for s.active.Load() > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := s.active.Load(); n > 0 {
			return fmt.Errorf("server: shutdown: %d requests still running after being cut off", n)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("server: shutdown: %w", err)
	}
	return nil
}
