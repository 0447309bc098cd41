package server

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// limitListener caps the number of connections open at once: Accept blocks
// while n connections are open, so excess clients wait in the kernel's
// backlog instead of each costing a goroutine and buffers here. When the
// cap is reached, Accept first closes a connection that is idle between
// requests (the http.Server reports states through connState), so that
// clients holding idle keep-alive connections cannot keep out the others,
// a health probe among them.
type limitListener struct {
	net.Listener
	sem chan struct{}
	mu  sync.Mutex
	all map[*limitConn]struct{} // the open connections
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), all: make(map[*limitConn]struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.acquire()
	lc := &limitConn{Conn: c}
	lc.release = func() {
		l.mu.Lock()
		delete(l.all, lc)
		l.mu.Unlock()
		<-l.sem
	}
	l.mu.Lock()
	l.all[lc] = struct{}{}
	l.mu.Unlock()
	return lc, nil
}

// acquire takes a slot for a connection just accepted, which waits here
// (and those after it in the kernel's backlog) while connections idle
// between requests are closed to make room.
func (l *limitListener) acquire() {
	for {
		select {
		case l.sem <- struct{}{}:
			return
		default:
		}
		l.closeIdle()
		select {
		case l.sem <- struct{}{}:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// closeIdle closes one connection that is idle between requests, if any.
func (l *limitListener) closeIdle() {
	l.mu.Lock()
	var victim *limitConn
	for c := range l.all {
		if c.idle.Load() {
			victim = c
			break
		}
	}
	l.mu.Unlock()
	if victim != nil {
		victim.Close()
	}
}

// connState is the http.Server's ConnState hook: it marks the connections
// idle between requests.
func (l *limitListener) connState(c net.Conn, st http.ConnState) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if lc, ok := c.(*limitConn); ok {
		lc.idle.Store(st == http.StateIdle)
	}
}

// limitConn gives its slot back exactly once, on the first Close.
type limitConn struct {
	net.Conn
	idle    atomic.Bool // between requests (connState)
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// idSource assigns ids to documents posted without one: a random prefix
// drawn once per server, so ids from different runs never collide, and a
// counter. A client may post an id of the same form (one it was given, or
// one it made up): see reserve.
type idSource struct {
	prefix string
	n      *atomic.Uint64
}

func newIDSource() (idSource, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return idSource{}, fmt.Errorf("server: drawing an id prefix: %w", err)
	}
	return idSource{prefix: hex.EncodeToString(b[:]) + "-", n: new(atomic.Uint64)}, nil
}

// next returns a fresh id.
func (s idSource) next() string {
	return s.prefix + strconv.FormatUint(s.n.Add(1), 10)
}

// reserve keeps id, given by a client, from being assigned later: when it
// has the form of the ids next returns, the counter moves past it. An id
// already assigned is left to the engine, which tells a repeat of its post
// from another text under the same id.
func (s idSource) reserve(id string) {
	rest, ok := strings.CutPrefix(id, s.prefix)
	if !ok {
		return
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	if err != nil || n > 1<<62 {
		// Past 2^62 the counter would come near wrapping around to the
		// ids it gave first; it never gets there by counting.
		return
	}
	for {
		cur := s.n.Load()
		if n <= cur || s.n.CompareAndSwap(cur, n) {
			return
		}
	}
}
