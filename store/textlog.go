package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/minio/minlz"
)

// The text log keeps texts and metadata outside pebble, in one append-only
// file per hour of document time (texts/<hour>.log): a text is written
// once, by one write call of the group it was committed in, instead of to
// pebble's log, its memtable and then a flushed file, and an hour of texts
// is given back by removing one file when the retention window passes it.
// A document's record holds where its text is (textRef).
//
// A commit queues the entries of its batches, in commit order, writes them
// to their files, then syncs the files, and commits the records to pebble:
// without pebble's own sync when every record of the commit is in an entry
// (see DB.write), while the files sync otherwise. It returns once all of it
// is done, so an acknowledged write is durable whole: a record that pebble
// lost in a crash is written again from its entry when the store is opened
// (see DB.replay). Only a machine that stops in the middle of a commit
// whose pebble sync it waited for may keep records of that commit (never
// acknowledged) whose texts it lost; they point past the end their file
// has when the store is opened again (DB.TextMissing), and the engine
// deletes them when it opens. After a crash, appends go on from the end of
// each file, so a torn tail is never read as an entry; zeros written ahead
// (see textlog_ahead.go) are cut first.
//
// An entry is: a CRC-32C (Castagnoli) of the rest, little-endian; the
// document's sequence number, big-endian; the codec of the text; the
// metadata's length (uvarint) and the metadata; then the text as the codec
// wrote it. An entry with a record (codec | withRecord) holds, between the
// codec and the metadata, its own length (4 bytes, little-endian) and the
// document's record without its place (uvarint length, then the record),
// so that the log can be read in order and the records it holds written
// to pebble again (see replay in store.go).

const (
	textDir        = "texts"
	textFileSuffix = ".log"
	// entryHead is the fixed part of an entry: CRC, seq, codec.
	entryHead = 4 + 8 + 1
	// maxOpenTextFiles bounds the hour files kept open; older idle ones are
	// closed (and opened again when read) beyond it.
	maxOpenTextFiles = 128
)

// Codecs of an entry's text.
const (
	codecNone   = 0
	codecSnappy = 1
	codecMinLZ  = 2
	codecZstd   = 3
	// withRecord flags an entry that holds its length and its record.
	withRecord = 0x80
	// recordHead is the fixed part of an entry with a record: entryHead
	// and the length.
	recordHead = entryHead + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// textRef is where a document's entry is in its hour's text file.
type textRef struct {
	off, n uint64 // n == 0: no entry (texts stored the old way, or none)
}

type textLog struct {
	fs   vfs.FS
	dir  string
	comp Compression

	zencOnce sync.Once
	zenc     *zstd.Encoder
	zdecOnce sync.Once
	zdec     *zstd.Decoder

	mu    sync.RWMutex
	files map[uint64]*textFile // by hour
	tick  uint64               // use counter, for closing idle files
	bytes atomic.Int64         // bytes in all text files
	// openSizes holds each file's size when the log was opened.
	openSizes map[uint64]int64

	flushMu sync.Mutex // one flush (or removal) at a time

	// Zeros written ahead (see textlog_ahead.go): ahead is how far past
	// its entries the newest file is kept zeroed (0: not at all); zeroers
	// counts the goroutines writing them.
	ahead   int64
	zeroers sync.WaitGroup
}

type textFile struct {
	f        vfs.File
	written  int64  // bytes handed to the file by the flushes begun
	buf      []byte // entries appended since, not yet written
	spare    []byte // a written buffer, reused
	fresh    bool   // created since the last flush: the directory needs a sync
	flushing bool   // a flush is writing it
	used     uint64 // tick of the last use
	// size is the file's size: written, or more while zeros written ahead
	// follow the entries. zeroed is where the zeros that the zeroer wrote
	// and synced end (at most size); while a zeroer runs (extending is
	// open), no flush writes past zeroed. noAhead: zeros are not written
	// ahead in this file (the file cannot be truncated, or a zeroer
	// failed).
	size      int64
	zeroed    int64
	extending chan struct{}
	noAhead   bool
}

// openTextLog opens the text log in dir; with ahead, the newest file is
// kept zeroed past its entries (see textlog_ahead.go).
func openTextLog(fs vfs.FS, dir string, comp Compression, ahead bool) (*textLog, error) {
	l := &textLog{fs: fs, dir: fs.PathJoin(dir, textDir), comp: comp, files: make(map[uint64]*textFile), openSizes: make(map[uint64]int64)}
	if ahead {
		l.ahead = zeroAhead
	}
	if err := fs.MkdirAll(l.dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: text log: %w", err)
	}
	hours, err := l.hours()
	if err != nil {
		return nil, err
	}
	for _, h := range hours {
		info, err := fs.Stat(l.path(h))
		if err != nil {
			return nil, fmt.Errorf("store: text log: %w", err)
		}
		l.bytes.Add(info.Size())
		l.openSizes[h] = info.Size()
	}
	return l, nil
}

func (l *textLog) path(hour uint64) string {
	return l.fs.PathJoin(l.dir, fmt.Sprintf("%010d%s", hour, textFileSuffix))
}

// hours lists the hours that have a text file, in order.
func (l *textLog) hours() ([]uint64, error) {
	names, err := l.fs.List(l.dir)
	if err != nil {
		return nil, fmt.Errorf("store: text log: %w", err)
	}
	var hs []uint64
	for _, name := range names {
		base, ok := strings.CutSuffix(name, textFileSuffix)
		if !ok {
			continue
		}
		if h, err := strconv.ParseUint(base, 10, 64); err == nil {
			hs = append(hs, h)
		}
	}
	slices.Sort(hs)
	return hs, nil
}

// fileLocked returns the open file of hour, opening it, or creating it
// when create is set. The caller holds mu exclusively.
func (l *textLog) fileLocked(hour uint64, create bool) (*textFile, error) {
	l.tick++
	if tf := l.files[hour]; tf != nil {
		tf.used = l.tick
		return tf, nil
	}
	name := l.path(hour)
	// OpenReadWrite would create a missing file: a read must not, and a
	// new file's directory entry needs a sync with its first writes.
	_, err := l.fs.Stat(name)
	var f vfs.File
	fresh := false
	switch {
	case err == nil:
		f, err = l.fs.OpenReadWrite(name, vfs.WriteCategoryUnspecified)
	case errors.Is(err, os.ErrNotExist) && create:
		f, err = l.fs.Create(name, vfs.WriteCategoryUnspecified)
		fresh = true
	}
	if err != nil {
		return nil, fmt.Errorf("store: text file %s: %w", name, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: text file %s: %w", name, err)
	}
	tf := &textFile{f: f, written: info.Size(), size: info.Size(), zeroed: info.Size(), fresh: fresh, used: l.tick}
	l.files[hour] = tf
	l.closeIdleLocked(hour)
	return tf, nil
}

// closeIdleLocked closes the least recently used files with nothing to
// write, other than keep's, while more than maxOpenTextFiles are open.
func (l *textLog) closeIdleLocked(keep uint64) {
	for len(l.files) > maxOpenTextFiles {
		var oldest uint64
		var victim *textFile
		for h, tf := range l.files {
			if h != keep && len(tf.buf) == 0 && !tf.flushing && !tf.fresh && tf.extending == nil && (victim == nil || tf.used < victim.used) {
				oldest, victim = h, tf
			}
		}
		if victim == nil {
			return
		}
		l.trimLocked(victim)
		victim.f.Close()
		delete(l.files, oldest)
	}
}

// encode appends the entry of document seq to dst, with rec, its record
// without the place, unless rec is nil.
func (l *textLog) encode(dst []byte, seq uint64, rec, meta, text []byte) []byte {
	start := len(dst)
	codec := byte(codecNone)
	switch l.comp {
	case Snappy:
		codec = codecSnappy
	case MinLZ:
		codec = codecMinLZ
	case Zstd:
		codec = codecZstd
	}
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint64(dst, seq)
	codecAt := len(dst)
	dst = append(dst, codec)
	if rec != nil {
		dst = append(dst, 0, 0, 0, 0) // the length, below
		dst = binary.AppendUvarint(dst, uint64(len(rec)))
		dst = append(dst, rec...)
	}
	dst = binary.AppendUvarint(dst, uint64(len(meta)))
	dst = append(dst, meta...)
	body := len(dst)
	switch codec {
	case codecSnappy:
		dst = slices.Grow(dst, snappy.MaxEncodedLen(len(text)))
		out := snappy.Encode(dst[body:cap(dst)], text)
		dst = dst[:body+len(out)]
	case codecMinLZ:
		dst = slices.Grow(dst, minlz.MaxEncodedLen(len(text)))
		out, err := minlz.Encode(dst[body:cap(dst)], text, minlz.LevelFastest)
		if err != nil {
			// Only for texts over minlz's block size: stored as they
			// are, below.
			break
		}
		dst = dst[:body+len(out)]
	case codecZstd:
		dst = l.encoder().EncodeAll(text, dst)
	default:
		dst = append(dst, text...)
	}
	if codec != codecNone && (len(dst) == body || len(dst)-body >= len(text)) {
		// Not compressed, or incompressible: kept as it is.
		dst = append(dst[:body], text...)
		dst[codecAt] = codecNone
	}
	if rec != nil {
		dst[codecAt] |= withRecord
		binary.LittleEndian.PutUint32(dst[codecAt+1:], uint32(len(dst)-start))
	}
	binary.LittleEndian.PutUint32(dst[start:], crc32.Checksum(dst[start+4:], castagnoli))
	return dst
}

func (l *textLog) encoder() *zstd.Encoder {
	l.zencOnce.Do(func() {
		l.zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	})
	return l.zenc
}

func (l *textLog) decoder() *zstd.Decoder {
	l.zdecOnce.Do(func() {
		l.zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	})
	return l.zdec
}

// append queues the encoded entry e of document seq for the next flush
// and returns where it will be.
func (l *textLog) append(seq uint64, e []byte) (textRef, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tf, err := l.fileLocked(seq>>SeqBits, true)
	if err != nil {
		return textRef{}, err
	}
	off := tf.written + int64(len(tf.buf))
	tf.buf = append(tf.buf, e...)
	return textRef{off: uint64(off), n: uint64(len(e))}, nil
}

// appendEnds appends to dst, for every hour that has a file, the hour and
// the offset its next entry will have (the end of every entry queued so
// far), as uvarints.
func (l *textLog) appendEnds(dst []byte) []byte {
	l.mu.RLock()
	defer l.mu.RUnlock()
	for h, tf := range l.files {
		dst = binary.AppendUvarint(dst, h)
		dst = binary.AppendUvarint(dst, uint64(tf.written)+uint64(len(tf.buf)))
	}
	for h, n := range l.openSizes {
		if l.files[h] == nil {
			dst = binary.AppendUvarint(dst, h)
			dst = binary.AppendUvarint(dst, uint64(n))
		}
	}
	return dst
}

// scan calls fn with every entry with a record of hour's file from offset
// from on, in order: its document, its record (without the place, valid
// during the call) and where it is. It stops without an error at the end
// of the file, at an entry without a record (written before entries had
// them), and at a torn or damaged entry (the tail of a write that a crash
// cut short) or zeros (written ahead, see textlog_ahead.go), and returns
// where it stopped.
func (l *textLog) scan(hour, from uint64, fn func(seq uint64, rec []byte, ref textRef) error) (uint64, error) {
	f, err := l.fs.Open(l.path(hour))
	if err != nil {
		return 0, fmt.Errorf("store: text log: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("store: text log: %w", err)
	}
	size := uint64(info.Size())
	var buf []byte
	off := from
	for off+recordHead <= size {
		var head [recordHead]byte
		if _, err := f.ReadAt(head[:], int64(off)); err != nil {
			return off, fmt.Errorf("store: text log: %w", err)
		}
		n := uint64(binary.LittleEndian.Uint32(head[entryHead:]))
		if head[12]&withRecord == 0 || n < recordHead+1 || n > size-off {
			break
		}
		buf = slices.Grow(buf[:0], int(n))[:n]
		if _, err := f.ReadAt(buf, int64(off)); err != nil {
			return off, fmt.Errorf("store: text log: %w", err)
		}
		if binary.LittleEndian.Uint32(buf) != crc32.Checksum(buf[4:], castagnoli) {
			break
		}
		rec, _, ok := entryRecord(buf)
		if !ok {
			break
		}
		if err := fn(binary.BigEndian.Uint64(buf[4:]), rec, textRef{off: off, n: n}); err != nil {
			return off, err
		}
		off += n
	}
	return min(off, size), nil
}

// entryRecord splits e, a whole entry with a record, into the record and
// what follows it (the metadata and the text); ok is false when its
// length or the record's does not fit.
func entryRecord(e []byte) (rec, rest []byte, ok bool) {
	if len(e) < recordHead || int(binary.LittleEndian.Uint32(e[entryHead:])) != len(e) {
		return nil, nil, false
	}
	b := e[recordHead:]
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

// missing reports whether the entry at ref of document seq ends past the
// size its file had when the log was opened.
func (l *textLog) missing(seq uint64, ref textRef) bool {
	if ref.n == 0 {
		return false
	}
	l.mu.RLock() // removeBefore drops hours from openSizes
	size := l.openSizes[seq>>SeqBits]
	l.mu.RUnlock()
	return ref.off+ref.n > uint64(size)
}

// flush writes every queued entry to its file, then runs commit (if not
// nil; not when a write failed) and, with sync, at the same time syncs the
// files (and the directory, for new files). It returns once all of it is
// done, with the first error; every entry queued before the call is then
// written.
func (l *textLog) flush(sync bool, commit func() error) error {
	type job struct {
		tf    *textFile
		buf   []byte
		off   int64
		fresh bool
	}
	l.flushMu.Lock()
	var jobs []job
	var waits []chan struct{}
	l.mu.Lock()
	newest := uint64(0)
	for h := range l.files {
		newest = max(newest, h)
	}
	for h, tf := range l.files {
		if len(tf.buf) == 0 && !tf.fresh {
			continue
		}
		jobs = append(jobs, job{tf, tf.buf, tf.written, tf.fresh})
		tf.written += int64(len(tf.buf))
		if tf.extending != nil && tf.written > tf.zeroed {
			// The zeroer may still write where these entries go.
			waits = append(waits, tf.extending)
		}
		if tf.written > tf.size {
			l.bytes.Add(tf.written - tf.size)
			tf.size = tf.written
		}
		tf.buf, tf.spare = tf.spare[:0], nil
		tf.fresh, tf.flushing = false, true
		if h == newest {
			l.extendLocked(tf)
		}
	}
	l.mu.Unlock()
	for _, w := range waits {
		<-w
	}
	var err error
	for _, j := range jobs {
		if len(j.buf) > 0 {
			if _, werr := j.tf.f.WriteAt(j.buf, j.off); werr != nil && err == nil {
				err = fmt.Errorf("store: text log: %w", werr)
			}
		}
	}
	var committed chan error
	if commit != nil && err == nil {
		committed = make(chan error, 1)
		go func() { committed <- commit() }()
	}
	if sync && err == nil {
		dirSync := false
		for _, j := range jobs {
			if len(j.buf) > 0 && err == nil {
				err = j.tf.f.SyncData()
			}
			dirSync = dirSync || j.fresh
		}
		if dirSync && err == nil {
			err = l.syncDir()
		}
		if err != nil {
			err = fmt.Errorf("store: text log: %w", err)
		}
	}
	l.mu.Lock()
	for _, j := range jobs {
		j.tf.flushing = false
		if j.tf.spare == nil && cap(j.buf) <= 64<<20 {
			j.tf.spare = j.buf[:0]
		}
	}
	l.closeIdleLocked(math.MaxUint64)
	l.mu.Unlock()
	l.flushMu.Unlock()
	if committed != nil {
		if cerr := <-committed; err == nil {
			err = cerr
		}
	}
	return err
}

func (l *textLog) syncDir() error { return syncDir(l.fs, l.dir) }

// read returns the text and metadata of document seq from the entry at
// ref, checking that the entry is intact and is that document's.
func (l *textLog) read(seq uint64, ref textRef) (text, meta []byte, err error) {
	if ref.n < entryHead+1 || ref.n > math.MaxInt32 || ref.off > math.MaxInt64-ref.n {
		return nil, nil, fmt.Errorf("%w: text %d: bad location", ErrCorrupt, seq)
	}
	buf := make([]byte, ref.n)
	hour := seq >> SeqBits
	l.mu.RLock()
	tf := l.files[hour]
	if tf != nil {
		_, err = tf.f.ReadAt(buf, int64(ref.off))
		l.mu.RUnlock()
	} else {
		l.mu.RUnlock()
		l.mu.Lock()
		if tf, err = l.fileLocked(hour, false); err == nil {
			_, err = tf.f.ReadAt(buf, int64(ref.off))
		}
		l.mu.Unlock()
	}
	if errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%w: text %d: past the end of its file", ErrCorrupt, seq)
	}
	if errors.Is(err, os.ErrNotExist) {
		// Its hour was removed meanwhile (expiry).
		return nil, nil, fmt.Errorf("%w: text %d: %w", ErrNotFound, seq, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("store: text %d: %w", seq, err)
	}
	return l.decode(seq, buf)
}

func (l *textLog) decode(seq uint64, e []byte) (text, meta []byte, err error) {
	bad := func(what string) error { return fmt.Errorf("%w: text %d: %s", ErrCorrupt, seq, what) }
	if len(e) < entryHead || binary.LittleEndian.Uint32(e) != crc32.Checksum(e[4:], castagnoli) {
		return nil, nil, bad("checksum mismatch")
	}
	if binary.BigEndian.Uint64(e[4:]) != seq {
		return nil, nil, bad("entry of another document")
	}
	codec := e[12]
	b := e[entryHead:]
	if codec&withRecord != 0 {
		var ok bool
		if _, b, ok = entryRecord(e); !ok {
			return nil, nil, bad("entry or record length")
		}
		codec &^= withRecord
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, bad("metadata length")
	}
	meta, b = b[k:k+int(n)], b[k+int(n):]
	if len(meta) == 0 {
		meta = nil
	}
	switch codec {
	case codecNone:
		text = b
	case codecSnappy:
		text, err = snappy.Decode(nil, b)
	case codecMinLZ:
		text, err = minlz.Decode(nil, b)
	case codecZstd:
		text, err = l.decoder().DecodeAll(b, nil)
	default:
		return nil, nil, bad(fmt.Sprintf("unknown codec %d", codec))
	}
	if err != nil {
		return nil, nil, bad(err.Error())
	}
	if text == nil {
		text = []byte{}
	}
	return text, meta, nil
}

// removeBefore removes the files of the hours before hour.
func (l *textLog) removeBefore(hour uint64) error {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	// Zeroers start only in flushes: none starts until this returns.
	l.zeroers.Wait()
	hours, err := l.hours()
	if err != nil {
		return err
	}
	removed := false
	for _, h := range hours {
		if h >= hour {
			break
		}
		name := l.path(h)
		info, err := l.fs.Stat(name)
		if err != nil {
			return fmt.Errorf("store: text log: %w", err)
		}
		l.mu.Lock()
		if tf := l.files[h]; tf != nil {
			tf.f.Close()
			delete(l.files, h)
		}
		err = l.fs.Remove(name)
		// Not marked any more: a file made again for the hour starts
		// empty (see appendEnds).
		delete(l.openSizes, h)
		l.mu.Unlock()
		if err != nil {
			return fmt.Errorf("store: text log: %w", err)
		}
		l.bytes.Add(-info.Size())
		removed = true
	}
	if removed {
		if err := l.syncDir(); err != nil {
			return fmt.Errorf("store: text log: %w", err)
		}
	}
	return nil
}

// close closes every file, without the zeros written ahead; entries still
// queued are dropped (their commits failed).
func (l *textLog) close() error {
	l.zeroers.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	for h, tf := range l.files {
		l.trimLocked(tf)
		if cerr := tf.f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("store: text log: %w", cerr)
		}
		delete(l.files, h)
	}
	if l.zdec != nil {
		l.zdec.Close()
	}
	return err
}
