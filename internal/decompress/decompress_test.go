package decompress

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// bzip2Hello is "hello\n" compressed by bzip2 1.0.8 (`printf 'hello\n' | bzip2 -9`) (the standard library
// has no bzip2 writer), and bzip2Empty the empty text.
var (
	bzip2Hello = []byte("BZh91AY&SY\xc1\xc0\x80\xe2\x00\x00\x01A\x00\x00\x10\x02D\xa0\x000\xcd\x00\xc3F)\x97\x17rE8P\x90\xc1\xc0\x80\xe2")
	bzip2Empty = []byte("BZh9\x17rE8P\x90\x00\x00\x00\x00")
)

// gz returns text compressed by gzip.
func gz(t testing.TB, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// zst returns text compressed by zstd.
func zst(t testing.TB, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
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
	g, z := gz(t, long), zst(t, long)
	damaged := bytes.Clone(g)
	damaged[len(damaged)-6] ^= 0xff // the CRC-32
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
	g := gz(t, strings.Repeat("some text that compresses\n", 5000))
	for _, in := range [][]byte{g[:len(g)/2], []byte("plain text\n")} {
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
		"x.zstd": "x", "x.txt.bz2": "x.txt", "x.csv": "x.csv", "x.tgz": "x.tgz", "gz": "gz",
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
	}{{"plain", []byte(text.String())}, {"gzip", gz(b, text.String())}, {"zstd", zst(b, text.String())}} {
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
