package server

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
)

// limitListener caps the number of connections open at once: Accept blocks
// while n connections are open, so excess clients wait in the kernel's
// backlog instead of each costing a goroutine and buffers here.
type limitListener struct {
	net.Listener
	sem chan struct{}
}

func newLimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

// limitConn gives its slot back exactly once, on the first Close.
type limitConn struct {
	net.Conn
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
// counter.
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
