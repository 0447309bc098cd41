package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// Request bodies sent with Content-Encoding zstd or br. Unlike gzip,
// whose 32 KiB window the server decodes as the body arrives, these
// codings may need a window of megabytes. So that a client cannot make
// the server hold such windows by sending slowly on many connections,
// the compressed body is read whole first (counted against MaxBodyMemory
// like any body), and only then decoded, by one of a few decoders that
// the server keeps: at most min(GOMAXPROCS, 4) decodes run at once, and
// the others wait for one to finish, which takes milliseconds since the
// input is all there.

// maxZstdWindow is the largest zstd window a body may need: what the
// zstd tool's levels up to 19 use without --long (8 MiB). A frame that
// asks for more is refused, naming the limit.
const maxZstdWindow = 8 << 20

// errWaitDecoder is returned when the request ended while its body waited
// for a decoder.
var errWaitDecoder = errors.New("the request ended while its body waited to be decompressed")

// decoders holds the server's zstd and brotli decoders: a slot is taken
// for the time of one body's decoding.
type decoders struct {
	slots chan *decoder
}

// decoder is one slot: its decoders are made when first needed and kept.
type decoder struct {
	zstd *zstd.Decoder
	br   *brotli.Reader
}

// newDecoders returns the slots for n decodes at once.
func newDecoders(n int) *decoders {
	d := &decoders{slots: make(chan *decoder, n)}
	for range n {
		d.slots <- &decoder{}
	}
	return d
}

// defaultDecoders is the number of decoding slots: one a core, up to 4.
func defaultDecoders() int { return min(runtime.GOMAXPROCS(0), 4) }

// open returns a reader of packed decoded by coding ("zstd" or "br"),
// and the function that gives its slot back once the reader is done
// with. It waits for a slot, or for ctx to end.
func (d *decoders) open(ctx context.Context, coding string, packed []byte) (io.Reader, func(), error) {
	var dec *decoder
	select {
	case dec = <-d.slots:
	case <-ctx.Done():
		return nil, nil, errWaitDecoder
	}
	release := func() { d.slots <- dec }
	// A bytes.Reader, not a bytes.Buffer: given a Buffer, the zstd
	// decoder decodes the whole frame at once, however large it grows,
	// where from a Reader it streams a block at a time.
	src := bytes.NewReader(packed)
	switch coding {
	case "zstd":
		if dec.zstd == nil {
			z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
				zstd.WithDecoderMaxWindow(maxZstdWindow))
			if err != nil {
				release()
				return nil, nil, err
			}
			dec.zstd = z
		}
		if err := dec.zstd.Reset(src); err != nil {
			release()
			return nil, nil, err
		}
		return dec.zstd, func() { dec.zstd.Reset(nil); release() }, nil
	case "br":
		if dec.br == nil {
			dec.br = brotli.NewReader(src)
		} else if err := dec.br.Reset(src); err != nil {
			release()
			return nil, nil, err
		}
		return dec.br, release, nil
	}
	release()
	return nil, nil, fmt.Errorf("no decoder for Content-Encoding %q", coding)
}

// encodingError is the answer to a body sent with Content-Encoding
// coding (zstd or br) that does not decompress.
func encodingError(coding string, err error) *apiError {
	msg := err.Error()
	if errors.Is(err, zstd.ErrWindowSizeExceeded) {
		msg = fmt.Sprintf("it needs a window of more than %d MiB (compress at level 19 or lower, without --long)", maxZstdWindow>>20)
	}
	return newError(http.StatusBadRequest, "bad_encoding", fmt.Sprintf("the request body is sent with Content-Encoding %s but does not decompress: %s", coding, msg))
}
