package decompress

import "io"

// The slow decoders (bzip2 and xz: 15-60 MB/s of text here, against the
// 40 MB/s or so that a dedup run takes in) are read ahead of their
// reader: a goroutine decodes the next chunks while the caller parses the
// last, so that decoding runs beside the work on a second core instead of
// adding to it.
const (
	aheadChunk  = 256 << 10
	aheadChunks = 4
)

// readAhead reads r in a goroutine of its own, up to aheadChunks chunks
// ahead of its caller.
type readAhead struct {
	full chan chunk  // chunks read, in order; the last one has an error
	free chan []byte // buffers given back, for the goroutine to fill
	done chan struct{}
	gone chan struct{} // closed when the goroutine has returned
	buf  []byte        // the chunk being read from, whole
	cur  []byte        // what is left of it
	err  error         // the error after cur
}

// chunk is a run of bytes read, and the error read after them.
type chunk struct {
	b   []byte
	err error
}

// newReadAhead starts reading r ahead.
func newReadAhead(r io.Reader) *readAhead {
	a := &readAhead{
		full: make(chan chunk, aheadChunks),
		free: make(chan []byte, aheadChunks),
		done: make(chan struct{}),
		gone: make(chan struct{}),
	}
	for range aheadChunks {
		a.free <- make([]byte, aheadChunk)
	}
	go a.fill(r)
	return a
}

// fill reads r into the free buffers until it fails (io.EOF included) or
// the reader is closed.
func (a *readAhead) fill(r io.Reader) {
	defer close(a.gone)
	for {
		var b []byte
		select {
		case b = <-a.free:
		case <-a.done:
			return
		}
		n, err := 0, error(nil)
		for n < len(b) && err == nil {
			var m int
			m, err = r.Read(b[n:])
			n += m
		}
		select {
		case a.full <- chunk{b[:n], err}:
		case <-a.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read reads what the goroutine has read, in order, and then its error.
func (a *readAhead) Read(p []byte) (int, error) {
	for len(a.cur) == 0 {
		if a.err != nil {
			return 0, a.err
		}
		if a.buf != nil {
			a.free <- a.buf[:cap(a.buf)] // room for every buffer: never blocks
			a.buf = nil
		}
		c := <-a.full
		a.buf, a.cur, a.err = c.b, c.b, c.err
	}
	n := copy(p, a.cur)
	a.cur = a.cur[n:]
	return n, nil
}

// Close stops the goroutine and waits for it to return, so that it no
// longer reads r once Close returns. It may wait for one chunk's read.
func (a *readAhead) Close() {
	select {
	case <-a.done:
	default:
		close(a.done)
	}
	<-a.gone
}
