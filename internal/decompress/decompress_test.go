package decompress

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// bzip2Hello is "hello\n" compressed by bzip2 1.0.8 (`printf 'hello\n' | bzip2 -9`) (the standard library
// has no bzip2 writer), and bzip2Empty the empty text.
var (
	bzip2Hello = []byte("BZh91AY&SY\xc1\xc0\x80\xe2\x00\x00\x01A\x00\x00\x10\x02D\xa0\x000\xcd\x00\xc3F)\x97\x17rE8P\x90\xc1\xc0\x80\xe2")
	bzip2Empty = []byte("BZh9\x17rE8P\x90\x00\x00\x00\x00")
)

// pack returns text written through the compressing writer that w makes.
func pack[W io.WriteCloser](t testing.TB, w func(io.Writer) (W, error), text string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := w(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gz returns text compressed by gzip.
func gz(t testing.TB, text string) []byte {
	return pack(t, func(w io.Writer) (*gzip.Writer, error) { return gzip.NewWriter(w), nil }, text)
}

// zst returns text compressed by zstd.
func zst(t testing.TB, text string) []byte {
	return pack(t, func(w io.Writer) (*zstd.Encoder, error) { return zstd.NewWriter(w) }, text)
}

// xzc returns text compressed by xz.
func xzc(t testing.TB, text string) []byte {
	return pack(t, func(w io.Writer) (*xz.Writer, error) { return xz.NewWriter(w) }, text)
}

// readAll reads in through a Reader and returns its format and text.
func readAll(t *testing.T, in []byte) (string, string, error) {
	t.Helper()
	z, err := NewReader(bytes.NewReader(in))
	if err != nil {
		return "", "", err
	}
	defer z.Close()
	b, err := io.ReadAll(z)
	return z.Format(), string(b), err
}

// TestReader checks that each format reads back as its text, concatenated
// streams as one, and other inputs as they are.
func TestReader(t *testing.T) {
	long := strings.Repeat("a line of a corpus kept compressed\n", 10000)
	tests := []struct {
		name, format, want string
		in                 []byte
	}{
		{"gzip", Gzip, long, gz(t, long)},
		{"gzip, two members", Gzip, "one\ntwo\n", append(gz(t, "one\n"), gz(t, "two\n")...)},
		{"gzip, empty", Gzip, "", gz(t, "")},
		{"zstd", Zstd, long, zst(t, long)},
		{"zstd, two frames", Zstd, "one\ntwo\n", append(zst(t, "one\n"), zst(t, "two\n")...)},
		{"zstd, skippable frame first", Zstd, "one\n", append([]byte{0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 'x', 'y'}, zst(t, "one\n")...)},
		{"bzip2", Bzip2, "hello\n", bzip2Hello},
		{"bzip2, two streams", Bzip2, "hello\nhello\n", append(bytes.Clone(bzip2Hello), bzip2Hello...)},
		{"bzip2, empty", Bzip2, "", bzip2Empty},
		{"xz", Xz, long, xzc(t, long)},
		{"xz, two streams", Xz, "one\ntwo\n", append(xzc(t, "one\n"), xzc(t, "two\n")...)},
		{"xz, stream padding", Xz, "one\n", append(xzc(t, "one\n"), 0, 0, 0, 0)},
		{"xz, empty", Xz, "", xzc(t, "")},
		{"plain", "", long, []byte(long)},
		{"plain, short", "", "\x1f", []byte("\x1f")},
		{"plain, empty", "", "", nil},
		{"plain, BZh text", "", "BZh9 is how a bzip2 file starts\n", []byte("BZh9 is how a bzip2 file starts\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			format, got, err := readAll(t, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if format != tc.format || got != tc.want {
				t.Errorf("format %q, %d bytes; want %q, %d bytes", format, len(got), tc.format, len(tc.want))
			}
		})
	}
}

// TestReaderCutShort checks that a compressed stream cut short or damaged
// is an *Error naming its format, after the text that could be read.
func TestReaderCutShort(t *testing.T) {
	long := strings.Repeat("a line of a corpus kept compressed, and more words\n", 20000)
	g, z, x := gz(t, long), zst(t, long), xzc(t, long)
	damaged := bytes.Clone(g)
	damaged[len(damaged)-6] ^= 0xff // the CRC-32
	xzDamaged := bytes.Clone(x)
	xzDamaged[len(xzDamaged)/2] ^= 0xff
	tests := []struct {
		name, format, msg string
		in                []byte
		eof               bool
	}{
		{"gzip cut", Gzip, "gzip data ends early (is the file cut short?)", g[:len(g)/2], true},
		{"gzip header cut", Gzip, "gzip data ends early", g[:5], true},
		{"gzip checksum", Gzip, "gzip data is damaged: gzip: invalid checksum", damaged, false},
		{"gzip trailing junk", Gzip, "gzip data is damaged", append(bytes.Clone(g), "junk after the stream"...), false},
		{"zstd cut", Zstd, "zstd data ends early", z[:len(z)/2], true},
		{"bzip2 cut", Bzip2, "bzip2 data ends early", bzip2Hello[:len(bzip2Hello)-8], true},
		{"xz cut", Xz, "xz data ends early", x[:len(x)/2], true},
		{"xz header cut", Xz, "xz data ends early", x[:8], true},
		{"xz damaged", Xz, "xz data is damaged", xzDamaged, false},
		{"xz trailing junk", Xz, "xz data is damaged", append(bytes.Clone(x), "junk after the stream"...), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, got, err := readAll(t, tc.in)
			var ze *Error
			if !errors.As(err, &ze) || ze.Format != tc.format || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want an *Error of %s saying %q", err, tc.format, tc.msg)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) != tc.eof {
				t.Errorf("errors.Is(%v, io.ErrUnexpectedEOF) = %v", err, !tc.eof)
			}
			text := long
			if tc.format == Bzip2 {
				text = "hello\n"
			}
			if !strings.HasPrefix(text, got) {
				t.Errorf("read %d bytes that are not the start of the text", len(got))
			}
		})
	}
}

// failingReader gives its bytes, then err.
type failingReader struct {
	b   []byte
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, f.err
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}

// TestReaderSourceError checks that an error of the underlying reader
// reaches the caller as it is, not as damaged data.
func TestReaderSourceError(t *testing.T) {
	eio := errors.New("input/output error")
	text := strings.Repeat("some text that compresses\n", 50000)
	g, x := gz(t, text), xzc(t, text)
	for _, in := range [][]byte{g[:len(g)/2], x[:len(x)/2], []byte("plain text\n")} {
		z, err := NewReader(&failingReader{b: in, err: eio})
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(z)
		var ze *Error
		if !errors.Is(err, eio) || errors.As(err, &ze) {
			t.Errorf("format %q: error %v, want the reader's own", z.Format(), err)
		}
	}
}

// endless gives bytes forever, counting its reads.
type endless struct{ reads atomic.Int64 }

func (e *endless) Read(p []byte) (int, error) {
	e.reads.Add(1)
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// TestReadAheadClose checks that a Reader decoding ahead stops reading its
// source once Close returns, and that its chunks arrive whole and in
// order.
func TestReadAheadClose(t *testing.T) {
	src := &endless{}
	a := newReadAhead(src)
	b := make([]byte, 3*aheadChunk+5)
	if _, err := io.ReadFull(a, b); err != nil {
		t.Fatal(err)
	}
	if bytes.IndexFunc(b, func(r rune) bool { return r != 'a' }) >= 0 {
		t.Fatal("read bytes the source did not give")
	}
	a.Close()
	a.Close() // a second Close does nothing
	n := src.reads.Load()
	select {
	case <-a.gone:
	default:
		t.Fatal("the goroutine is still running after Close")
	}
	if src.reads.Load() != n {
		t.Error("the source was read after Close returned")
	}

	// Every byte in order, then the source's error.
	var want bytes.Buffer
	for i := range 300000 {
		fmt.Fprintf(&want, "%d\n", i)
	}
	eio := errors.New("input/output error")
	a = newReadAhead(&failingReader{b: bytes.Clone(want.Bytes()), err: eio})
	defer a.Close()
	got, err := io.ReadAll(a)
	if !errors.Is(err, eio) || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("read %d bytes (want %d), error %v (want %v)", len(got), want.Len(), err, eio)
	}
}

// TestSniff checks the formats told from a stream's first bytes.
func TestSniff(t *testing.T) {
	tests := []struct {
		head, want string
	}{
		{"\x1f\x8b\x08\x00", Gzip},
		{"\x28\xb5\x2f\xfd\x04", Zstd},
		{"\x5f\x2a\x4d\x18", Zstd},
		{"BZh91AY&SY", Bzip2},
		{"BZh1\x17rE8P\x90", Bzip2},
		{"BZh0 1AY&SY", ""},
		{"BZh9 is text", ""},
		{"BZh91AY&S", ""}, // too short to tell
		{"\xfd7zXZ\x00\x00\x04", Xz},
		{"\xfd7zXZ", ""},
		{"{\"id\":1}", ""},
		{"\x1f", ""},
		{"", ""},
	}
	for _, tc := range tests {
		if got := Sniff([]byte(tc.head)); got != tc.want {
			t.Errorf("Sniff(%q) = %q, want %q", tc.head, got, tc.want)
		}
	}
}

// TestTrimExt checks the names whose compression extension is dropped.
func TestTrimExt(t *testing.T) {
	for in, want := range map[string]string{
		"docs.csv.gz": "docs.csv", "docs.CSV.GZ": "docs.CSV", "a/b.jsonl.zst": "a/b.jsonl",
		"x.zstd": "x", "x.txt.bz2": "x.txt", "zh.txt.xz": "zh.txt", "x.csv": "x.csv", "x.tgz": "x.tgz", "gz": "gz",
	} {
		if got := TrimExt(in); got != want {
			t.Errorf("TrimExt(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBzip2Sample checks the bzip2 sample against the system's bzip2,
// where it has one.
func TestBzip2Sample(t *testing.T) {
	bz, err := exec.LookPath("bzip2")
	if err != nil {
		t.Skip("no bzip2 program")
	}
	cmd := exec.Command(bz, "-d")
	cmd.Stdin = bytes.NewReader(bzip2Hello)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil || string(out) != "hello\n" {
		t.Fatalf("bzip2 -d: %q, %v", out, err)
	}
}

// TestXzTool checks that what the system's xz writes reads back: several
// blocks (-T2 --block-size) and a second stream appended, with each of
// the integrity checks xz can write.
func TestXzTool(t *testing.T) {
	tool, err := exec.LookPath("xz")
	if err != nil {
		t.Skip("no xz program")
	}
	text := strings.Repeat("一行中文语料，a line of a corpus kept as .txt.xz\n", 30000)
	for _, check := range []string{"none", "crc32", "crc64", "sha256"} {
		var in []byte
		for range 2 {
			cmd := exec.Command(tool, "-c", "-6", "-T2", "--block-size=200KiB", "--check="+check)
			cmd.Stdin = strings.NewReader(text)
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			in = append(in, out...)
		}
		format, got, err := readAll(t, in)
		if err != nil || format != Xz || got != text+text {
			t.Errorf("--check=%s: format %q, %d bytes, %v; want xz, %d bytes", check, format, len(got), err, 2*len(text))
		}
	}
}

// BenchmarkReader measures reading 4 MiB of JSON Lines through a Reader,
// plain and compressed, in bytes of text a second.
func BenchmarkReader(b *testing.B) {
	var text strings.Builder
	for i := 0; text.Len() < 4<<20; i++ {
		fmt.Fprintf(&text, "{\"id\":%d,\"text\":\"line %d of a corpus that was kept compressed, with words %x\"}\n", i, i*31, i*7919)
	}
	for _, c := range []struct {
		name string
		in   []byte
	}{{"plain", []byte(text.String())}, {"gzip", gz(b, text.String())}, {"zstd", zst(b, text.String())}, {"xz", xzc(b, text.String())}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(text.Len()))
			buf := make([]byte, 64<<10)
			for b.Loop() {
				z, err := NewReader(bytes.NewReader(c.in))
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := z.Read(buf); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
				z.Close()
			}
		})
	}
}
