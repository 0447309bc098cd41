package pqread

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// panicRows is a row reader whose decoder panics, as a damaged file could
// make one do.
type panicRows struct{ parquet.Rows }

func (panicRows) ReadRows([]parquet.Row) (int, error) { panic("index out of range") }

// TestReadRowsPanic checks that a panic of the decoder is the file's
// error, not the end of the program.
func TestReadRowsPanic(t *testing.T) {
	if n, err := ReadRows(panicRows{}, make([]parquet.Row, 1)); n != 0 || err == nil || !strings.Contains(err.Error(), "damaged: index out of range") {
		t.Errorf("ReadRows = %d, %v; want 0 and the panic as an error", n, err)
	}
}

// TestOpenNotParquet checks that bytes that are no Parquet file are an
// error.
func TestOpenNotParquet(t *testing.T) {
	b := []byte("PAR1 and then nothing a Parquet file holds PAR1")
	if _, err := Open(bytes.NewReader(b), int64(len(b))); err == nil {
		t.Error("no error for a file that is no Parquet file")
	}
}

// TestRows checks that Rows gives every row of every row group in order,
// numbered from 1, and stops at the first error of its function.
func TestRows(t *testing.T) {
	type row struct {
		N int64 `parquet:"n"`
	}
	rows := make([]row, 1000)
	for i := range rows {
		rows[i].N = int64(i + 1)
	}
	path := filepath.Join(t.TempDir(), "n.parquet")
	if err := WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := Open(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = Rows(pf, func(n int, r parquet.Row) error {
		seen++
		if n != seen || r[0].Int64() != int64(n) {
			return fmt.Errorf("row %d holds %d", n, r[0].Int64())
		}
		return nil
	})
	if err != nil || seen != len(rows) {
		t.Fatalf("%d rows, %v; want %d", seen, err, len(rows))
	}
	stop := errors.New("stop")
	seen = 0
	err = Rows(pf, func(n int, _ parquet.Row) error {
		seen++
		if n == 300 {
			return stop
		}
		return nil
	})
	if err != stop || seen != 300 {
		t.Errorf("%d rows, %v; want 300 and the function's error", seen, err)
	}
}

// TestOpenDamagedFooter checks that a file whose footer length is damaged
// (more than the file holds) or that is cut short is refused before the
// decoder allocates the footer: a byte changed there asked it for
// gigabytes.
func TestOpenDamagedFooter(t *testing.T) {
	type row struct {
		Text string `parquet:"text"`
	}
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := WriteFile(path, []row{{"a"}, {"b"}}); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bytes.NewReader(good), int64(len(good))); err != nil {
		t.Fatalf("the file as written: %v", err)
	}
	huge := bytes.Clone(good)
	copy(huge[len(huge)-8:], []byte{0x59, 0x01, 0x00, 0xfd}) // 4.2 GB
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"footer length", huge, "footer would be 4244635993 bytes"},
		{"cut short", good[:len(good)-3], "does not end with PAR1"},
		{"too short", good[:8], "too few for a Parquet file"},
	} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, err := Open(bytes.NewReader(tc.b), int64(len(tc.b)))
		runtime.ReadMemStats(&m1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error saying %q", tc.name, err, tc.want)
		}
		if d := m1.TotalAlloc - m0.TotalAlloc; d > 1<<20 {
			t.Errorf("%s: %d bytes allocated to refuse it", tc.name, d)
		}
	}
}
