// Package store keeps neardup's documents durably in an embedded pebble
// database, with keys laid out so that whole hours of documents can be
// dropped at once and the index rebuilt from a compact scan.
//
//	db, err := store.Open("data", nil)
//
// Every document has a sequence number (Seq) whose high bits are the hour of
// its time, so records sort by hour: expiring a retention window is one
// DeleteRange per key space, not one delete per document. The key space "f"
// holds a small record per document (id, fingerprint, time, text hash and
// length, and where its text is), scanned on open to rebuild the index.
// Texts and metadata, read only to verify a candidate or answer Get, are
// kept outside pebble in a text log of one append-only file per hour
// (texts/), which expiry removes whole; stores written by earlier releases
// keep theirs in the key space "t", which is still read. An entry of the
// text log holds its document's record too, so that a commit syncs one
// file, the text log, and the next Open writes to pebble again the records
// a crash took from it (see DB.write).
package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable/block"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Errors returned by the store.
var (
	// ErrNotFound is returned when no record has the asked sequence number.
	ErrNotFound = errors.New("store: not found")
	// ErrClosed is returned by every method of a DB called after Close
	// (or while Close waits for the methods under way) that returns an
	// error, Close included, and by Commit for a batch made before or
	// after Close. The few methods without an error to return do not
	// fail: NewBatch returns a batch that can be filled but whose Commit
	// returns ErrClosed, DiskUsage returns 0, Syncs returns the syncs made
	// before Close, and TextMissing answers as it did before Close (it
	// reads nothing).
	ErrClosed = errors.New("store: closed")
	// ErrCorrupt is returned when a stored record cannot be decoded.
	ErrCorrupt = errors.New("store: corrupt record")
	// ErrInUse is returned by Open for a directory whose store another
	// process (or this one) has open.
	ErrInUse = errors.New("store: in use")
	// ErrNoStore is returned by Open with MustExist for a directory that
	// holds no store (or does not exist).
	ErrNoStore = errors.New("store: no store")
	// ErrNotStore is returned by Open for a directory that holds files a
	// store does not make: opening it would take it over, and pebble
	// deletes the files of its own kinds it does not know (a user's
	// 000001.log, say).
	ErrNotStore = errors.New("store: not a store")
)

// checkDir returns an error wrapping ErrNotStore when dir holds a file or
// directory whose name is none a store makes (storeFile); a missing or
// unreadable dir is left to the open to report.
func checkDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		if !storeFile(e.Name()) {
			return fmt.Errorf("%w: %s holds %q, which no store makes; give an empty directory, a new one, or one that holds a store",
				ErrNotStore, dir, e.Name())
		}
	}
	return nil
}

// Exists reports whether dir holds a store: pebble's manifest, which a
// store writes when it is created. It writes nothing.
func Exists(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "MANIFEST-") || strings.HasPrefix(n, "marker.manifest.") {
			return true
		}
	}
	return false
}

// storeFile reports whether name is that of a file or directory a store
// makes, or that a file system puts in an empty directory (lost+found):
// pebble's (LOCK, MANIFEST-, OPTIONS-, marker., temporary files, and
// numbered .log, .sst and .blob files), the text log's directory, and the
// engine's index snapshots (neardup-).
func storeFile(name string) bool {
	switch name {
	case "LOCK", "CURRENT", textDir, "lost+found":
		return true
	}
	for _, p := range []string{"MANIFEST-", "OPTIONS-", "marker.", "CURRENT.", "temporary.", "neardup-"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	if name == "" || name[0] < '0' || name[0] > '9' {
		return false
	}
	switch filepath.Ext(name) {
	case ".log", ".sst", ".blob":
		return true
	}
	return false
}

// Durability says when a write is acknowledged.
type Durability int

const (
	// GroupCommit (the default) merges the writes that arrive while a commit
	// is in flight into the next commit, synced to disk: every acknowledged
	// write survives a crash, and many writers share one fsync.
	GroupCommit Durability = iota
	// SyncEach commits and syncs every write on its own, one at a time
	// (still durable, but each writer pays its own sync).
	SyncEach
	// NoSync writes to the operating system without fsync: a killed process
	// loses nothing, a power failure may lose the last writes.
	NoSync
)

// String returns the name of d as accepted by ParseDurability.
func (d Durability) String() string {
	switch d {
	case GroupCommit:
		return "group"
	case SyncEach:
		return "sync"
	case NoSync:
		return "nosync"
	}
	return fmt.Sprintf("Durability(%d)", int(d))
}

// ParseDurability parses "group", "sync" or "nosync".
func ParseDurability(s string) (Durability, error) {
	switch s {
	case "group", "":
		return GroupCommit, nil
	case "sync":
		return SyncEach, nil
	case "nosync":
		return NoSync, nil
	}
	return 0, fmt.Errorf("store: unknown durability %q (want group, sync or nosync)", s)
}

// Compression says how the store compresses each text it writes (and
// pebble's files of records). It applies to what is written from then on:
// a store reads texts and files of every kind whatever its setting. The
// ratios below are of real mails (SpamAssassin) and Chinese prose (Guwen
// Guanzhi), compressed one document at a time.
type Compression int

const (
	// MinLZ (the default) compresses at about 380 MB/s, English to 58% of
	// its size and Chinese to 85%.
	MinLZ Compression = iota
	// Snappy compresses at about 240 MB/s, to 57% and 82%.
	Snappy
	// Zstd (level 1) compresses at about 80 MB/s, to 43% and 71%: the
	// least disk.
	Zstd
	// NoCompression stores texts as they are: the least CPU, the most
	// disk.
	NoCompression
)

// String returns the name of c as accepted by ParseCompression.
func (c Compression) String() string {
	switch c {
	case MinLZ:
		return "minlz"
	case Snappy:
		return "snappy"
	case Zstd:
		return "zstd"
	case NoCompression:
		return "none"
	}
	return fmt.Sprintf("Compression(%d)", int(c))
}

// ParseCompression parses "minlz", "snappy", "zstd" or "none"; "" means
// MinLZ.
func ParseCompression(s string) (Compression, error) {
	for c := MinLZ; c <= NoCompression; c++ {
		if s == c.String() {
			return c, nil
		}
	}
	if s == "" {
		return MinLZ, nil
	}
	return 0, fmt.Errorf("store: unknown compression %q (want minlz, snappy, zstd or none)", s)
}

// profile returns pebble's compression profile for c.
func (c Compression) profile() *block.CompressionProfile {
	switch c {
	case Snappy:
		return block.SnappyCompression
	case Zstd:
		return block.BalancedCompression // zstd level 1
	case NoCompression:
		return block.NoCompression
	}
	return block.MinLZCompression
}

// Options configure Open. The zero value is valid: a durable on-disk store
// with group commit.
type Options struct {
	// InMemory keeps everything in memory (pebble's in-memory file system);
	// dir is ignored. Default false.
	InMemory bool
	// Durability says when writes are acknowledged. Default GroupCommit.
	Durability Durability
	// CommitDelay is how long the group committer waits for more writes
	// before committing a group when writers are queueing (the group it
	// found ready holds more than one write); a lone writer is committed
	// at once. 0 means DefaultCommitDelay; negative never waits.
	CommitDelay time.Duration
	// CacheSize is pebble's block cache in bytes. Default 64 MiB.
	CacheSize int64
	// MemTableSize is pebble's memtable size in bytes: 0 (the default,
	// 64 MiB), or from MinMemTableSize to MaxMemTableSize.
	MemTableSize uint64
	// Compression says how texts (and files) are compressed. Default
	// MinLZ.
	Compression Compression
	// MustExist makes Open fail with ErrNoStore, writing nothing, when dir
	// holds no store, instead of creating one: for tools that read a store
	// that should be there (an export, a migration's source).
	MustExist bool
}

// DefaultCommitDelay is the default Options.CommitDelay. Measured with
// `neardup bench engine --docs 100000 --writers 1024 --commit-delay D`:
// waiting 1 ms gathers enough writes per sync to take durable throughput
// from about 29k to 35-42k documents a second, and 14% less CPU a
// document.
const DefaultCommitDelay = time.Millisecond

// The range of Options.MemTableSize (besides 0, the default).
//
// Pebble panics when it opens a store whose MemTableSize is below the
// arena an empty memtable takes (about 1.1 KB with the pinned version,
// which pebble does not export and may change); MinMemTableSize is a
// round size well above it. A memtable that small holds only a few
// documents before it is flushed: it is for tests, not for use. Pebble
// refuses sizes from 4 GiB - 1 on (its arena's offsets are uint32), so
// MaxMemTableSize is the largest it takes.
const (
	// MinMemTableSize is the smallest Options.MemTableSize but 0.
	MinMemTableSize uint64 = 64 << 10
	// MaxMemTableSize is the largest Options.MemTableSize.
	MaxMemTableSize uint64 = min(math.MaxUint32, math.MaxInt) - 1
)

// Validate reports whether o is usable.
func (o *Options) Validate() error {
	if o.MemTableSize != 0 && (o.MemTableSize < MinMemTableSize || o.MemTableSize > MaxMemTableSize) {
		return fmt.Errorf("store: MemTableSize %d out of range: want 0 (the default, 64 MiB) or %d to %d bytes",
			o.MemTableSize, MinMemTableSize, MaxMemTableSize)
	}
	if o.Durability < GroupCommit || o.Durability > NoSync {
		return fmt.Errorf("store: unknown durability %d", int(o.Durability))
	}
	if o.CommitDelay > time.Second {
		return fmt.Errorf("store: commit delay %v over 1s", o.CommitDelay)
	}
	if o.CacheSize < 0 {
		return fmt.Errorf("store: negative cache size %d", o.CacheSize)
	}
	if o.Compression < MinLZ || o.Compression > NoCompression {
		return fmt.Errorf("store: unknown compression %d", int(o.Compression))
	}
	return nil
}

// SeqBits is the number of low bits of a sequence number that count
// documents within an hour; the bits above hold the hour (hours since the
// Unix epoch).
const SeqBits = 40

// MakeSeq returns the sequence number of the n-th document of the hour that
// contains unix time t (seconds).
func MakeSeq(t int64, n uint64) uint64 {
	h := t / 3600
	if h < 0 {
		h = 0
	}
	return uint64(h)<<SeqBits | n&(1<<SeqBits-1)
}

// HourStart returns the first sequence number of the hour containing unix time t.
func HourStart(t int64) uint64 { return MakeSeq(t, 0) }

// Counter returns the within-hour counter part of seq.
func Counter(seq uint64) uint64 { return seq & (1<<SeqBits - 1) }

// Record is the compact per-document record kept in the "f" key space.
type Record struct {
	Seq         uint64
	ID          string
	Fingerprint []byte // big-endian fingerprint bytes
	Time        int64  // unix seconds
	TextHash    uint64 // hash of the text, to tell a re-insert from a conflict
	TextLen     int    // length of the text in runes
	NormLen     int    // length of the normalized text in runes; 0 when unknown
}

// Doc is a record with its text and metadata, for writing.
type Doc struct {
	Record
	Text []byte // nil when texts are not kept
	Meta []byte
}

const (
	prefixRecord = 'f'
	prefixText   = 't'
	prefixMeta   = 'm'
)

func key(prefix byte, seq uint64) []byte {
	var k [9]byte
	k[0] = prefix
	binary.BigEndian.PutUint64(k[1:], seq)
	return k[:]
}

// encodeRecord appends r's encoding to dst: a format version, then the
// fields. Version 2 adds NormLen after TextLen; a record without one is
// written as version 1, which earlier releases also read. Version 3 adds
// the text's place in the text log (ref) after NormLen. Version 4, whose
// text's entry holds the record (see logRecord), has the place last.
func encodeRecord(dst []byte, r *Record, ref textRef) []byte {
	version := byte(1)
	if ref.n > 0 {
		version = 3
	} else if r.NormLen > 0 {
		version = 2
	}
	dst = append(dst, version)
	dst = binary.AppendUvarint(dst, uint64(len(r.Fingerprint)))
	dst = append(dst, r.Fingerprint...)
	dst = binary.AppendVarint(dst, r.Time)
	dst = binary.BigEndian.AppendUint64(dst, r.TextHash)
	dst = binary.AppendUvarint(dst, uint64(r.TextLen))
	if version >= 2 {
		dst = binary.AppendUvarint(dst, uint64(r.NormLen))
	}
	if version == 3 {
		dst = binary.AppendUvarint(dst, ref.off)
		dst = binary.AppendUvarint(dst, ref.n)
	}
	dst = binary.AppendUvarint(dst, uint64(len(r.ID)))
	dst = append(dst, r.ID...)
	return dst
}

// logRecord appends to dst r's encoding as version 4 without the place:
// the record an entry of the text log holds, to which withPlace adds where
// that entry is.
func logRecord(dst []byte, r *Record) []byte {
	dst = append(dst, 4)
	dst = binary.AppendUvarint(dst, uint64(len(r.Fingerprint)))
	dst = append(dst, r.Fingerprint...)
	dst = binary.AppendVarint(dst, r.Time)
	dst = binary.BigEndian.AppendUint64(dst, r.TextHash)
	dst = binary.AppendUvarint(dst, uint64(r.TextLen))
	dst = binary.AppendUvarint(dst, uint64(r.NormLen))
	dst = binary.AppendUvarint(dst, uint64(len(r.ID)))
	return append(dst, r.ID...)
}

// withPlace appends to dst the record rec (from logRecord) completed with
// ref, the place of its entry.
func withPlace(dst, rec []byte, ref textRef) []byte {
	dst = append(dst, rec...)
	dst = binary.AppendUvarint(dst, ref.off)
	return binary.AppendUvarint(dst, ref.n)
}

// View is a record as ScanViews shows it: its byte slices point into the
// store's buffers and are valid only during the callback.
type View struct {
	Seq         uint64
	ID          []byte
	Fingerprint []byte
	Time        int64
	TextHash    uint64
	TextLen     int
	NormLen     int

	text textRef // where the text is in the text log
}

func decodeView(seq uint64, b []byte, v *View) error {
	*v = View{Seq: seq}
	bad := func(what string) error {
		return fmt.Errorf("%w: seq %d: %s", ErrCorrupt, seq, what)
	}
	if len(b) < 1 || b[0] < 1 || b[0] > 4 {
		return bad("unknown version")
	}
	version := b[0]
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return bad("fingerprint")
	}
	v.Fingerprint = b[k : k+int(n)]
	b = b[k+int(n):]
	t, k := binary.Varint(b)
	if k <= 0 {
		return bad("time")
	}
	v.Time = t
	b = b[k:]
	if len(b) < 8 {
		return bad("text hash")
	}
	v.TextHash = binary.BigEndian.Uint64(b)
	b = b[8:]
	l, k := binary.Uvarint(b)
	if k <= 0 || l > 1<<40 {
		return bad("text length")
	}
	v.TextLen = int(l)
	b = b[k:]
	if version >= 2 {
		l, k = binary.Uvarint(b)
		if k <= 0 || l > 1<<40 {
			return bad("normalized text length")
		}
		v.NormLen = int(l)
		b = b[k:]
	}
	place := func() error {
		off, k := binary.Uvarint(b)
		if k <= 0 {
			return bad("text offset")
		}
		b = b[k:]
		n, k := binary.Uvarint(b)
		if k <= 0 || n == 0 {
			return bad("text entry length")
		}
		b = b[k:]
		v.text = textRef{off: off, n: n}
		return nil
	}
	if version == 3 {
		if err := place(); err != nil {
			return err
		}
	}
	n, k = binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n || version < 4 && uint64(len(b)-k) != n {
		return bad("id")
	}
	v.ID = b[k : k+int(n)]
	if version == 4 {
		b = b[k+int(n):]
		if err := place(); err != nil {
			return err
		}
		if len(b) != 0 {
			return bad("trailing bytes")
		}
	}
	return nil
}

func decodeRecord(seq uint64, b []byte) (Record, error) {
	var v View
	if err := decodeView(seq, b, &v); err != nil {
		return Record{}, err
	}
	return v.Record(), nil
}

// Record returns a copy of v that outlives the callback.
func (v *View) Record() Record {
	return Record{Seq: v.Seq, ID: string(v.ID), Fingerprint: bytes.Clone(v.Fingerprint),
		Time: v.Time, TextHash: v.TextHash, TextLen: v.TextLen, NormLen: v.NormLen}
}

// DB is an open store. It is safe for concurrent use, Close included:
// Close waits for the methods under way (a DeleteBefore's compaction
// included), except ScanViews and Scan callbacks, which it does not wait
// for (a callback may call Close itself): their scans stop with ErrClosed
// when the callback returns, and the view a callback holds stays valid
// until then. Methods called while Close waits or after it return
// ErrClosed (see ErrClosed for the few that have no error to return).
type DB struct {
	db     *pebble.DB
	log    *textLog
	opts   Options
	logger *storeLogger
	closed atomic.Bool

	// closeMu orders Close after the methods under way: every method that
	// uses pebble or the text log holds its read side (enter) while it
	// does, and Close holds its write side. No method holds it while the
	// caller's code runs (a ScanViews callback), nor takes it twice: a
	// waiting Close blocks new readers, so a second read lock would
	// deadlock.
	closeMu sync.RWMutex
	// scans holds the iterators of the ScanViews under way, which Close
	// closes for the scans whose callbacks run (under scansMu, and
	// closeMu's read side or its write side).
	scansMu sync.Mutex
	scans   map[*pebble.Iterator]struct{}

	// group commit
	reqs      chan *commitReq
	wg        sync.WaitGroup
	submitted atomic.Uint64 // writes handed to the committer
	durable   atomic.Uint64 // writes known durable
	mu        sync.Mutex    // guards closing the reqs channel
	spare     *pebble.Batch // the committer's batch for groups, reused
	batches   sync.Pool     // committed Batches, for their buffers (recycle)
	// commitMu is held by whoever commits: the committer for a group, or
	// a writer committing on its own (see commitAlone).
	commitMu sync.Mutex
	alone    atomic.Uint64 // commits made by commitAlone
	replayed int           // records Open wrote again (replay)
	marks    []byte        // mark's buffer, under commitMu

	// groupWrites is a running mean of the documents a synced commit
	// carried, in 1/1024ths of a document, which decides where texts go
	// (see Batch.Put).
	groupWrites atomic.Int64
	syncs       atomic.Uint64 // synced commits that carried documents
	textPlace   int           // textsBySize, or a test's choice

	dir string // the directory, "" in memory
}

// logFromGroup is the mean number of documents per synced commit from
// which Put sends texts to the text log rather than into pebble. A commit
// then synced two files at once, which cost a lone writer latency, so
// commits of one or a few documents keep their texts in pebble (since
// such a commit syncs only the log, see write, sending every text there
// did not change the rate of 1 or 4 writers: docs/PERFORMANCE.md, HTTP
// service, "Tenth pass"). From
// there on the log wins: it takes less CPU per text, and texts kept out of
// pebble's memtable are not flushed to disk in bursts, which the syncs of
// later commits most likely waited behind. With 64 HTTP clients sending
// one document each (commits of a few dozen documents), p99 fell from
// 7.2-8.9 ms to 5.6-6.4 ms, and on a schedule of 20,000 requests a second
// p99 counted from the schedule fell from 137 ms to 24 ms, for 10% less
// of the peak rate (docs/PERFORMANCE.md, HTTP service, "Seventh pass";
// 128 before).
const logFromGroup = 8

// noteGroup records that a synced commit carried n documents: it counts
// the commit in Syncs (when n > 0) and moves the running mean. The mean is
// weighted by documents (a commit of one moves it 1/512 of the way, one of
// 512 or more all the way), so that it is the size of commit a document
// typically travels in: with many writers, lone documents are committed
// between the large groups, and counting them as groups kept texts in
// pebble much of the time.
func (s *DB) noteGroup(n int) {
	if n > 0 {
		s.syncs.Add(1)
	}
	w := int64(min(n, 512))
	g := s.groupWrites.Load()
	s.groupWrites.Store(g + (int64(n)<<10-g)*w/512)
}

// textsToLog reports whether Put sends texts to the text log.
func (s *DB) textsToLog() bool {
	switch s.textPlace {
	case textsInLog:
		return true
	case textsInPebble:
		return false
	}
	return s.opts.Durability == NoSync || s.groupWrites.Load() >= logFromGroup<<10
}

// Where Put sends texts: by the size of commits (the default), or, for
// tests, always to one place.
const (
	textsBySize = iota
	textsInLog
	textsInPebble
)

type commitReq struct {
	batch  *Batch // nil for a barrier
	ticket uint64
	done   chan error
}

// Open opens (creating if needed) the store in dir, or an in-memory store
// when opts.InMemory is set. A nil opts means the defaults.
func Open(dir string, opts *Options) (*DB, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.CacheSize == 0 {
		o.CacheSize = 64 << 20
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = 64 << 20
	}
	logger := &storeLogger{}
	po := &pebble.Options{
		MemTableSize:       o.MemTableSize,
		Logger:             logger,
		FormatMajorVersion: pebble.FormatValueSeparation,
	}
	// Texts go to blob files when flushed and stay there: compactions move
	// only keys, records and blob references, so a text is compressed and
	// written once instead of once per level.
	po.Experimental.ValueSeparationPolicy = func() pebble.ValueSeparationPolicy {
		return pebble.ValueSeparationPolicy{
			Enabled:               true,
			MinimumSize:           textBlobMinSize,
			MaxBlobReferenceDepth: 10,
			RewriteMinimumAge:     10 * time.Minute,
			TargetGarbageRatio:    0.2,
		}
	}
	levels := pebble.UniformDBCompressionSettings(o.Compression.profile())
	po.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return levels })
	cache := pebble.NewCache(o.CacheSize)
	defer cache.Unref()
	po.Cache = cache
	po.FS = vfs.Default
	if o.InMemory {
		po.FS = vfs.NewMem()
		dir = ""
	} else if dir == "" {
		return nil, errors.New("store: empty directory (set InMemory for an in-memory store)")
	} else if err := checkDir(dir); err != nil {
		return nil, err
	} else if o.MustExist && !Exists(dir) {
		return nil, fmt.Errorf("%w in %s: want the directory a neardup store was written in (by neardup serve --data or dedup --db)", ErrNoStore, dir)
	} else if err := checkComplete(dir); err != nil {
		return nil, err
	} else if err := checkRoom(dir); err != nil {
		return nil, err
	}
	var kfs *keepFS
	var found []string
	if !o.InMemory {
		found = tables(dir)
		kfs = &keepFS{FS: po.FS, keep: true}
		po.FS = kfs
	}
	pdb, err := pebble.Open(dir, po)
	if lockHeld(err) {
		return nil, fmt.Errorf("%w: %s: another process, or this one, has the store open (it holds %s): stop it, or use another directory",
			ErrInUse, dir, filepath.Join(dir, "LOCK"))
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	textFS := vfs.Default
	if o.InMemory {
		textFS = newMemTextFS(po.FS)
	}
	log, err := openTextLog(textFS, dir, o.Compression, !o.InMemory && o.Durability != NoSync)
	if err != nil {
		pdb.Close()
		return nil, err
	}
	s := &DB{db: pdb, log: log, opts: o, logger: logger, scans: make(map[*pebble.Iterator]struct{}), dir: dir}
	if kfs != nil {
		if err := s.checkWhole(dir, found); err != nil {
			log.close()
			pdb.Close()
			return nil, err
		}
		kfs.release()
	}
	if s.replayed, err = s.replay(); err != nil {
		log.close()
		pdb.Close()
		return nil, err
	}
	if o.Durability == GroupCommit {
		s.reqs = make(chan *commitReq, 4096)
		s.wg.Add(1)
		go s.committer()
	}
	return s, nil
}

// storeLogger is pebble's logger for one DB. It drops informational
// messages and errors (errors surface as returned errors), and keeps a
// fatal commit error instead of ending the process: pebble reports a write
// to its log that failed (a full disk, say) that way, not as the error of
// the commit, which then returns nil; pebbleWrite returns it instead, and
// from then on every write fails with it without reaching pebble, whose
// commits cannot go on. The DB's reads still work, and the next Open
// finds every write acknowledged before. Any other fatal error (a failed
// write of pebble's manifest, say, after which pebble's state on disk and
// in memory differ, or a checksum that does not match, found by a
// background compaction) still ends the process, as pebble's own logger
// does: one line on standard error and exit status 1, not a panic, whose
// stack trace would bury the message and whose unwinding trips pebble's
// own checks.
type storeLogger struct {
	commitErr atomic.Pointer[error]
}

func (*storeLogger) Infof(string, ...any)  {}
func (*storeLogger) Errorf(string, ...any) {}

func (l *storeLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf("store: pebble fatal: "+format, args...)
	// Pebble's report of on-disk corruption formats its error with %+v,
	// which adds the error's chain and stack traces on further lines.
	msg, _, _ = strings.Cut(msg, "\n")
	if strings.HasPrefix(format, fatalCommitPrefix) {
		err := errors.New(msg)
		l.commitErr.CompareAndSwap(nil, &err)
		return
	}
	fmt.Fprintln(os.Stderr, msg+" (the store cannot go on; stopping the process)")
	os.Exit(1)
}

// fatalCommitPrefix starts the format of pebble's fatal commit error
// (pebble.DB.Apply, pinned version).
const fatalCommitPrefix = "pebble: fatal commit error"

// pebbleWrite runs f, one write to pebble (a commit, Set, Delete or
// DeleteRange), and returns its error or the commit error pebble reported
// through the logger; once there is one, it returns that without running
// f (see storeLogger).
func (s *DB) pebbleWrite(f func() error) error {
	if err := s.logger.commitErr.Load(); err != nil {
		return *err
	}
	err := f()
	if ferr := s.logger.commitErr.Load(); ferr != nil {
		return *ferr
	}
	return err
}

// textBlobMinSize is the size from which a value (in practice a text) is
// kept in a blob file rather than in the sstables.
const textBlobMinSize = 256

// Batch collects puts and deletes to be committed together by Commit.
type Batch struct {
	s    *DB
	b    *pebble.Batch
	docs int // Puts
	buf  []byte
	// The documents bound for the text log: their entries, back to back,
	// each holding its record without the place (logRecord), which the
	// commit puts into b once it has queued the entries (place).
	entries []byte
	logged  []loggedDoc
	// ownSync says that pebble must sync the batch itself: it holds a
	// record or text that no entry of the text log holds, or a removal.
	ownSync bool
}

// loggedDoc is a document of a Batch bound for the text log.
type loggedDoc struct {
	seq    uint64
	entry  int // where its entry starts in entries
	entryN int // and its length
}

// NewBatch returns an empty batch. After Close it still returns one (it
// has no error to return ErrClosed with), which can be filled, but whose
// Commit returns ErrClosed.
func (s *DB) NewBatch() *Batch {
	b, _ := s.batches.Get().(*Batch)
	if b == nil {
		b = &Batch{s: s}
	}
	b.b = s.db.NewBatch()
	return b
}

// Put adds d to the batch: its record, and its text and metadata when
// either is non-nil. The text and metadata go into the batch, or, while
// synced commits carry many documents (logFromGroup), into an entry of the
// text log that holds the record too: the commit then syncs only the text
// log, from which the store's next Open writes again the records pebble
// lost (replay). d may be reused when Put returns.
func (b *Batch) Put(d *Doc) {
	b.docs++
	hasText := d.Text != nil || d.Meta != nil
	if hasText && b.s.textsToLog() {
		e0 := len(b.entries)
		b.buf = logRecord(b.buf[:0], &d.Record)
		b.entries = b.s.log.encode(b.entries, d.Seq, b.buf, d.Meta, d.Text)
		b.logged = append(b.logged, loggedDoc{seq: d.Seq, entry: e0, entryN: len(b.entries) - e0})
		return
	}
	b.ownSync = true
	b.buf = encodeRecord(b.buf[:0], &d.Record, textRef{})
	_ = b.b.Set(key(prefixRecord, d.Seq), b.buf, nil)
	if hasText {
		// Written straight into the batch: a text is the largest thing
		// stored, and copying it through a buffer first cost an
		// allocation a document.
		var head [binary.MaxVarintLen64]byte
		h := binary.PutUvarint(head[:], uint64(len(d.Meta)))
		k := key(prefixText, d.Seq)
		op := b.b.SetDeferred(len(k), h+len(d.Meta)+len(d.Text))
		copy(op.Key, k)
		n := copy(op.Value, head[:h])
		n += copy(op.Value[n:], d.Meta)
		copy(op.Value[n:], d.Text)
		_ = op.Finish()
	}
}

// place queues the entries of b's documents in the text log and puts
// their records, completed with the entries' places, into b's pebble
// batch. It reports whether b had any. The caller holds commitMu: entries
// are queued in the order their records commit, so that every entry before
// the text log's ends (see mark) belongs to a batch committed before.
func (b *Batch) place() (bool, error) {
	for _, d := range b.logged {
		e := b.entries[d.entry : d.entry+d.entryN]
		ref, err := b.s.log.append(d.seq, e)
		if err != nil {
			return false, err
		}
		rec, _, _ := entryRecord(e) // encode wrote it whole
		b.buf = withPlace(b.buf[:0], rec, ref)
		_ = b.b.Set(key(prefixRecord, d.seq), b.buf, nil)
	}
	return len(b.logged) > 0, nil
}

// Delete adds the removal of the document seq to the batch.
func (b *Batch) Delete(seq uint64) {
	b.ownSync = true
	_ = b.b.Delete(key(prefixRecord, seq), nil)
	_ = b.b.Delete(key(prefixText, seq), nil)
}

// Len returns the number of operations in the batch.
func (b *Batch) Len() int { return int(b.b.Count()) }

// Commit writes b and returns once it is as durable as the store's
// Durability says. The batch must not be used afterwards: its buffers go
// to a later NewBatch.
func (s *DB) Commit(b *Batch) error {
	err := s.commit(b)
	s.recycle(b)
	return err
}

// recycle keeps the buffers of b, committed, for a later NewBatch: without
// it, the entries of a batch's documents for the text log were a fifth of
// what the engine allocated under 64 HTTP clients.
func (s *DB) recycle(b *Batch) {
	entries := b.entries[:0]
	if cap(entries) > maxRecycled {
		entries = nil
	}
	*b = Batch{s: s, buf: b.buf[:0], entries: entries, logged: b.logged[:0]}
	s.batches.Put(b)
}

// maxRecycled is the largest buffer of entries a recycled Batch keeps:
// enough for a batch of 2,048 documents of a few KB (dedup's), whose
// buffer was otherwise grown again from nothing for every batch (6.6% of
// a dedup run's CPU, at 1 MiB; docs/PERFORMANCE.md, Engine).
const maxRecycled = 8 << 20

func (s *DB) commit(b *Batch) error {
	if err := s.enter(); err != nil {
		b.b.Close()
		return err
	}
	defer s.leave()
	switch s.opts.Durability {
	case SyncEach, NoSync:
		sync := s.opts.Durability == SyncEach
		s.commitMu.Lock()
		if sync {
			s.noteGroup(b.docs)
		}
		err := s.commitOne(b, sync)
		s.commitMu.Unlock()
		b.b.Close()
		if err != nil {
			return fmt.Errorf("store: commit: %w", err)
		}
		return nil
	}
	if done, err := s.commitAlone(b); done {
		return err
	}
	return s.send(b)
}

// commitOne places b's entries and commits it, synced or not. The caller
// holds commitMu.
func (s *DB) commitOne(b *Batch, sync bool) error {
	placed, err := b.place()
	if err != nil {
		return err
	}
	if placed {
		s.mark(b.b)
	}
	return s.write(b.b, sync, sync && b.ownSync)
}

// commitAlone commits b on the caller's goroutine, when nothing else is
// being committed or waits to be, and reports whether it did. A lone
// writer then skips the hand-over to the committer and back, two
// goroutine wake-ups: 64 HTTP clients sending one document each, whose
// requests the engine commits a batch at a time, ran about 3% faster
// (docs/PERFORMANCE.md, HTTP service, "Eighth pass"). Writes that arrive meanwhile queue for the committer, which
// waits for this commit: commits stay one at a time, in ticket order.
func (s *DB) commitAlone(b *Batch) (bool, error) {
	if !s.commitMu.TryLock() {
		return false, nil
	}
	defer s.commitMu.Unlock()
	s.mu.Lock()
	// Every ticket handed out is durable: no write waits in the queue or
	// in a group the committer holds.
	if s.closed.Load() || s.durable.Load() != s.submitted.Load() {
		s.mu.Unlock()
		return false, nil
	}
	ticket := s.submitted.Add(1)
	s.wg.Add(1) // Close waits for this commit
	s.mu.Unlock()
	defer s.wg.Done()
	s.noteGroup(b.docs)
	err := s.commitOne(b, true)
	b.b.Close()
	if err != nil {
		return true, fmt.Errorf("store: commit: %w", err)
	}
	s.durable.Store(ticket)
	s.alone.Add(1)
	return true, nil
}

// write commits pb: the texts queued in the log are written first, then
// synced with syncTexts, while pebble commits the records, itself synced
// only with syncPebble. A commit whose records all have entries in the text
// log needs one sync, of the log: pebble's own is skipped, and the store's
// next Open writes again what pebble lost (replay). Two files synced at
// once took 360 µs each at the median here, against 200 µs for one; 64
// HTTP clients sending one document each ran 7% faster, and 64 engine
// writers 13% (docs/PERFORMANCE.md, HTTP service, "Ninth pass").
func (s *DB) write(pb *pebble.Batch, syncTexts, syncPebble bool) error {
	if !syncPebble {
		if err := s.log.flush(syncTexts, nil); err != nil {
			return err
		}
		return s.pebbleWrite(func() error { return pb.Commit(pebble.NoSync) })
	}
	return s.log.flush(syncTexts, func() error { return s.pebbleWrite(func() error { return pb.Commit(pebble.Sync) }) })
}

// markKey holds the text log's marks: the end, in each hour's file, of the
// entries whose records a commit of pebble holds.
var markKey = []byte{prefixMeta, 0, 't', 'e', 'x', 't', 's'}

// mark puts into pb the ends of the entries queued in the text log so far
// (the caller holds commitMu, or is Open),
// all of them placed by pb's commit or earlier ones (see place). Pebble
// keeps a prefix of its commits through a crash: once it holds pb, it
// holds every record of an entry before those ends, and replay reads only
// what follows them.
func (s *DB) mark(pb *pebble.Batch) {
	s.marks = s.log.appendEnds(s.marks[:0])
	_ = pb.Set(markKey, s.marks, nil)
}

// replay writes to pebble again the records of the text log's entries past
// the marks that pebble does not hold: those of commits that synced only
// the text log (see write) and that a crash took from pebble. A store
// without marks (new, or written by a release whose pebble synced every
// record) has nothing to replay. Zeros written ahead past a file's entries
// are cut (trimTail). It then marks the ends of the files.
func (s *DB) replay() (int, error) {
	v, err := s.get(markKey)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return 0, err
	}
	pb := s.db.NewBatch()
	defer pb.Close()
	n := 0
	if err == nil {
		from := make(map[uint64]uint64)
		for len(v) > 0 {
			h, k := binary.Uvarint(v)
			if k <= 0 {
				return 0, fmt.Errorf("%w: text log marks", ErrCorrupt)
			}
			end, k2 := binary.Uvarint(v[k:])
			if k2 <= 0 {
				return 0, fmt.Errorf("%w: text log marks", ErrCorrupt)
			}
			from[h], v = end, v[k+k2:]
		}
		hours, err := s.log.hours()
		if err != nil {
			return 0, err
		}
		var view View
		var val []byte
		for _, h := range hours {
			end, err := s.log.scan(h, from[h], func(seq uint64, rec []byte, ref textRef) error {
				k := key(prefixRecord, seq)
				val = withPlace(val[:0], rec, ref)
				if seq>>SeqBits != h || decodeView(seq, val, &view) != nil {
					return nil // not a record this file can hold
				}
				_, closer, err := s.db.Get(k)
				if err == nil {
					closer.Close()
					return nil
				}
				if !errors.Is(err, pebble.ErrNotFound) {
					return fmt.Errorf("store: replay: %w", err)
				}
				n++
				return pb.Set(k, val, nil)
			})
			if err != nil {
				return 0, err
			}
			// Zeros written ahead that a crash left go, so that appends
			// go on right after the entries.
			if err := s.log.trimTail(h, end); err != nil {
				return 0, err
			}
		}
	}
	s.mark(pb)
	if err := s.pebbleWrite(func() error { return pb.Commit(pebble.Sync) }); err != nil {
		return 0, fmt.Errorf("store: replay: %w", err)
	}
	return n, nil
}

// send hands b (or a barrier, when b is nil) to the group committer and
// waits for its commit.
func (s *DB) send(b *Batch) error {
	r := &commitReq{batch: b, done: make(chan error, 1)}
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		if b != nil {
			b.b.Close()
		}
		return ErrClosed
	}
	if b != nil {
		r.ticket = s.submitted.Add(1)
	}
	s.reqs <- r
	s.mu.Unlock()
	return <-r.done
}

// Barrier returns once every write submitted before the call is durable.
// It is cheap when nothing is pending.
func (s *DB) Barrier() error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	if s.opts.Durability != GroupCommit {
		return nil
	}
	if s.durable.Load() >= s.submitted.Load() {
		return nil
	}
	return s.send(nil)
}

func (s *DB) committer() {
	defer s.wg.Done()
	delay := s.opts.CommitDelay
	if delay == 0 {
		delay = DefaultCommitDelay
	}
	var group []*commitReq
	for r := range s.reqs {
		group = append(group[:0], r)
		open := s.drain(&group, nil)
		// Writers are queueing up: wait a little for more, so that one
		// sync carries many writes. A lone writer is not kept waiting.
		if open && delay > 0 && len(group) > 1 {
			t := time.NewTimer(delay)
			s.drain(&group, t.C)
			t.Stop()
		}
		s.commitMu.Lock()
		s.commitGroup(group)
		s.commitMu.Unlock()
	}
	if s.spare != nil {
		s.spare.Close()
	}
}

// drain appends the queued requests to group: those already there when
// stop is nil, else those arriving until stop fires. It reports whether
// the queue is still open.
func (s *DB) drain(group *[]*commitReq, stop <-chan time.Time) bool {
	for {
		if stop == nil {
			select {
			case r, ok := <-s.reqs:
				if !ok {
					return false
				}
				*group = append(*group, r)
				continue
			default:
				return true
			}
		}
		select {
		case r, ok := <-s.reqs:
			if !ok {
				return false
			}
			*group = append(*group, r)
		case <-stop:
			return true
		}
	}
}

func (s *DB) commitGroup(group []*commitReq) {
	var lead *pebble.Batch
	var maxTicket uint64
	var err error
	// With more than one write, they are copied into one batch that the
	// next group reuses, so that its buffer soon has the size groups need
	// (a fresh one grown write by write copied each write about twice
	// more).
	size, writes, docs := 0, 0, 0
	ownSync, placed := false, false
	for _, r := range group {
		if r.batch != nil {
			size += r.batch.b.Len() + 96*len(r.batch.logged) // a record with its key
			writes++
			docs += r.batch.docs
			ownSync = ownSync || r.batch.ownSync
		}
	}
	if writes > 1 {
		if s.spare == nil {
			s.spare = s.db.NewBatchWithSize(size)
		} else {
			s.spare.Reset()
		}
		lead = s.spare
	}
	for _, r := range group {
		if r.batch == nil {
			continue
		}
		maxTicket = max(maxTicket, r.ticket)
		if err == nil {
			var p bool
			p, err = r.batch.place()
			placed = placed || p
		}
		if lead == nil {
			lead = r.batch.b
			continue
		}
		if err == nil {
			err = lead.Apply(r.batch.b, nil)
		}
		r.batch.b.Close()
	}
	if lead != nil {
		s.noteGroup(docs)
		if err == nil {
			if placed {
				s.mark(lead)
			}
			err = s.write(lead, true, ownSync)
		}
		if lead != s.spare {
			lead.Close()
		}
		if err != nil {
			err = fmt.Errorf("store: group commit: %w", err)
		} else {
			for {
				d := s.durable.Load()
				if d >= maxTicket || s.durable.CompareAndSwap(d, maxTicket) {
					break
				}
			}
		}
	}
	for _, r := range group {
		r.done <- err
	}
}

// enter takes closeMu's read side for a method that uses pebble or the
// text log, or returns ErrClosed once the store is closed (or closing).
// The method calls leave when it is done with them.
func (s *DB) enter() error {
	s.closeMu.RLock()
	if s.closed.Load() {
		s.closeMu.RUnlock()
		return ErrClosed
	}
	return nil
}

// leave gives back what enter took.
func (s *DB) leave() { s.closeMu.RUnlock() }

// get returns a copy of the value stored under k, or ErrNotFound. The
// caller has entered (or is Open).
func (s *DB) get(k []byte) ([]byte, error) {
	v, c, err := s.db.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: get %x: %w", k, err)
	}
	v = append([]byte(nil), v...)
	c.Close()
	return v, nil
}

// getText is get for the text of document seq kept in pebble, which may
// be in a blob file: it reads it through an iterator of its own, closed
// even when pebble panics at a damaged blob file (blobDamage).
func (s *DB) getText(seq uint64) (v []byte, err error) {
	k := key(prefixText, seq)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: k, UpperBound: append(k[:len(k):len(k)], 0)})
	if err != nil {
		return nil, fmt.Errorf("store: get %x: %w", k, err)
	}
	defer func() {
		if cerr := it.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("store: get %x: %w", k, cerr)
		}
	}()
	defer s.blobDamage(seq, &err)
	if !it.First() {
		if err := it.Error(); err != nil {
			return nil, fmt.Errorf("store: get %x: %w", k, err)
		}
		return nil, ErrNotFound
	}
	if v, err = it.ValueAndErr(); err != nil {
		return nil, fmt.Errorf("store: get %x: %w", k, err)
	}
	return append([]byte(nil), v...), nil
}

// blobPanic is the panic of pebble (pinned version) when a value's blob
// file is damaged or missing: its report of the damage lacks the file's
// metadata, and panics instead of returning the error.
const blobPanic = "unknown metadata type: <nil>"

// blobDamage, deferred by a read of the text of seq, turns pebble's panic
// at a damaged blob file (blobPanic) into an ErrCorrupt in *err; any other
// panic goes on.
func (s *DB) blobDamage(seq uint64, err *error) {
	r := recover()
	if r == nil {
		return
	}
	if msg, ok := r.(string); !ok || msg != blobPanic {
		panic(r)
	}
	*err = fmt.Errorf("%w: text %d: it is in a blob file (*.blob in %s) that is damaged or missing", ErrCorrupt, seq, s.dir)
}

// Record returns the record of document seq, or ErrNotFound.
func (s *DB) Record(seq uint64) (Record, error) {
	if err := s.enter(); err != nil {
		return Record{}, err
	}
	defer s.leave()
	v, err := s.get(key(prefixRecord, seq))
	if err != nil {
		return Record{}, err
	}
	return decodeRecord(seq, v)
}

// Text returns the text and metadata of document seq, or ErrNotFound when
// neither was stored. A text whose bytes in the text log do not check out
// gives ErrCorrupt.
func (s *DB) Text(seq uint64) (text, meta []byte, err error) {
	if err := s.enter(); err != nil {
		return nil, nil, err
	}
	defer s.leave()
	// A text is most likely where Put sends texts now: in pebble, one
	// lookup; in the log, the record's lookup and a read.
	inPebbleFirst := !s.textsToLog()
	if inPebbleFirst {
		if text, meta, err := s.pebbleText(seq); !errors.Is(err, ErrNotFound) {
			return text, meta, err
		}
	}
	rec, err := s.get(key(prefixRecord, seq))
	if err != nil {
		return nil, nil, err
	}
	var view View
	if err := decodeView(seq, rec, &view); err != nil {
		return nil, nil, err
	}
	if view.text.n > 0 {
		return s.log.read(seq, view.text)
	}
	if inPebbleFirst {
		return nil, nil, ErrNotFound
	}
	return s.pebbleText(seq)
}

// pebbleText returns a text kept in pebble, under the "t" key.
func (s *DB) pebbleText(seq uint64) (text, meta []byte, err error) {
	v, err := s.getText(seq)
	if err != nil {
		return nil, nil, err
	}
	n, k := binary.Uvarint(v)
	if k <= 0 || uint64(len(v)-k) < n {
		return nil, nil, fmt.Errorf("%w: text %d", ErrCorrupt, seq)
	}
	meta, text = v[k:k+int(n)], v[k+int(n):]
	if len(meta) == 0 {
		meta = nil
	}
	return text, meta, nil
}

// TextPlace says where the text of a record is, for TextAt: got from a
// View, it stays valid after the scan's callback returns.
type TextPlace struct{ ref textRef }

// TextPlace returns where the text of v is (see TextAt).
func (v *View) TextPlace() TextPlace { return TextPlace{v.text} }

// TextAt is Text for a record whose TextPlace a scan gave: a text in the
// text log is read without looking its record up again.
func (s *DB) TextAt(seq uint64, at TextPlace) (text []byte, err error) {
	text, _, err = s.TextMetaAt(seq, at)
	return text, err
}

// TextMetaAt is TextAt with the document's metadata too, as Text returns
// them.
func (s *DB) TextMetaAt(seq uint64, at TextPlace) (text, meta []byte, err error) {
	if at.ref.n == 0 {
		return s.Text(seq)
	}
	if err := s.enter(); err != nil {
		return nil, nil, err
	}
	defer s.leave()
	return s.log.read(seq, at.ref)
}

// TextMissing reports whether the text of the record v, stored before the
// store was opened, lies past the end its text file had at Open: the record
// of a commit that a stopped machine never finished, and never
// acknowledged, whose text was lost (a killed process loses no text). Such a
// record should be deleted; its Text is ErrCorrupt. It reads nothing, and
// answers after Close as before.
func (s *DB) TextMissing(v *View) bool { return s.log.missing(v.Seq, v.text) }

// Scan calls fn for every record whose sequence number is in [from, to)
// (to == 0: to the end), in sequence order, and stops at the first error
// fn returns. As with ScanViews, fn may call Close, after which the scan
// returns ErrClosed.
func (s *DB) Scan(from, to uint64, fn func(Record) error) error {
	return s.ScanViews(from, to, func(v *View) error { return fn(v.Record()) })
}

// SeqSpan returns the sequence numbers of the first and the last record,
// by two seeks; ok is false when the store holds no record.
func (s *DB) SeqSpan() (first, last uint64, ok bool, err error) {
	if err := s.enter(); err != nil {
		return 0, 0, false, err
	}
	defer s.leave()
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixRecord}, UpperBound: []byte{prefixRecord + 1}})
	if err != nil {
		return 0, 0, false, fmt.Errorf("store: seq span: %w", err)
	}
	seq := func() (uint64, error) {
		k := it.Key()
		if len(k) != 9 {
			return 0, fmt.Errorf("%w: key %x", ErrCorrupt, k)
		}
		return binary.BigEndian.Uint64(k[1:]), nil
	}
	if it.First() {
		if first, err = seq(); err == nil && it.Last() {
			last, err = seq()
			ok = err == nil
		}
	}
	if cerr := it.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("store: seq span: %w", cerr)
	}
	return first, last, ok, err
}

// ScanViews is Scan without copies: fn sees each record through a View
// valid only during the call. It is the fast path for rebuilding an index.
// fn may call the store's methods, Close included: a scan whose store
// closes while fn runs returns ErrClosed once fn returns (fn's own error,
// if it returned one), without calling it again.
func (s *DB) ScanViews(from, to uint64, fn func(*View) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	lo := key(prefixRecord, from)
	hi := key(prefixRecord, to)
	if to == 0 {
		hi = []byte{prefixRecord + 1}
	}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		s.leave()
		return fmt.Errorf("store: scan: %w", err)
	}
	// While fn runs, the scan holds no read lock, so that Close need not
	// wait for fn (which may be Close's caller): the iterator is in scans
	// for Close to close, and the view points into val, a copy of the
	// record, which stays valid whatever Close does.
	s.scansMu.Lock()
	s.scans[it] = struct{}{}
	s.scansMu.Unlock()
	held := true // whether the scan holds closeMu's read side
	defer func() {
		// fn panicked: the iterator goes, unless Close closed it.
		if it != nil && (held || s.enter() == nil) {
			s.endScan(it)
			s.leave()
		}
	}()
	var v View
	var val []byte
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) != 9 {
			err = fmt.Errorf("%w: key %x", ErrCorrupt, k)
			break
		}
		var raw []byte
		if raw, err = it.ValueAndErr(); err != nil {
			break
		}
		val = append(val[:0], raw...)
		if err = decodeView(binary.BigEndian.Uint64(k[1:]), val, &v); err != nil {
			break
		}
		held = false
		s.leave()
		err = fn(&v)
		if cerr := s.enter(); cerr != nil {
			// Closed meanwhile, with the iterator.
			it = nil
			if err == nil {
				err = cerr
			}
			return err
		}
		held = true
		if err != nil {
			break
		}
	}
	cerr := s.endScan(it)
	it = nil
	s.leave()
	if err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("store: scan: %w", cerr)
	}
	return nil
}

// endScan closes it, a scan's iterator, and drops it from scans. The
// caller has entered.
func (s *DB) endScan(it *pebble.Iterator) error {
	s.scansMu.Lock()
	delete(s.scans, it)
	s.scansMu.Unlock()
	return it.Close()
}

// DeleteBefore removes every document whose sequence number is below seq
// (whole hours, see MakeSeq) with range deletions, synced, then compacts
// the range and removes the text files of the hours before seq's, so the
// disk space is given back. It returns the bytes by which the store's
// usage (DiskUsage) fell meanwhile: 0 when nothing was removed.
func (s *DB) DeleteBefore(ctx context.Context, seq uint64) (uint64, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.leave()
	// What is freed is measured, the store's usage before less after:
	// pebble's estimate of a key range counts whole the files that
	// overlap it, and gave hundreds of bytes where nothing was removed.
	before := s.diskUsage()
	freed := func() uint64 { return uint64(max(0, int64(before)-int64(s.diskUsage()))) }
	for _, p := range []byte{prefixRecord, prefixText} {
		lo, hi := []byte{p}, key(p, seq)
		if err := s.pebbleWrite(func() error { return s.db.DeleteRange(lo, hi, pebble.Sync) }); err != nil {
			return 0, fmt.Errorf("store: delete range: %w", err)
		}
		if err := s.db.Compact(ctx, lo, hi, false); err != nil {
			return freed(), fmt.Errorf("store: compact: %w", err)
		}
	}
	err := s.log.removeBefore(seq >> SeqBits)
	return freed(), err
}

// SetMeta stores value under the metadata key name, synced; a nil value
// deletes it. Metadata is not touched by Scan or DeleteBefore.
func (s *DB) SetMeta(name string, value []byte) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	k := append([]byte{prefixMeta}, name...)
	var err error
	if value == nil {
		err = s.pebbleWrite(func() error { return s.db.Delete(k, pebble.Sync) })
	} else {
		err = s.pebbleWrite(func() error { return s.db.Set(k, value, pebble.Sync) })
	}
	if err != nil {
		return fmt.Errorf("store: meta %s: %w", name, err)
	}
	return nil
}

// Meta returns the value of the metadata key name, or ErrNotFound.
func (s *DB) Meta(name string) ([]byte, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.leave()
	return s.get(append([]byte{prefixMeta}, name...))
}

// Syncs returns how many synced commits carried documents since the store
// was opened. With group commit, the documents written divided by it is
// how many a sync carried on average. It stays 0 with NoSync. After Close
// it returns the count Close left.
func (s *DB) Syncs() uint64 { return s.syncs.Load() }

// DiskUsage returns an estimate of the bytes the store uses on disk (or in
// memory for an in-memory store), or 0 once the store is closed (it has
// no error to return ErrClosed with).
func (s *DB) DiskUsage() uint64 {
	if s.enter() != nil {
		return 0
	}
	defer s.leave()
	return s.diskUsage()
}

// diskUsage is DiskUsage; the caller has entered.
func (s *DB) diskUsage() uint64 {
	m := s.db.Metrics()
	// The WAL's physical size counts the files pebble has closed, not the
	// one it appends to: a store's recent writes (1.3 MB of them, say)
	// were missing until it was reopened. Its logical size counts them.
	wal := max(m.WAL.PhysicalSize, m.WAL.Size)
	return m.DiskSpaceUsage() - m.WAL.PhysicalSize + wal + uint64(max(0, s.log.bytes.Load()))
}

// Close waits for the methods under way and pending commits, then closes
// the database; it returns ErrClosed when the store is closed already.
// It does not wait for ScanViews (or Scan) callbacks that run: it may be
// called from one, and their scans return ErrClosed once the callback
// returns (see DB).
func (s *DB) Close() error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	s.mu.Lock()
	if s.closed.Swap(true) {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.reqs != nil {
		close(s.reqs)
	}
	s.mu.Unlock()
	s.wg.Wait()
	// The scans left are in their callbacks, and leave their iterators to
	// Close (see ScanViews); an iterator's error would have been theirs.
	s.scansMu.Lock()
	for it := range s.scans {
		_ = it.Close()
		delete(s.scans, it)
	}
	s.scansMu.Unlock()
	lerr := s.log.close()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return lerr
}

// lockHeld reports whether err, from pebble.Open, is its failure to take
// the directory's lock file because another holds it: fcntl's EAGAIN or
// EACCES (not an error opening the file, which names its path), or pebble's
// own refusal of a second lock in this process.
func lockHeld(err error) bool {
	if err == nil {
		return false
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) && (errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES)) {
		return true
	}
	return strings.Contains(err.Error(), "lock held by current process")
}
