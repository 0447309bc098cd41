package neardup

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/par"
	"github.com/neardup/neardup/similarity"
	"github.com/neardup/neardup/store"
	"github.com/zeebo/xxh3"
)

// Durability says when the engine acknowledges a write; see the constants.
type Durability = store.Durability

// Durability settings.
const (
	// GroupCommit (the default) acknowledges a write once it is synced to
	// disk, merging the writes that arrive while a commit is in flight into
	// one commit: durable, and many writers share one fsync.
	GroupCommit = store.GroupCommit
	// SyncEach commits and syncs every write on its own.
	SyncEach = store.SyncEach
	// NoSync acknowledges writes once the operating system has them: a
	// killed process loses nothing, a power failure may.
	NoSync = store.NoSync
)

// Compression says how the store compresses the texts it keeps, one at a
// time; see the constants and docs/PERFORMANCE.md (Engine, "Eighth pass")
// for what each costs.
type Compression = store.Compression

// ParseCompression parses "minlz", "snappy", "zstd" or "none"; "" means
// MinLZ.
func ParseCompression(s string) (Compression, error) { return store.ParseCompression(s) }

// Compression settings.
const (
	// MinLZ (the default) compresses fastest: real English mails to 58%
	// of their size.
	MinLZ = store.MinLZ
	// Snappy compresses at about two thirds of MinLZ's speed, to 57%.
	Snappy = store.Snappy
	// Zstd (level 1) compresses at about a fifth of MinLZ's speed, to
	// 43%: the least disk.
	Zstd = store.Zstd
	// NoCompression keeps texts as they are: the least CPU.
	NoCompression = store.NoCompression
)

// Default option values.
const (
	DefaultRetention      = 48 * time.Hour
	DefaultExpiryInterval = time.Minute
	DefaultMaxTextBytes   = 16 << 20
	DefaultMaxMatches     = 10
	DefaultMaxCandidates  = 64
	DefaultMinFreeBytes   = 64 << 20
)

// Options configure an Engine. Open(dir, nil) uses DefaultOptions(). A
// non-nil Options is used as given except that zero numeric fields, a zero
// Policy and a zero Fingerprint config take their defaults; booleans are
// taken as they are (each is false in DefaultOptions too, so that
// Options{} means the defaults).
type Options struct {
	// Fingerprint selects the fingerprinting profile and width. Default
	// Config{Profile: "default", Bits: 64}. Only SimHash profiles (64 or
	// 128 bits) can be indexed; nilsimsa is refused. A store keeps a
	// record of the fingerprinter its documents were made with, and Open
	// refuses an engine whose fingerprints differ (ErrFingerprinterChanged).
	Fingerprint Config
	// Fingerprinter, if set, is used instead of building one from
	// Fingerprint. Its width must be 64 or 128.
	Fingerprinter Fingerprinter
	// K, if non-zero, replaces Policy.Long.MaxDistance: the Hamming
	// distance (for 64 bits) within which long texts are candidates.
	K int
	// Policy decides which candidates are duplicates. The zero Policy
	// means DefaultPolicy().
	Policy Policy
	// Retention is how long documents are kept, counted from their Time;
	// older ones are never returned and are removed in bulk. Default
	// DefaultRetention (48h, the seeds' two days); negative keeps them
	// forever.
	Retention time.Duration
	// RuleScoreOnly, when true, gives a duplicate's Match only the score
	// of the Policy rule that decided it (Similarity, and that measure in
	// Scores); the other Scores stay 0, as for a pair turned down. Those
	// are computed for the caller's information only, and edit distance,
	// the costly one, took a third of the CPU of `neardup dedup` on text
	// with many near-duplicates, whose report has no use for it. Default
	// false: every score.
	RuleScoreOnly bool
	// DropText, when true, stores no texts. Verification needs them (the
	// candidate's text is compared with the new one): without texts only
	// the Policy's distance bounds apply and Get returns no text. Default
	// false: texts are kept, so a zero Options verifies like the defaults.
	DropText bool
	// Durability says when a write is acknowledged. Default GroupCommit.
	Durability Durability
	// Compression says how the store compresses texts it writes from
	// then on (it reads what it wrote before, whatever the setting).
	// Default MinLZ.
	Compression Compression
	// CommitDelay bounds how long a group commit waits for more writes
	// when writers are queueing (a lone writer never waits). 0 means
	// store.DefaultCommitDelay (1 ms); negative never waits.
	CommitDelay time.Duration
	// InMemory keeps everything in memory (dir is then ignored); Open with
	// dir "" implies it.
	InMemory bool
	// ExpiryInterval is how often expired documents are removed. Default
	// DefaultExpiryInterval (1 minute); negative disables the background
	// pass (ExpireNow still works).
	ExpiryInterval time.Duration
	// Now is the clock; default time.Now. Tests inject their own.
	Now func() time.Time
	// MaxTextBytes bounds a document's text; longer ones get ErrTooLarge.
	// Default DefaultMaxTextBytes (16 MiB).
	MaxTextBytes int
	// RejectInvalidUTF8 refuses texts and ids that are not valid UTF-8
	// with ErrInvalidUTF8 (an id of invalid bytes cannot be asked for over
	// HTTP, whose client refuses it); by default invalid bytes of a text
	// read as U+FFFD, and an id is any bytes.
	RejectInvalidUTF8 bool
	// MaxMatches bounds Result.Matches. Default DefaultMaxMatches (10).
	MaxMatches int
	// MaxCandidates bounds how many index candidates, nearest first, are
	// verified per document. Default DefaultMaxCandidates (64).
	MaxCandidates int
	// ExpectedDocuments is the number of documents the store is expected to
	// hold; default 1M. It sizes the id map and the lock stripes' key
	// design. The index itself chooses its design for the documents it
	// holds, again each time it rebuilds its tables (index.Options
	// Adaptive), so a store that holds fewer documents is not slowed by
	// tables it does not need yet.
	ExpectedDocuments int
	// IndexBytesPerDocument is the memory the index of all texts may use
	// per document, which decides how many tables it has (index.Options
	// MaxBytesPerEntry). Default DefaultIndexBytesPerDocument (270): at the
	// default distance of 6 bits this allows 28 tables (design 8/2) from
	// about 350,000 documents held on (7 below, which keep all 64 bits of
	// each text while that fits: index.Options WideIfFits), which on SimHash
	// fingerprints of text answers 5 times faster than the 7 tables of the
	// leanest design (85 bytes) at a million; 50 million documents then
	// take about 13 GB, and twice that while a full rebuild swaps in new
	// tables, unless MemoryLimit bounds them.
	// Set 60 for the leanest design. At 128 bits each half of the
	// fingerprints has indexes of its own (see Engine.long), each with
	// this budget: up to twice the memory per document.
	IndexBytesPerDocument float64
	// MemoryLimit is the memory the engine may use, in bytes; 0 (the
	// default) for no bound. With a bound, the indexes that choose their
	// design as they grow (of long texts, and of short texts at the long
	// rule's distance) each keep within MemoryLimit*IndexMemoryShare,
	// counting the second copy of their tables that a full rebuild holds
	// (index.Options.MaxBytes), or at 128 bits each pair of them of the
	// two halves of the fingerprints together: as the store grows they
	// take fewer tables than IndexBytesPerDocument allows once those would
	// not fit, and queries cost more. An index read from a snapshot takes the bound
	// from its next full rebuild. `neardup serve` sets it to the Go
	// runtime's memory limit.
	MemoryLimit int64
	// MinFreeBytes is the free space the store's file system must keep:
	// while it has less, CheckAndInsert, CheckAndInsertBatch and Insert
	// return ErrDiskFull and store nothing, so that the store never runs
	// out mid-write (which stops the engine, see ErrStoreFailed). Reads,
	// Check, Delete and expiry go on, and writes resume once there is room
	// again. The engine measures the free space ten times a second. Default
	// DefaultMinFreeBytes (64 MiB); negative disables the check. A store
	// in memory is not checked.
	MinFreeBytes int64
}

// DefaultIndexBytesPerDocument is the default Options.IndexBytesPerDocument.
const DefaultIndexBytesPerDocument = 270

// IndexMemoryShare is the part of Options.MemoryLimit that each index
// choosing its design may hold, a rebuild's second copy included (at 128
// bits, each pair of them of the two halves of the fingerprints): two
// fifths each, so that with the short-text index, the id map and the
// caches a store of 50 million documents fits in the limit whatever its
// mix of short and long texts.
const IndexMemoryShare = 0.4

// DefaultOptions returns the options Open uses for a nil *Options: the
// default profile at 64 bits, DefaultPolicy, a 48-hour retention window,
// texts kept, group commit.
func DefaultOptions() Options {
	return Options{
		Fingerprint: Config{Profile: "default", Bits: 64},
		Policy:      DefaultPolicy(),
		Retention:   DefaultRetention,
		Durability:  GroupCommit,
	}
}

// Validate reports whether o is usable (after defaults are applied to zero
// fields).
func (o *Options) Validate() error {
	if o.K < 0 || o.K > 32 {
		return fmt.Errorf("neardup: k %d out of range [0, 32]", o.K)
	}
	if o.Policy != (Policy{}) {
		if err := o.Policy.Validate(); err != nil {
			return err
		}
	}
	if o.Durability < GroupCommit || o.Durability > NoSync {
		return fmt.Errorf("neardup: unknown durability %d", int(o.Durability))
	}
	if o.Compression < MinLZ || o.Compression > NoCompression {
		return fmt.Errorf("neardup: unknown compression %d", int(o.Compression))
	}
	if o.CommitDelay > time.Second {
		return fmt.Errorf("neardup: commit delay %v over 1s", o.CommitDelay)
	}
	if o.MemoryLimit < 0 {
		return fmt.Errorf("neardup: MemoryLimit %d is negative", o.MemoryLimit)
	}
	if !(o.IndexBytesPerDocument >= 0) {
		return fmt.Errorf("neardup: IndexBytesPerDocument %v is not a size", o.IndexBytesPerDocument)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"MaxTextBytes", o.MaxTextBytes}, {"MaxMatches", o.MaxMatches}, {"MaxCandidates", o.MaxCandidates}, {"ExpectedDocuments", o.ExpectedDocuments}} {
		if f.v < 0 {
			return fmt.Errorf("neardup: %s %d is negative", f.name, f.v)
		}
	}
	if b := o.Fingerprint.Bits; b != 0 && b != 64 && b != 128 {
		return fmt.Errorf("neardup: engine fingerprints must be 64 or 128 bits, not %d", b)
	}
	if o.Fingerprint.Profile == "nilsimsa" {
		return errors.New("neardup: the engine indexes SimHash fingerprints; nilsimsa is not supported")
	}
	if o.Fingerprinter != nil {
		// It replaces the profile, width and pipeline.
		if b := o.Fingerprinter.Bits(); b != 64 && b != 128 {
			return fmt.Errorf("neardup: the engine indexes 64- or 128-bit fingerprints, not %d", b)
		}
		return nil
	}
	// The profile, width and pipeline Open would refuse.
	if err := o.Fingerprint.Validate(); err != nil {
		return err
	}
	if o.Fingerprint.Pipeline != nil {
		return o.Fingerprint.Pipeline.Validate()
	}
	return nil
}

// indexMaxBytes is IndexMemoryShare of MemoryLimit, 0 without one: the
// memory of the indexes of one role that choose their design (see
// Engine.indexMaxBytes).
func (o *Options) indexMaxBytes() int64 {
	return int64(float64(o.MemoryLimit) * IndexMemoryShare)
}

func (o *Options) withDefaults() {
	if o.Fingerprint.Profile == "" {
		o.Fingerprint.Profile = "default"
	}
	if o.Fingerprint.Bits == 0 {
		o.Fingerprint.Bits = 64
	}
	if o.Policy == (Policy{}) {
		o.Policy = DefaultPolicy()
	}
	if o.K > 0 {
		o.Policy.Long.MaxDistance = o.K
	}
	if o.Retention == 0 {
		o.Retention = DefaultRetention
	}
	if o.ExpiryInterval == 0 {
		o.ExpiryInterval = DefaultExpiryInterval
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxTextBytes == 0 {
		o.MaxTextBytes = DefaultMaxTextBytes
	}
	if o.MaxMatches == 0 {
		o.MaxMatches = DefaultMaxMatches
	}
	if o.MaxCandidates == 0 {
		o.MaxCandidates = DefaultMaxCandidates
	}
	if o.ExpectedDocuments == 0 {
		o.ExpectedDocuments = 1 << 20
	}
	if o.IndexBytesPerDocument == 0 {
		o.IndexBytesPerDocument = DefaultIndexBytesPerDocument
	}
	if o.MinFreeBytes == 0 {
		o.MinFreeBytes = DefaultMinFreeBytes
	}
}

// Engine checks documents against the ones it holds and stores the new
// ones. It is safe for concurrent use.
//
// Ordering: a CheckAndInsert decides and inserts while holding the lock
// stripes of its fingerprint's index keys. Two fingerprints within the
// index's distance share a key, so near-duplicates submitted at the same
// moment are decided one after the other: exactly one is kept and the
// others name it, while unrelated documents rarely share a stripe and
// proceed in parallel.
type Engine struct {
	opts   Options
	fp     Fingerprinter
	bits   int
	policy Policy
	db     *store.DB
	// viewText says that prepare may read a document's text in place
	// instead of copying it: the fingerprinter is one of neardup's own,
	// which never writes to its input (a caller's Fingerprinter might).
	viewText bool
	// html says that texts are HTML (Pipeline.HTML): their lengths and
	// the policy's measures are those of the visible text (visible).
	html bool
	// fold says that the pipeline folds accents (Pipeline.FoldAccents):
	// the policy measures the folded text (visible).
	fold bool

	// Every document is in long or, when it is held in short (see
	// heldShort), in short and shortLong instead. long and shortLong answer
	// the Long rule's distance, short the wider Short rule's, its entries
	// tagged with their length (see shortIndex). A text the short index
	// is queried for finds the short texts there, so it needs only long's
	// texts from the Long rule's index (when one index held every text,
	// its query was a sixth of the CPU of checking a short text among
	// 300,000); any other text queries long and shortLong. short and
	// shortLong are nil when the Short rule is not wider. longKeys and
	// shortKeys stay empty: their table keys order every text and short
	// texts (see stripes).
	//
	// At 64 bits the indexes hold the fingerprints and answer the rules'
	// distances, longK and shortK. At 128 bits each of them holds the
	// high halves, and a twin of it (longLo, shortLo, shortLongLo; nil at
	// 64 bits) the low halves of the same documents, and every one is
	// queried at half its rule's distance, rounded down (longIxK,
	// shortIxK): two fingerprints within d bits have high halves or low
	// halves within d/2 (pigeonhole), so the two queries of a role miss
	// nothing, and each costs what a 64-bit query does. Before, one index
	// of the high halves was queried at the whole distance, 12 or 20 bits
	// of 64, where an index is about as slow as a scan (`neardup dedup
	// --bits 128` took eight to ten times the CPU of 64 bits, against
	// less than twice now). The matches are then
	// given their 128-bit distance (see widen), so that the nearest of
	// them are the nearest by the whole fingerprint.
	long        *index.Index
	short       *shortIndex
	shortLong   *index.Index
	longLo      *index.Index
	shortLo     *shortIndex
	shortLongLo *index.Index
	longKeys    *index.Index
	shortKeys   *index.Index
	// tinyKeys stays empty: its keys order tiny texts (see stripes), at
	// the Tiny rule's distance; nil when that is not wider than the Short
	// rule's.
	tinyKeys *index.Index
	// keys holds the deletion keys of tiny texts of at most
	// Policy.TinyWords words; nil when the policy has none, or texts are
	// not kept (there is nothing to verify a candidate with).
	keys *wordKeys
	// keyed are the stored texts whose keys Open makes, after it returns
	// (restoreKeys); keysMade is closed once they are made.
	keyed    []keyedRecord
	keysMade chan struct{}
	// keysFile and keysReader are the snapshot of the keys, when Open
	// found one, which restoreKeys reads instead of making the keys again.
	keysFile   *os.File
	keysReader *bufio.Reader
	// keysDone says that keys holds the keys of every stored tiny text
	// (made again, or read from the snapshot): only then does Close write
	// them to the snapshot.
	keysDone atomic.Bool
	// keysRead says that restoreKeys read the keys from the snapshot.
	keysRead      atomic.Bool
	longK, shortK int
	// longIxK and shortIxK are the distances the indexes are queried at:
	// longK and shortK at 64 bits, half of them at 128.
	longIxK, shortIxK int

	life    sync.RWMutex // held shared by operations, exclusively by Close
	closed  bool
	failure atomic.Pointer[error] // a store failure that stops writes
	free    atomic.Int64          // free bytes of the store's file system (see spaceErr)
	// freeSpace measures them (the package's freeSpace when opened).
	freeSpace func(dir string) (int64, bool)

	testHash func([]byte) uint64 // replaces the id hash in tests
	dir      string              // the store's directory ("" in memory)

	idLocks  [idStripes]sync.Mutex
	keyLocks [keyStripes]sync.Mutex
	ids      [idShards]idShard
	counter  atomic.Uint64
	// editSince is the first counter whose records' lengths count as the
	// Levenshtein ratio does (see editLengthsMeta).
	editSince uint64

	// Decisions are made without locks and checked under them: inserts
	// numbers the inserts and recent holds the latest ones' fingerprints,
	// removals counts the deletes, expiry passes and undone inserts. A
	// decision still holds when nothing was removed and none of the
	// inserts since it was made is a candidate of the document (see
	// stillHolds).
	removals atomic.Uint64
	inserts  atomic.Uint64
	recent   [recentSize]recentInsert

	pendMu  sync.Mutex
	pending map[uint64]*pendingDoc // decided, not yet durable

	expireMu    sync.Mutex
	expiredTo   uint64 // every seq below it has been range-deleted
	stop        chan struct{}
	bg          sync.WaitGroup
	comb        combiner      // CheckAndInsert calls for the runners
	deciding    chan struct{} // a slot per chunk being decided (decideInOrder)
	openTime    time.Duration
	nChecks     atomic.Uint64
	nInserts    atomic.Uint64
	nDups       atomic.Uint64
	nCands      atomic.Uint64
	nRejected   atomic.Uint64
	nExpired    atomic.Uint64
	nDeleted    atomic.Uint64
	keyScratch  sync.Pool
	normScratch sync.Pool // *normScratch, for normalizedRunes
	sketches    sketchCache

	fromSnapshot bool // Open loaded the indexes from a snapshot
	missingTexts int  // records deleted at Open for their missing texts (dropLost)
}

// indexMaxBytes is index.Options.MaxBytes for the indexes that choose
// their design: Options.indexMaxBytes, split between the two halves' indexes
// of a role at 128 bits.
func (e *Engine) indexMaxBytes() int64 {
	return e.opts.indexMaxBytes() / int64(e.bits/64)
}

// stripeDesign returns the design whose table keys give texts their lock
// stripes for a rule of distance o.K (see stripes): one table per block of
// K+1 while the blocks are at least 5 bits wide (K <= 11), otherwise the
// design the index would choose for o.ExpectedN. Stripes only make the
// inserts of near texts take turns (decisions are checked against the
// inserts themselves, see stillHolds), so few wide stripes beat many
// narrow ones: at K=6 a text takes 7 locks instead of the 28 of the 8/2
// design, and at the Short rule's 10 bits 11 instead of the 66 of 12/2,
// which took short texts through `bench engine --text-bytes 350` 14-22%
// faster and batches of `bench serve` 10-20%.
func stripeDesign(o index.Options) index.Design {
	if b := o.K + 1; 64/b >= 5 {
		return index.Design{Levels: []index.Level{{Blocks: b, Key: 1}}}
	}
	return index.ChooseDesign(o.K, o.ExpectedN, o.MaxBytesPerEntry)
}

// recentInsert is one slot of Engine.recent, written as a seqlock: stamp
// is 0 while the slot is written, then the insert's number plus one,
// shifted left by one, with the low bit set for a short text.
type recentInsert struct {
	stamp atomic.Uint64
	fp    atomic.Uint64
	// lo is the low half of a 128-bit fingerprint (fp its high half), 0
	// at 64 bits.
	lo  atomic.Uint64
	seq atomic.Uint64
	// held is heldShortBit with the text's tag (see tag) when the short
	// index holds it, 0 when the long index does.
	held atomic.Uint64
}

// heldShortBit marks, in recentInsert.held, an insert into the short index,
// and heldKeysBit one with deletion keys (Engine.keys).
const (
	heldShortBit = 1 << 16
	heldKeysBit  = 1 << 17
)

// recentSize is how many inserts Engine.recent remembers: a decision whose
// window saw more is made again under the locks.
const recentSize = 1 << 14

const (
	idStripes  = 1 << 10
	keyStripes = 1 << 16
	idShards   = 64
)

// docRef locates a stored document.
type docRef struct {
	seq  uint64
	time int64
}

// idShard maps document ids to their documents. Ids are kept by their
// 64-bit hash, which keeps memory and the rebuild on open small; an id
// whose hash collides with another stored id's goes to over, by string.
// Hits in m are confirmed against the stored record's id.
type idShard struct {
	mu   sync.RWMutex
	m    map[uint64]docRef
	over map[string]docRef
}

func (e *Engine) shard(h uint64) *idShard { return &e.ids[h%idShards] }

// hashID is the id map's hash of id; tests replace it to force collisions.
func (e *Engine) hashID(id []byte) uint64 {
	if e.testHash != nil {
		return e.testHash(id)
	}
	return xxh3.Hash(id)
}

func (e *Engine) hashIDString(id string) uint64 {
	if e.testHash != nil {
		return e.testHash([]byte(id))
	}
	return xxh3.HashString(id)
}

// idStatus is what lookup found.
type idStatus int

const (
	idAbsent    idStatus = iota
	idFound              // ref is the id's document
	idCollision          // another id with the same hash is stored
)

// lookup finds the document stored under id.
func (e *Engine) lookup(id string) (docRef, idStatus, error) {
	h := e.hashIDString(id)
	s := e.shard(h)
	s.mu.RLock()
	r, over := s.over[id]
	if !over {
		var ok bool
		if r, ok = s.m[h]; !ok {
			s.mu.RUnlock()
			return docRef{}, idAbsent, nil
		}
	}
	s.mu.RUnlock()
	if over {
		return r, idFound, nil
	}
	rec, err := e.record(r.seq)
	if errors.Is(err, store.ErrNotFound) {
		return docRef{}, idAbsent, nil
	}
	if err != nil {
		return docRef{}, idAbsent, fmt.Errorf("neardup: %q: %w", id, err)
	}
	if rec.ID != id {
		return docRef{}, idCollision, nil
	}
	return r, idFound, nil
}

// setID records that id is stored as r; collision says another id with the
// same hash is stored (lookup's idCollision).
func (e *Engine) setID(id string, r docRef, collision bool) {
	h := e.hashIDString(id)
	s := e.shard(h)
	s.mu.Lock()
	if _, ok := s.over[id]; ok || collision {
		if s.over == nil {
			s.over = make(map[string]docRef)
		}
		s.over[id] = r
	} else {
		s.m[h] = r
	}
	s.mu.Unlock()
}

// dropID removes id if it still refers to seq.
func (e *Engine) dropID(id []byte, seq uint64) bool {
	h := e.hashID(id)
	s := e.shard(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.over[string(id)]; ok && r.seq == seq {
		delete(s.over, string(id))
		return true
	}
	if r, ok := s.m[h]; ok && r.seq == seq {
		delete(s.m, h)
		return true
	}
	return false
}

// Open opens the engine whose store is in dir, creating it if needed, and
// restores its index from the stored fingerprints. dir "" or
// opts.InMemory gives an in-memory engine. A nil opts means
// DefaultOptions().
func Open(dir string, opts *Options) (*Engine, error) {
	return openWithHash(dir, opts, nil)
}

// openWithHash is Open with the id hash replaced (for tests).
func openWithHash(dir string, opts *Options, hash func([]byte) uint64) (*Engine, error) {
	start := time.Now()
	o := DefaultOptions()
	if opts != nil {
		o = *opts
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o.withDefaults()
	if dir == "" {
		o.InMemory = true
	}
	e := &Engine{opts: o, policy: o.Policy, testHash: hash, pending: make(map[uint64]*pendingDoc), stop: make(chan struct{})}
	e.clearIDMap()
	if o.Fingerprinter != nil {
		e.fp = o.Fingerprinter
	} else {
		fp, err := NewFingerprinter(o.Fingerprint)
		if err != nil {
			return nil, err // its message names the package already
		}
		e.fp = fp
		e.viewText = true
		// The pipeline reads HTML: the policy measures the same visible
		// text, not the markup around it.
		e.html = o.Fingerprint.ReadsHTML()
		e.fold = o.Fingerprint.FoldsAccents()
	}
	e.bits = e.fp.Bits()
	if e.bits != 64 && e.bits != 128 {
		return nil, fmt.Errorf("neardup: open: the engine indexes 64- or 128-bit fingerprints, not %d", e.bits)
	}
	e.longK = scale(e.policy.Long.MaxDistance, e.bits)
	e.shortK = scale(e.policy.Short.MaxDistance, e.bits)
	// At 128 bits each index holds one half and is queried at half the
	// distance (see Engine.long).
	e.longIxK, e.shortIxK = e.longK, e.shortK
	wide := e.bits != 64
	if wide {
		e.longIxK, e.shortIxK = e.longK/2, e.shortK/2
	}
	var err error
	// Wide tables while the design fits the budget wide: fingerprints of
	// text crowd the short keys of the lean designs (index.Options
	// WideIfFits).
	longOpts := index.Options{K: min(e.longIxK, index.MaxK), ExpectedN: o.ExpectedDocuments, MaxBytesPerEntry: o.IndexBytesPerDocument, WideIfFits: true, MaxBytes: e.indexMaxBytes()}
	// Stays empty: only its keys are used, to order texts (see stripes),
	// and they must not change as the long index changes its design.
	if e.longKeys, err = index.New(index.Options{K: longOpts.K, Design: stripeDesign(longOpts)}); err != nil {
		return nil, fmt.Errorf("neardup: open: %w", err)
	}
	longOpts.Adaptive = true
	if e.long, err = index.New(longOpts); err != nil {
		return nil, fmt.Errorf("neardup: open: %w", err)
	}
	if wide {
		if e.longLo, err = index.New(longOpts); err != nil {
			return nil, fmt.Errorf("neardup: open: %w", err)
		}
	}
	tinyK := 0 // the Tiny rule's distance, when there are tiny texts
	if e.policy.TinyLength > 0 {
		tinyK = scale(e.policy.Tiny.MaxDistance, e.bits)
	}
	// The deletion keys of tiny texts (TinyWords) live with the short
	// index: it is built for them even when the Long rule's distance
	// reaches the others' (a K of 14 or more), whose radius then covers
	// (shortIndex.radius). Without it a larger K found fewer duplicates:
	// the tiny texts one word apart and farther than K.
	words := e.policy.TinyLength > 0 && e.policy.TinyWords > 0 && !o.DropText
	if (max(e.shortK, tinyK) > e.longK || words) && e.policy.ShortLength > 0 {
		if e.short, err = newShortIndex(e.policy, e.bits, o.ExpectedDocuments/4); err != nil {
			return nil, fmt.Errorf("neardup: open: %w", err)
		}
		shortLongOpts := longOpts
		shortLongOpts.ExpectedN = o.ExpectedDocuments / 4
		if e.shortLong, err = index.New(shortLongOpts); err != nil {
			return nil, fmt.Errorf("neardup: open: %w", err)
		}
		if wide {
			if e.shortLo, err = newShortIndex(e.policy, e.bits, o.ExpectedDocuments/4); err != nil {
				return nil, fmt.Errorf("neardup: open: %w", err)
			}
			if e.shortLongLo, err = index.New(shortLongOpts); err != nil {
				return nil, fmt.Errorf("neardup: open: %w", err)
			}
		}
		// Stays empty: only its keys are used, to order short texts.
		shortOpts := index.Options{K: min(e.shortIxK, index.MaxK), ExpectedN: o.ExpectedDocuments / 4, MaxBytesPerEntry: 800}
		if e.shortKeys, err = index.New(index.Options{K: shortOpts.K, Design: stripeDesign(shortOpts)}); err != nil {
			return nil, fmt.Errorf("neardup: open: %w", err)
		}
		if tinyK > e.shortK {
			// Stays empty: only its keys are used, to order tiny texts.
			tinyOpts := shortOpts
			tinyOpts.K = min(tinyK/(e.bits/64), index.MaxK)
			if e.tinyKeys, err = index.New(index.Options{K: tinyOpts.K, Design: stripeDesign(tinyOpts)}); err != nil {
				return nil, fmt.Errorf("neardup: open: %w", err)
			}
		}
	}
	if e.short != nil && words {
		e.keys = newWordKeys()
	}
	e.keyScratch.New = func() any { s := make([]uint64, 0, 128); return &s }
	e.db, err = store.Open(dir, &store.Options{InMemory: o.InMemory, Durability: o.Durability, CommitDelay: o.CommitDelay, Compression: o.Compression})
	if err != nil {
		return nil, fmt.Errorf("neardup: open: %w", err)
	}
	oldLengths := false
	if !o.InMemory {
		e.dir = dir
		if err := e.checkFingerprinter(); err != nil {
			e.db.Close()
			if errors.Is(err, ErrFingerprinterChanged) {
				return nil, err
			}
			return nil, fmt.Errorf("neardup: open %s: %w", dir, err)
		}
		if oldLengths, err = e.readEditLengths(); err != nil {
			e.db.Close()
			return nil, fmt.Errorf("neardup: open %s: %w", dir, err)
		}
	}
	snapLoaded, err := e.restoreAll(oldLengths)
	if err == nil && oldLengths {
		err = e.markEditLengths()
	}
	if err != nil {
		e.db.Close()
		return nil, fmt.Errorf("neardup: open %s: %w", dir, err)
	}
	e.openTime, e.fromSnapshot = time.Since(start), snapLoaded
	e.deciding = make(chan struct{}, deciders)
	e.startCombiner()
	e.keysMade = make(chan struct{})
	if len(e.keyed) > 0 {
		rs := e.keyed
		e.keyed = nil
		e.bg.Go(func() { e.restoreKeys(rs) })
	} else {
		e.closeKeysSnapshot() // nothing to read them for
		close(e.keysMade)
		e.keysDone.Store(true)
	}
	e.free.Store(math.MaxInt64) // unknown: writes go on
	if e.checksSpace() {
		e.freeSpace = freeSpace
		e.measureSpace()
		e.every(spaceInterval, e.measureSpace)
	}
	if o.ExpiryInterval > 0 && o.Retention > 0 {
		e.every(o.ExpiryInterval, e.expire)
	}
	return e, nil
}

// restoreAll restores the indexes, from the snapshot of the last clean
// Close when there is a valid one, else from the records, and the id map
// from the records; it reports whether the snapshot was used. The snapshot
// is read while the records are scanned: at 10M documents each took about
// 5 s. With oldLengths (see readEditLengths), or when the snapshot's texts
// were placed by another length (samePlacement), the snapshot is not used.
func (e *Engine) restoreAll(oldLengths bool) (fromSnapshot bool, err error) {
	if e.dir == "" {
		return false, e.restore(true, nil)
	}
	tok, err := e.db.Meta(snapshotMeta)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	same, perr := e.samePlacement()
	if perr != nil {
		return false, perr
	}
	if err != nil || oldLengths || !same || !e.snapshotNamed(tok) {
		// None to load (the last exit was not a clean Close, or the
		// files are gone): stale files go, and the indexes are rebuilt.
		if err := e.invalidateSnapshot(); err != nil {
			return false, err
		}
		return false, e.restore(true, nil)
	}
	// The empty indexes, for a rebuild if the snapshot disagrees with the
	// records once loaded.
	long, shortLong, longLo, shortLongLo := e.long, e.shortLong, e.longLo, e.shortLongLo
	var short, shortLo *index.Index
	if e.short != nil {
		short = e.short.ix
	}
	if e.shortLo != nil {
		shortLo = e.shortLo.ix
	}
	loaded := make(chan error, 1)
	if e.keys != nil {
		// Opened now, read once Open returns (restoreKeys).
		e.keysFile, e.keysReader = e.openKeysSnapshot(tok)
	}
	go func() {
		ok, err := e.loadSnapshot(tok)
		if err == nil {
			err = e.invalidateSnapshot()
		}
		if err == nil && !ok {
			err = errNoSnapshot
		}
		loaded <- err
	}()
	err = e.restore(false, loaded)
	if err != nil {
		e.closeKeysSnapshot() // the keys are made from the texts
	}
	if !errors.Is(err, errNoSnapshot) {
		return err == nil, err
	}
	// The snapshot did not load (left by another version, or damaged), or
	// holds other documents than the records: scan again, this time
	// building the indexes.
	e.long, e.shortLong, e.longLo, e.shortLongLo = long, shortLong, longLo, shortLongLo
	if e.short != nil {
		e.short.ix = short
	}
	if e.shortLo != nil {
		e.shortLo.ix = shortLo
	}
	e.clearIDMap()
	return false, e.restore(true, nil)
}

// clearIDMap empties the id map, each shard sized for its part of
// Options.ExpectedDocuments.
func (e *Engine) clearIDMap() {
	for i := range e.ids {
		e.ids[i].m, e.ids[i].over = make(map[uint64]docRef, e.opts.ExpectedDocuments/idShards), nil
	}
}

// errNoSnapshot is the outcome of loading a snapshot that is not valid.
var errNoSnapshot = errors.New("neardup: no valid index snapshot")

// restore rebuilds the indexes and the id map from the compact records,
// skipping expired ones. The id map is filled by a second goroutine while
// the scan goes on; each index is then built in one bulk AddBatch (one sort
// per table), the two indexes in parallel. With buildIndex false the
// indexes come from a snapshot, whose loading ends with a value on loaded
// (errNoSnapshot when there was no valid one); restore waits for it after
// the scan.
func (e *Engine) restore(buildIndex bool, loaded <-chan error) error {
	cutoff := e.cutoff()
	stored, err := e.sizeIDMap()
	if err != nil {
		return err
	}
	type chunk struct {
		refs   []docRef
		hashes []uint64
	}
	const chunkSize = 1 << 14
	newChunk := func() *chunk {
		return &chunk{refs: make([]docRef, 0, chunkSize), hashes: make([]uint64, 0, chunkSize)}
	}
	work := make(chan *chunk, 16)
	done := make(chan error, 1)
	go func() {
		var err error
		// The ids go to their shard's map a few thousand at a time, so
		// that the inserts in a row touch one shard's map, not all of
		// them.
		type idRef struct {
			h   uint64
			ref docRef
		}
		const flushAt = 4096
		pending := make([][]idRef, idShards)
		fill := func(s *idShard, ids []idRef) {
			for _, x := range ids {
				if _, ok := s.m[x.h]; ok && err == nil {
					// Two stored ids share a hash (about one chance in
					// 10^12 per pair): the map keeps the first, the
					// later one goes by string.
					rec, rerr := e.db.Record(x.ref.seq)
					if rerr != nil {
						err = rerr
						continue
					}
					if s.over == nil {
						s.over = make(map[string]docRef)
					}
					s.over[rec.ID] = x.ref
					continue
				}
				s.m[x.h] = x.ref
			}
		}
		for c := range work {
			for i, h := range c.hashes {
				j := h % idShards
				pending[j] = append(pending[j], idRef{h, c.refs[i]})
				if len(pending[j]) == flushAt {
					fill(&e.ids[j], pending[j])
					pending[j] = pending[j][:0]
				}
			}
		}
		for j, ids := range pending {
			fill(&e.ids[j], ids)
		}
		done <- err
	}()
	// longLo and shortLo are the entries of the low halves, at 128 bits.
	var long, short, longLo, shortLo []index.Entry
	if buildIndex {
		// Growing it step by step took 1.7 s of the 10 s scan of 10M
		// records.
		long = make([]index.Entry, 0, stored)
		if e.longLo != nil {
			longLo = make([]index.Entry, 0, stored)
		}
	}
	var shortLens []int
	var keyed []keyedRecord // the records that may have deletion keys
	if e.keys != nil {
		e.keys.clear() // a second scan, after a snapshot that did not load, starts again
	}
	var maxCounter uint64
	kept := 0         // records within the window, which the indexes hold
	var lost []uint64 // records whose texts a stopped machine lost
	c := newChunk()
	err = e.db.ScanViews(0, 0, func(r *store.View) error {
		maxCounter = max(maxCounter, store.Counter(r.Seq))
		if r.Time < cutoff {
			return nil
		}
		if e.db.TextMissing(r) {
			lost = append(lost, r.Seq)
			return nil
		}
		if len(r.Fingerprint) != e.bits/8 {
			return fmt.Errorf("stored fingerprint of %q has %d bits, engine uses %d (reopen with the same options)", r.ID, len(r.Fingerprint)*8, e.bits)
		}
		if buildIndex {
			ent := index.Entry{ID: r.Seq, FP: binary.BigEndian.Uint64(r.Fingerprint), Time: r.Time}
			lo := ent
			if e.longLo != nil {
				lo.FP = binary.BigEndian.Uint64(r.Fingerprint[8:])
			}
			if e.heldShort(r.TextLen, r.NormLen) {
				short = append(short, ent)
				shortLens = append(shortLens, e.tagLen(r))
				if e.shortLo != nil {
					shortLo = append(shortLo, lo)
				}
			} else {
				long = append(long, ent)
				if e.longLo != nil {
					longLo = append(longLo, lo)
				}
			}
		}
		if e.keys != nil && e.heldShort(r.TextLen, r.NormLen) && r.NormLen > 0 && r.NormLen < e.policy.TinyCap() {
			keyed = append(keyed, keyedRecord{r.Seq, r.NormLen, r.TextPlace()})
		}
		kept++
		c.refs = append(c.refs, docRef{seq: r.Seq, time: r.Time})
		c.hashes = append(c.hashes, e.hashID(r.ID))
		if len(c.hashes) == chunkSize {
			work <- c
			c = newChunk()
		}
		return nil
	})
	work <- c
	close(work)
	if loaded != nil {
		if lerr := <-loaded; err == nil {
			err = lerr
		}
	}
	e.keyed = keyed // made once Open is done (restoreKeys)
	var wg sync.WaitGroup
	if err == nil && !buildIndex {
		// A snapshot was loaded: drop what expired since it was taken.
		e.expireIndexes(cutoff)
	}
	if err == nil && buildIndex {
		wg.Go(func() { e.long.AddBatch(long) })
		if e.longLo != nil {
			wg.Go(func() { e.longLo.AddBatch(longLo) })
		}
		if e.short != nil && len(short) > 0 {
			wg.Go(func() { e.short.addBatch(short, shortLens) })
			wg.Go(func() { e.shortLong.AddBatch(short) })
			if e.shortLo != nil {
				wg.Go(func() { e.shortLo.addBatch(shortLo, shortLens) })
				wg.Go(func() { e.shortLongLo.AddBatch(shortLo) })
			}
		}
	}
	wg.Wait()
	if merr := <-done; err == nil && merr != nil {
		err = fmt.Errorf("neardup: %w", merr)
	}
	if err == nil && len(lost) > 0 {
		err = e.dropLost(lost, !buildIndex)
	}
	if err == nil && !buildIndex {
		// A snapshot holds what the records held at the last clean Close.
		// If they differ now (pebble lost flushed data, say, to a damaged
		// manifest), the snapshot's extra entries would count as documents
		// and match as candidates that are not there.
		n := e.long.Len()
		if e.shortLong != nil {
			n += e.shortLong.Len()
		}
		if n != kept || !e.halvesAgree() {
			err = errNoSnapshot
		}
	}
	e.counter.Store(maxCounter)
	return err
}

// dropLost deletes the records whose texts are missing, past the end
// their text file had at Open, and removes them from the indexes when
// those came from a snapshot. They are those of a commit that a stopped
// machine never finished (never acknowledged), or of a text file cut short
// or removed: the two look alike. They cannot stay, as appends go on from
// the file's end, where their texts were: their places will hold other
// texts. Stats.MissingTexts counts them, so that a damaged file is not a
// silent loss (neardup serve logs a warning).
func (e *Engine) dropLost(seqs []uint64, indexed bool) error {
	b := e.db.NewBatch()
	for _, seq := range seqs {
		b.Delete(seq)
		if indexed {
			e.unindex(seq)
		}
	}
	if err := e.db.Commit(b); err != nil {
		return fmt.Errorf("neardup: deleting %d records whose texts were lost: %w", len(seqs), err)
	}
	e.missingTexts = len(seqs)
	return nil
}

// sizeIDMap sizes the empty id map for the documents the store may hold
// when that is more than Options.ExpectedDocuments, so that the restore
// does not grow it step by step: a store of 10M documents opened with the
// default 1M took 17 s to rebuild after a crash instead of 11-12 s
// (`neardup bench engine --restart-docs 10000000`). Counters grow with
// the time of insertion, so the inserts between the first record and the
// last bound the documents kept; the size is at most 16 times
// ExpectedDocuments, in case documents were inserted with times far apart
// from the order of insertion. It returns that bound (0 for an empty
// store), by which restore also sizes its list of index entries.
func (e *Engine) sizeIDMap() (int, error) {
	first, last, ok, err := e.db.SeqSpan()
	if err != nil {
		return 0, fmt.Errorf("neardup: %w", err)
	}
	lo, hi := store.Counter(first), store.Counter(last)
	if !ok || hi < lo {
		return 0, nil
	}
	n := min(int(hi-lo+1), 16*e.opts.ExpectedDocuments)
	if n <= e.opts.ExpectedDocuments {
		return n, nil
	}
	for i := range e.ids {
		if len(e.ids[i].m) == 0 {
			e.ids[i].m = make(map[uint64]docRef, n/idShards+n/idShards/8)
		}
	}
	return n, nil
}

// halves returns the bits of fp the indexes hold: all of a 64-bit
// fingerprint and 0, or the high and the low half of a 128-bit one (see
// Engine.long).
func halves(fp Fingerprint) (hi, lo uint64) {
	if fp.Bits() == 128 {
		return fp.Uint128()
	}
	return fp.Uint64(), 0
}

// halvesAgree reports whether each index of the low halves holds as many
// entries as its twin of the high halves (always at 64 bits, which has
// none).
func (e *Engine) halvesAgree() bool {
	if e.longLo == nil {
		return true
	}
	if e.longLo.Len() != e.long.Len() {
		return false
	}
	return e.short == nil || e.shortLo.ix.Len() == e.short.ix.Len() && e.shortLongLo.Len() == e.shortLong.Len()
}

// isShort reports whether a text of n runes (before normalization) goes to
// the short index, if there is one. Normalization mostly shrinks text (white
// space runs, control characters), and the rules do not count punctuation
// and symbols, so the bound is a quarter above the Policy's ShortCap (the
// longest text a Short-rule pair may have). A text that those shrink by
// more than a fifth is measured as the rules count it (prepare, up to
// punctuatedMax ShortCaps of runes), and goes to the short index too when
// it is short so counted.
func (e *Engine) isShort(n int) bool {
	c := e.policy.ShortCap()
	return e.short != nil && n < c+c/4
}

// shortText reports whether p goes to the short index's queries: its text
// is short (isShort), or one of more runes that punctuation and symbols
// make short as the rules count it, whose length prepare counted (norm is
// 0 for the other longer texts).
func (e *Engine) shortText(p *prepared) bool {
	return e.isShort(p.runes) || e.short != nil && p.norm > 0
}

// isTiny reports whether p takes the tiny texts' stripes: it is short,
// and may be in a pair the Tiny rule judges (under the Policy's TinyCap),
// where that rule searches farther than the Short rule.
func (e *Engine) isTiny(p *prepared) bool {
	return e.tinyKeys != nil && e.shortText(p) && p.norm > 0 && p.norm < e.policy.TinyCap()
}

// unindex removes the document seq from every index that may hold it.
func (e *Engine) unindex(seq uint64) {
	e.long.Remove(seq)
	if e.short != nil {
		e.short.ix.Remove(seq)
		e.shortLong.Remove(seq)
	}
	if e.longLo != nil {
		e.longLo.Remove(seq)
		if e.short != nil {
			e.shortLo.ix.Remove(seq)
			e.shortLongLo.Remove(seq)
		}
	}
}

// expireIndexes removes the entries older than cutoff from every index,
// and returns how many documents they were (those of the high halves at
// 128 bits: the low halves' are the same documents).
func (e *Engine) expireIndexes(cutoff int64) int {
	n := e.long.ExpireBefore(cutoff)
	if e.short != nil {
		e.short.ix.ExpireBefore(cutoff)
		n += e.shortLong.ExpireBefore(cutoff)
	}
	if e.longLo != nil {
		e.longLo.ExpireBefore(cutoff)
		if e.short != nil {
			e.shortLo.ix.ExpireBefore(cutoff)
			e.shortLongLo.ExpireBefore(cutoff)
		}
	}
	return n
}

// heldShort reports whether the short index holds a text of runes runes,
// norm of them as the rules count them (normalizedRunes; 0: unknown),
// rather than long (see Engine.long): it is short, and not too long for
// the Short rule as counted.
func (e *Engine) heldShort(runes, norm int) bool {
	// A longer text is held when its length was counted (prepare): 0,
	// for the others, is no length.
	return e.short != nil && (e.isShort(runes) || norm > 0) && norm < e.short.limit
}

// quoteID quotes an id for a message, cut to its first 100 bytes when it
// is longer (an id not checked against MaxIDBytes can be of any length).
func quoteID(id string) string {
	const most = 100
	if len(id) <= most {
		return strconv.Quote(id)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return fmt.Sprintf("%q... (%d bytes)", id[:cut], len(id))
}

// rfc3339 formats a time in Unix seconds for a message.
func rfc3339(sec int64) string { return time.Unix(sec, 0).UTC().Format(time.RFC3339) }

// cutoff returns the time (Unix seconds) before which documents are out
// of the retention window: with a negative Retention none are, those dated
// before 1970 included.
func (e *Engine) cutoff() int64 {
	if e.opts.Retention < 0 {
		return math.MinInt64
	}
	return e.opts.Now().Add(-e.opts.Retention).Unix()
}

// prepared is a validated, fingerprinted document.
type prepared struct {
	doc  Document
	text []byte
	// view is the text the policy measures: text, or its visible text
	// when texts are HTML, folded when the pipeline folds accents
	// (Engine.visible).
	view []byte
	fp   Fingerprint
	// ix is what the indexes of the high halves hold of fp (all of it at
	// 64 bits), lo what those of the low halves hold (0 at 64 bits).
	ix, lo uint64
	runes  int
	norm   int // its length as the rules count it (normalizedRunes), for short texts (0 otherwise)
	// keys are its deletion keys, when it has them (Engine.textKeys).
	keys   []uint64
	time   int64
	hash   uint64
	sketch *similarity.Sketch
	err    error
}

// prepare validates and fingerprints d. A check (stored false) may have
// no id: it is compared with every stored document.
func (e *Engine) prepare(d Document, stored bool) prepared {
	p := prepared{doc: d}
	switch {
	case d.ID == "" && stored:
		p.err = ErrEmptyID
	case len(d.ID) > MaxIDBytes:
		p.err = fmt.Errorf("%w: it has %d bytes, limit %d", ErrIDTooLong, len(d.ID), MaxIDBytes)
	case len(d.Text) > e.opts.MaxTextBytes:
		what := "the text" // of a query (Check), which has no id
		if d.ID != "" {
			what = strconv.Quote(d.ID)
		}
		p.err = fmt.Errorf("%w: %s has %d bytes, limit %d", ErrTooLarge, what, len(d.Text), e.opts.MaxTextBytes)
	case strings.TrimSpace(d.Text) == "":
		p.err = fmt.Errorf("%w: %q", ErrEmptyText, d.ID)
	case e.opts.RejectInvalidUTF8 && !utf8.ValidString(d.Text):
		p.err = fmt.Errorf("%w: %q", ErrInvalidUTF8, d.ID)
	case e.opts.RejectInvalidUTF8 && !utf8.ValidString(d.ID):
		p.err = idUTF8Error{d.ID}
	case stored && len(d.Meta) > 0 && !json.Valid(d.Meta):
		p.err = fmt.Errorf("%w: %q", ErrBadMeta, d.ID)
	}
	if p.err != nil {
		return p
	}
	if e.viewText {
		// Nothing writes to p.text, and the store copies it.
		p.text = unsafe.Slice(unsafe.StringData(d.Text), len(d.Text))
	} else {
		p.text = []byte(d.Text)
	}
	p.fp = e.fp.Fingerprint(p.text)
	p.ix, p.lo = halves(p.fp)
	p.view = e.visible(p.text)
	p.runes = utf8.RuneCount(p.view)
	empty := false
	if e.isShort(p.runes) {
		p.norm = e.normalizedRunes(p.view)
		empty = p.norm == 0
	} else if e.short != nil && p.runes < punctuatedMax*e.policy.ShortCap() {
		// Punctuation, symbols and white space can make a text of many
		// runes short as the rules count it ("!!!" runs, emoji, ASCII
		// art): such a text is short, as compare judges it.
		if n := similarity.LenUnder(p.view, e.policy.ShortCap(), e.normalizedRunes); n < e.policy.ShortCap() {
			p.norm, empty = n, n == 0
		}
	} else if p.ix == 0 { // long texts of nothing fingerprint to 0
		empty = e.normalizedRunes(p.view) == 0
	}
	if empty {
		// Control, format or invisible characters alone (a lone byte
		// order mark, zero-width spaces): nothing to compare, like white
		// space.
		p.err = fmt.Errorf("%w: %q has no visible character", ErrEmptyText, d.ID)
		return p
	}
	if e.heldShort(p.runes, p.norm) {
		p.keys = e.textKeys(p.norm, p.getSketch)
	}
	p.hash = xxh3.Hash(p.text)
	if d.Time.IsZero() {
		p.time = e.opts.Now().Unix()
	} else {
		p.time = d.Time.Unix()
	}
	return p
}

// normalizedLen returns the length in runes of p's text as the Policy's
// rules measure it (normalizedRunes).
func (e *Engine) normalizedLen(p *prepared) int {
	switch {
	case p.sketch != nil:
		return p.sketch.Len()
	case e.shortText(p):
		return p.norm
	}
	return e.normalizedRunes(p.view)
}

// visible returns the text of text that the policy measures: text itself,
// or, as the pipeline reads it (Config.Measured), what a browser shows of
// it when texts are HTML, so that two copies of a page in other markup
// are compared by their words, and the text without its accents when the
// pipeline folds them.
func (e *Engine) visible(text []byte) []byte {
	if !e.html && !e.fold {
		return text
	}
	return e.opts.Fingerprint.Measured(text)
}

func (p *prepared) getSketch() *similarity.Sketch {
	if p.sketch == nil {
		p.sketch = similarity.NewSketch(p.view)
	}
	return p.sketch
}

// enter holds the engine open for one operation.
func (e *Engine) enter() error {
	e.life.RLock()
	if e.closed {
		e.life.RUnlock()
		return ErrClosed
	}
	if f := e.failure.Load(); f != nil {
		e.life.RUnlock()
		return *f
	}
	return nil
}

func (e *Engine) leave() { e.life.RUnlock() }

// Check reports whether d is a near-duplicate of a stored document without
// storing it. A stored document with d's own id is not counted as a match;
// d's id may be empty, which no stored document has.
func (e *Engine) Check(ctx context.Context, d Document) (Result, error) {
	if err := e.enter(); err != nil {
		return Result{}, err
	}
	defer e.leave()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	p := e.prepare(d, false)
	if p.err != nil {
		return Result{}, p.err
	}
	e.nChecks.Add(1)
	r, err := e.decide(&p)
	if err != nil {
		return Result{}, err
	}
	if r.Duplicate {
		e.waitDurable(r.dupSeq)
	}
	return r.Result, nil
}

// CheckBatch is Check for many documents: each is checked against the
// stored documents alone, not against the others of the batch, since none
// is stored. The indexes are queried for 1,024 documents at once,
// and fingerprinting and verification run on all cores. When some
// documents are refused (empty text, too large, an id too long...), the
// others are still checked and the error is a *BatchError; results of
// refused documents are zero.
func (e *Engine) CheckBatch(ctx context.Context, ds []Document) ([]Result, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.leave()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ps := make([]prepared, len(ds))
	parallel(len(ds), func(i int) { ps[i] = e.prepare(ds[i], false) })
	out := make([]Result, len(ds))
	errs := make([]error, len(ds))
	dups := make([]uint64, len(ds)) // the seq each duplicate names
	for c := 0; c < len(ps); c += decideChunk {
		if err := ctx.Err(); err != nil {
			return nil, err // between chunks: a long batch can be stopped
		}
		chunk := ps[c:min(len(ps), c+decideChunk)]
		ms := e.queryBatch(chunk)
		parallel(len(chunk), func(i int) {
			p := &chunk[i]
			if p.err == nil {
				var r decision
				r, p.err = e.decideWith(p, ms[i], nil)
				out[c+i], dups[c+i] = r.Result, r.dupSeq
			}
			errs[c+i] = p.err
		})
	}
	failed := 0
	for i, err := range errs {
		switch {
		case err != nil:
			out[i] = Result{}
			failed++
		case out[i].Duplicate:
			e.waitDurable(dups[i])
		}
	}
	e.nChecks.Add(uint64(len(ds) - failed))
	if failed > 0 {
		return out, &BatchError{Errs: errs}
	}
	return out, nil
}

// Insert stores d without checking it against stored documents. Like
// CheckAndInsert, re-inserting an id with the same text does nothing
// (Inserted false) and with another text returns ErrIDConflict.
func (e *Engine) Insert(ctx context.Context, d Document) (Result, error) {
	rs, err := e.run(ctx, []Document{d}, false)
	if be, ok := err.(*BatchError); ok && be.Errs[0] != nil {
		err = be.Errs[0] // the document's own
	}
	if err != nil {
		return Result{}, err
	}
	return rs[0], nil
}

// InsertBatch is Insert for many documents: each is stored without being
// checked, in order, and all are committed together. When some are
// refused (empty text, id conflict...), the others are still stored and
// the error is a *BatchError; results of refused documents are zero.
func (e *Engine) InsertBatch(ctx context.Context, ds []Document) ([]Result, error) {
	return e.run(ctx, ds, false)
}

// CheckAndInsert checks d against the stored documents and stores it if it
// is new. A duplicate is not stored; its Result names the stored document
// it duplicates. The result is returned once the write (or, for a
// duplicate, the write of the document it names) is durable.
//
// An id stored with the same text gives Inserted false and no error (the
// call is idempotent); an id stored with another text gives ErrIDConflict.
//
// Calls made at the same time are decided and stored together, as a
// batch would be: they share one write and sync.
func (e *Engine) CheckAndInsert(ctx context.Context, d Document) (Result, error) {
	if err := e.enter(); err != nil {
		return Result{}, err
	}
	defer e.leave()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := e.spaceErr(); err != nil {
		return Result{}, err
	}
	p := e.prepare(d, true)
	if p.err != nil {
		return Result{}, p.err
	}
	return e.combine(p)
}

// BatchError reports the documents of a batch that were refused; the
// others were processed and their results are valid.
type BatchError struct {
	// Errs has one entry per document of the batch, nil for those that
	// were processed.
	Errs []error
}

// Error summarizes the first failure.
func (b *BatchError) Error() string {
	n, first := 0, error(nil)
	for _, err := range b.Errs {
		if err != nil {
			if first == nil {
				first = err
			}
			n++
		}
	}
	return fmt.Sprintf("neardup: %d of %d documents refused, first: %v", n, len(b.Errs), first)
}

// Unwrap returns the individual errors, so errors.Is finds any of them.
func (b *BatchError) Unwrap() []error {
	var out []error
	for _, err := range b.Errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// CheckAndInsertBatch is CheckAndInsert for many documents, decided in
// order (a document can be a duplicate of an earlier one in the same
// batch) and committed together. Fingerprinting, index queries and
// verification run on all cores; the results are those of sending the
// documents one after the other. When
// some documents are refused (empty text, id conflict...), the others are
// still processed and the error is a *BatchError; results of refused
// documents are zero.
func (e *Engine) CheckAndInsertBatch(ctx context.Context, ds []Document) ([]Result, error) {
	return e.run(ctx, ds, true)
}

// decision is a Result plus what the engine needs to finish the call.
type decision struct {
	Result
	dupSeq uint64
	// verdicts are what this decision made of the candidates it verified,
	// which a decision of the same document made again under its locks
	// (decideInOrder) need not verify again.
	verdicts []verdict
}

// verdict is what verification made of one candidate of a document. A
// stored text never changes under its seq, so the verdict holds as long
// as the candidate is stored; whether it still is, is checked again.
type verdict struct {
	seq    uint64
	dup    bool
	dist   int
	sim    float64
	scores Scores
}

type candidate struct {
	seq  uint64
	dist int
}

// decide finds and verifies the candidates of p. It takes no locks.
func (e *Engine) decide(p *prepared) (decision, error) { return e.decideWith(p, nil, nil) }

// queryBatch queries the indexes for every document of ps at once
// (index.QueryBatchNearest), as decideWith would one by one: out[i] holds
// ps[i]'s matches, not nil, or is nil for a document that has failed, or
// when fewer than two have not.
func (e *Engine) queryBatch(ps []prepared) [][]index.Match {
	out := make([][]index.Match, len(ps))
	var all, short, shortLong []uint64
	var allAt, shortAt, shortLongAt, ns []int
	for i := range ps {
		p := &ps[i]
		if p.err != nil {
			continue
		}
		all, allAt = append(all, p.ix), append(allAt, i)
		switch {
		case e.short == nil:
		case e.heldShort(p.runes, p.norm):
			short, shortAt, ns = append(short, p.ix), append(shortAt, i), append(ns, p.norm)
		default:
			shortLong, shortLongAt = append(shortLong, p.ix), append(shortLongAt, i)
		}
	}
	if len(all) < 2 {
		return out
	}
	if e.longLo != nil {
		e.queryBatchWide(ps, out)
		return e.batchKeyMatches(ps, out)
	}
	// Only the MaxCandidates nearest of each index are verified, so only
	// they are kept: a text that many stored ones are near (pages of one
	// template) costs no Match and no sort for each of them.
	most := e.opts.MaxCandidates
	for j, ms := range e.long.QueryBatchNearest(all, e.longK, most, nil) {
		if ms == nil {
			ms = []index.Match{} // queried, no match
		}
		out[allAt[j]] = ms
	}
	if len(short) > 0 {
		for j, ms := range e.short.queryBatch(short, ns, most) {
			out[shortAt[j]] = append(out[shortAt[j]], ms...)
		}
	}
	if len(shortLong) > 0 {
		for j, ms := range e.shortLong.QueryBatchNearest(shortLong, e.longK, most, nil) {
			out[shortLongAt[j]] = append(out[shortLongAt[j]], ms...)
		}
	}
	return e.batchKeyMatches(ps, out)
}

// batchKeyMatches adds to out, the matches queryBatch found, those of the
// documents' deletion keys (keyMatches); a document whose key matches
// could not be read gets nil, to be queried again.
func (e *Engine) batchKeyMatches(ps []prepared, out [][]index.Match) [][]index.Match {
	for i := range ps {
		if out[i] == nil || len(ps[i].keys) == 0 {
			continue
		}
		ms, err := e.keyMatches(&ps[i], out[i])
		if err != nil {
			ms = nil
		}
		out[i] = ms
	}
	return out
}

// query returns p's matches in the indexes: as in queryBatch, the
// MaxCandidates nearest of each index (of each role's pair of indexes at
// 128 bits, see wideMatches). Only the matches of 128-bit fingerprints
// can fail (their records are read).
func (e *Engine) query(p *prepared) ([]index.Match, error) {
	if e.longLo != nil {
		ms, err := e.wideMatches(p, nil, nil)
		if err != nil {
			return nil, err
		}
		return e.keyMatches(p, ms)
	}
	most := e.opts.MaxCandidates
	ms := e.long.QueryNearest(p.ix, e.longK, most, nil, nil)
	switch {
	case e.short == nil:
	case e.heldShort(p.runes, p.norm):
		// The short index holds every short text within the Long rule's
		// distance too (shortIndex.query keeps them).
		ms = e.short.query(p.ix, p.norm, most, ms)
	default:
		ms = e.shortLong.QueryNearest(p.ix, e.longK, most, nil, ms)
	}
	ms, err := e.keyMatches(p, ms)
	if ms == nil && err == nil {
		ms = []index.Match{} // queried, no match
	}
	return ms, err
}

// decideWith is decide with p's matches in the indexes given in pre
// (queryBatch); nil pre means the indexes are queried. known are verdicts
// an earlier decision of p made, which are taken instead of verifying
// those candidates again: the decision is the same, and cheaper when most
// candidates were already verified (texts of one template, each near many
// stored ones, verify 64 candidates each, and in a chunk decided at once
// most are decided again under their locks).
func (e *Engine) decideWith(p *prepared, pre []index.Match, known []verdict) (decision, error) {
	r := decision{Result: Result{ID: p.doc.ID, Fingerprint: p.fp}}
	cutoff := e.cutoff()
	ms := pre
	if ms == nil {
		var err error
		if ms, err = e.query(p); err != nil {
			return r, err
		}
	}
	if len(ms) == 0 {
		return r, nil
	}
	cands := make([]candidate, 0, len(ms))
	for _, m := range ms {
		cands = append(cands, candidate{seq: m.ID, dist: m.Distance})
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(a.seq, b.seq))
	})
	cands = slices.CompactFunc(cands, func(a, b candidate) bool { return a.seq == b.seq })
	if len(cands) > e.opts.MaxCandidates {
		cands = cands[:e.opts.MaxCandidates]
	}
	var best []struct {
		m   Match
		seq uint64
	}
	// gramSet returns the GramSet of p's sketch, made on first use: p is
	// compared with each of its candidates. It is dropped with this call.
	var set *similarity.GramSet
	gramSet := func() *similarity.GramSet {
		if set == nil {
			set = similarity.NewGramSet(p.getSketch())
		}
		return set
	}
	// A candidate is verified before its record is read when its text
	// tells: most candidates of short texts are turned down, and then one
	// store read is enough.
	hourCut := store.HourStart(cutoff)
	var knownAt map[uint64]int
	if len(known) > 0 {
		knownAt = make(map[uint64]int, len(known))
		for i, v := range known {
			knownAt[v.seq] = i
		}
	}
	for _, c := range cands {
		if c.seq < hourCut {
			continue // stored in an hour before the window's start: expired
		}
		var rec store.Record
		loaded := false
		// load reads the candidate's record and reports whether the
		// candidate is still one: stored, in the window, not p itself.
		load := func() (bool, error) {
			loaded = true
			var err error
			rec, err = e.record(c.seq)
			if errors.Is(err, store.ErrNotFound) {
				return false, nil // deleted or expired meanwhile
			}
			if err != nil {
				return false, fmt.Errorf("neardup: %w", err)
			}
			return rec.Time >= cutoff && rec.ID != p.doc.ID, nil
		}
		// A verdict of an earlier decision of p is taken as it is;
		// otherwise the candidate is verified.
		v, memo := verdict{}, false
		if i, ok := knownAt[c.seq]; ok {
			v, memo = known[i], true
		}
		if !memo {
			if e.opts.DropText {
				if ok, err := load(); err != nil {
					return r, err
				} else if !ok {
					continue
				}
			}
			// The whole distance, at 128 bits too (see widen).
			dist := c.dist
			var other *similarity.Sketch
			var mine *similarity.Sketch
			same := false // the candidate's text is p's, byte for byte
			if !e.opts.DropText {
				var mineText []byte
				if dist == 0 {
					mineText = p.text // a copy is likely: compare before sketching
				}
				var err error
				if other, same, err = e.candidateSketch(c.seq, mineText); err != nil {
					return r, fmt.Errorf("neardup: %w", err)
				}
				if other != nil {
					mine = p.getSketch()
				}
			}
			if other == nil && !same && !loaded {
				// No text: deleted, or stored without one.
				if ok, err := load(); err != nil {
					return r, err
				} else if !ok {
					continue
				}
			}
			e.nCands.Add(1)
			var dup bool
			var sim float64
			var scores Scores
			if same {
				dup, sim, scores = e.policy.identical(e.normalizedLen(p), !e.opts.RuleScoreOnly)
			} else {
				dup, sim, scores = e.policy.verify(mine, other, dist, e.bits, false, !e.opts.RuleScoreOnly, gramSet)
			}
			v = verdict{seq: c.seq, dup: dup, dist: dist, sim: sim, scores: scores}
			if !dup {
				e.nRejected.Add(1)
			}
		}
		r.verdicts = append(r.verdicts, v)
		if !v.dup {
			continue
		}
		if !loaded {
			if ok, err := load(); err != nil {
				return r, err
			} else if !ok {
				continue
			}
		}
		best = append(best, struct {
			m   Match
			seq uint64
		}{Match{ID: rec.ID, Distance: v.dist, Similarity: v.sim, Scores: v.scores, Duplicate: true}, c.seq})
	}
	if len(best) == 0 {
		return r, nil
	}
	slices.SortStableFunc(best, func(a, b struct {
		m   Match
		seq uint64
	}) int {
		return cmp.Or(cmp.Compare(b.m.Similarity, a.m.Similarity), cmp.Compare(a.m.Distance, b.m.Distance), cmp.Compare(a.seq, b.seq))
	})
	if len(best) > e.opts.MaxMatches {
		best = best[:e.opts.MaxMatches]
	}
	for _, b := range best {
		r.Matches = append(r.Matches, b.m)
	}
	first := best[0]
	r.Duplicate = true
	id := first.m.ID
	r.DuplicateOf = &id
	r.Distance = first.m.Distance
	r.Similarity = first.m.Similarity
	r.dupSeq = first.seq
	return r, nil
}

// optimistic is a decision made without locks, with what is needed to
// check it once the locks are held.
type optimistic struct {
	d        decision
	err      error
	pre      []index.Match // the matches it was made with; nil: unknown
	stripes  []uint64      // the document's key stripes
	inserts  uint64        // inserts before the decision
	removals uint64        // removals before the decision
}

// decideOptimistic decides p without locks, noting first how many inserts
// and removals there were, and p's stripes (appended to scratch).
func (e *Engine) decideOptimistic(p *prepared, scratch []uint64) optimistic {
	o := optimistic{removals: e.removals.Load(), inserts: e.inserts.Load(), stripes: e.stripes(p, scratch)}
	if o.pre, o.err = e.query(p); o.err == nil {
		o.d, o.err = e.decideWith(p, o.pre, nil)
	}
	return o
}

// noteInsert numbers an insert of p, stored as seq, which the indexes
// already hold, and remembers it in recent. The caller holds p's stripes.
func (e *Engine) noteInsert(p *prepared, seq uint64) {
	n := e.inserts.Add(1) - 1
	r := &e.recent[n%recentSize]
	r.stamp.Store(0)
	r.fp.Store(p.ix)
	r.lo.Store(p.lo)
	r.seq.Store(seq)
	var held uint64
	if e.heldShort(p.runes, p.norm) {
		held = heldShortBit | uint64(tag(p.norm))
	}
	if len(p.keys) > 0 {
		held |= heldKeysBit
	}
	r.held.Store(held)
	stamp := (n + 1) << 1
	if e.shortText(p) {
		stamp |= 1
	}
	r.stamp.Store(stamp)
}

// stillHolds reports whether nothing that could change o, p's decision,
// has happened since it was made: no removal, and no insert of a
// candidate of p (within the long rule's distance, or, both texts short,
// the short rule's). w holds the inserts since the decision (from
// o.inserts), as far as an earlier call copied them. The caller holds p's
// stripes.
//
// An insert that p's decision may have missed was numbered after o.inserts
// was read (an insert is numbered after it enters the indexes), and a
// candidate of p shares a stripe with it, so it was numbered before p's
// stripes were locked: it is among the inserts from o.inserts to now. An
// insert whose slot is being written or was already reused counts as a
// candidate.
func (e *Engine) stillHolds(o *optimistic, p *prepared, w *window) bool {
	if e.removals.Load() != o.removals {
		return false
	}
	if !w.extend(e) || (len(p.keys) > 0 && w.keyed && e.newKeyMatch(o, p)) {
		return false
	}
	return !index.AnyWithin(w.all, p.ix, e.longK) &&
		!(e.shortText(p) && index.AnyWithin(w.short, p.ix, e.short.radius(p.norm)))
}

// decideAgain makes p's decision again under its stripes, once stillHolds
// has found that something since o was made may change it. When nothing
// was removed and w holds every insert since, the indexes now hold what
// they held for o and those inserts (and perhaps inserts not yet
// numbered, which cannot be p's candidates: as stillHolds says, a
// candidate's insert shares a stripe with p and was numbered before p's
// stripes were locked). So p's matches are o.pre and the inserts in w
// that the same queries would find (windowMatches), whose nearest
// MaxCandidates are the nearest that querying the indexes again would
// give. Otherwise the indexes are queried again. Either way the verdicts
// of o are reused.
func (e *Engine) decideAgain(o *optimistic, p *prepared, w *window) (decision, error) {
	if o.pre == nil || e.removals.Load() != o.removals || !w.extend(e) {
		return e.decideWith(p, nil, o.d.verdicts)
	}
	ms := e.windowMatches(p, w, slices.Clip(o.pre))
	if len(p.keys) > 0 && w.keyed {
		// The inserts' keys are not in the window, but in the key map
		// since before they were numbered.
		var err error
		if ms, err = e.keyMatches(p, ms); err != nil {
			return decision{}, err
		}
	}
	return e.decideWith(p, ms, o.d.verdicts)
}

// windowMatches appends to dst the inserts in w that the queries of
// Engine.query would find for p: within the long rule's distance, or,
// both texts held by the short index, within the short rule's (the tiny
// rule's, both texts tiny) and of a length that may pass it
// (shortIndex.keeps), by the whole distance at 128 bits too.
func (e *Engine) windowMatches(p *prepared, w *window, dst []index.Match) []index.Match {
	short := e.heldShort(p.runes, p.norm)
	radius := 0
	if short {
		radius = e.short.radius(p.norm)
	}
	for i, fp := range w.all {
		d := bits.OnesCount64(fp ^ p.ix)
		if w.lo != nil {
			d += bits.OnesCount64(w.lo[i] ^ p.lo)
		}
		m := index.Match{ID: w.seqs[i], FP: fp, Distance: d}
		switch held := w.held[i]; {
		case d <= e.longK:
		case short && held&heldShortBit != 0 && d <= radius:
			m.Tag = uint16(held)
			if !e.short.keeps(p.norm, m) {
				continue
			}
		default:
			continue
		}
		dst = append(dst, m)
	}
	return dst
}

// window holds the fingerprints of the inserts numbered from..upto-1,
// copied from Engine.recent, for the documents of a chunk decided at once
// to check theirs against (stillHolds): each insert is read from the ring
// once, and the fingerprints are tested 64 at a time.
type window struct {
	from, upto uint64
	all        []uint64 // the fingerprints of every insert (high halves at 128 bits)
	lo         []uint64 // at 128 bits, their low halves
	seqs       []uint64 // their seqs
	held       []uint64 // their recentInsert.held
	short      []uint64 // the fingerprints of short texts
	keyed      bool     // an insert had deletion keys
}

// extend copies the inserts numbered up to now and reports whether it got
// them all: false when the window has outgrown recent, or an insert's slot
// is being written or was already reused (a later call tries again from
// that insert).
func (w *window) extend(e *Engine) bool {
	end := e.inserts.Load()
	if end-w.from > recentSize {
		return false
	}
	for ; w.upto < end; w.upto++ {
		n := w.upto
		r := &e.recent[n%recentSize]
		stamp := r.stamp.Load()
		if stamp>>1 != n+1 {
			return false
		}
		fp, lo, seq, held := r.fp.Load(), r.lo.Load(), r.seq.Load(), r.held.Load()
		if r.stamp.Load() != stamp {
			return false
		}
		w.all, w.seqs, w.held = append(w.all, fp), append(w.seqs, seq), append(w.held, held)
		if e.longLo != nil {
			w.lo = append(w.lo, lo)
		}
		if stamp&1 != 0 {
			w.short = append(w.short, fp)
		}
		if held&heldKeysBit != 0 {
			w.keyed = true
		}
	}
	return true
}

// stripes returns the sorted, distinct key-lock stripes of p.
//
// At 128 bits they are the stripes of both halves, each at half the
// rule's distance, as the indexes are queried (see Engine.long): two
// fingerprints within the rule's distance have high or low halves within
// half of it, which share a key.
func (e *Engine) stripes(p *prepared, dst []uint64) []uint64 {
	dst = e.roleKeys(e.longKeys, p, 0, dst)
	if e.shortText(p) {
		// Salted, to keep the key sets of the designs apart.
		dst = e.roleKeys(e.shortKeys, p, 0x5bd1e9955bd1e995, dst)
		if e.isTiny(p) {
			dst = e.roleKeys(e.tinyKeys, p, 0x27d4eb2f165667c5, dst)
		}
		// Texts that share a deletion key take turns too.
		for _, k := range p.keys {
			dst = append(dst, k^0x165667b19e3779f9)
		}
	}
	for i := range dst {
		dst[i] = (dst[i] * 0x9e3779b97f4a7c15) >> (64 - 16)
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// roleKeys appends to dst the keys of ix for p (of both halves at 128
// bits), each XORed with salt.
func (e *Engine) roleKeys(ix *index.Index, p *prepared, salt uint64, dst []uint64) []uint64 {
	n := len(dst)
	dst = ix.Keys(p.ix, dst)
	if e.longLo != nil {
		dst = lowKeys(ix, p.lo, dst)
	}
	for i := n; i < len(dst); i++ {
		dst[i] ^= salt
	}
	return dst
}

// lowKeys appends to dst the keys of ix for lo, the low half of a 128-bit
// fingerprint, kept apart from those of the high halves.
func lowKeys(ix *index.Index, lo uint64, dst []uint64) []uint64 {
	n := len(dst)
	dst = ix.Keys(lo, dst)
	for i := n; i < len(dst); i++ {
		dst[i] ^= 0xc2b2ae3d27d4eb4f
	}
	return dst
}

// stripeTables is the most stripes a document takes (see stripes).
func (e *Engine) stripeTables() int {
	m := e.longKeys.Tables()
	if e.shortKeys != nil {
		m += e.shortKeys.Tables()
	}
	if e.tinyKeys != nil {
		m += e.tinyKeys.Tables()
	}
	m *= e.bits / 64
	if e.keys != nil {
		m += e.policy.TinyWords + 1
	}
	return m
}

func (e *Engine) lockKeys(s []uint64) {
	for _, k := range s {
		e.keyLocks[k].Lock()
	}
}

func (e *Engine) unlockKeys(s []uint64) {
	for i := len(s) - 1; i >= 0; i-- {
		e.keyLocks[s[i]].Unlock()
	}
}

func (e *Engine) idLock(id string) *sync.Mutex {
	return &e.idLocks[xxh3.HashString(id)%idStripes]
}

// run prepares ds on all cores, then decides and stores them (see
// decideAndStore).
func (e *Engine) run(ctx context.Context, ds []Document, check bool) ([]Result, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.leave()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := e.spaceErr(); err != nil {
		return nil, err
	}
	ps := make([]prepared, len(ds))
	parallel(len(ds), func(i int) { ps[i] = e.prepare(ds[i], true) })
	return e.decideAndStore(ps, check)
}

// decideAndStore decides the prepared documents ps in order, decideChunk
// at a time (decideInOrder; without check each new one is simply stored),
// inserts the new ones, commits them in one write, and waits until every
// document the results name is durable. The caller holds the engine open
// (enter).
func (e *Engine) decideAndStore(ps []prepared, check bool) ([]Result, error) {
	var b decided
	e.decideMore(&b, ps, check)
	return e.storeDecided(&b)
}

// decided is a batch decided, part by part (decideMore), and not yet
// stored (storeDecided).
type decided struct {
	w       storing
	results []Result
	errs    []error
}

// decideMore decides ps after the documents b holds, as decideAndStore
// would decide them after those.
func (e *Engine) decideMore(b *decided, ps []prepared, check bool) {
	base := len(b.results)
	b.results = append(b.results, make([]Result, len(ps))...)
	b.errs = append(b.errs, make([]error, len(ps))...)
	keysp := e.keyScratch.Get().(*[]uint64)
	defer e.keyScratch.Put(keysp)
	for c := 0; c < len(ps); c += decideChunk {
		end := min(len(ps), c+decideChunk)
		e.decideInOrder(ps[c:end], check, b.results[base+c:base+end], b.errs[base+c:base+end], &b.w, keysp)
	}
}

// storeDecided commits the documents b inserted in one write and waits
// until every document its results name is durable.
func (e *Engine) storeDecided(b *decided) ([]Result, error) {
	w := &b.w
	if w.batch != nil {
		err := e.db.Commit(w.batch)
		if err != nil {
			// Undo what others could see, and stop writing: the store
			// is in an unknown state.
			for j, p := range w.inserted {
				e.unindex(w.seqs[j])
				e.dropID([]byte(p.doc.ID), w.seqs[j])
			}
			e.removals.Add(1)
			err = fmt.Errorf("%w: %w", ErrStoreFailed, err)
			e.failure.CompareAndSwap(nil, &err)
		}
		e.donePending(w.seqs)
		if err != nil {
			return nil, err
		}
		e.nInserts.Add(uint64(len(w.inserted)))
	}
	for _, s := range w.waitFor {
		e.waitDurable(s)
	}
	if w.failed {
		return b.results, &BatchError{Errs: b.errs}
	}
	return b.results, nil
}

// decideChunk is how many documents of a batch decideAndStore decides at
// once. A decision made ahead is checked against every insert since
// (stillHolds), and one whose window saw more than recentSize inserts is
// made again under the locks, alone: chunks keep the windows small,
// however large the batch. A chunk is also what the indexes are queried
// for at once (queryBatch), and the more documents, the more of them
// share the index's buckets: 1,024, a combiner's whole batch, took 7%
// less CPU than 512 for long texts at 4,096 writers (docs/PERFORMANCE.md).
const decideChunk = 1024

// deciders is how many chunks may be decided at once: two, so that one
// chunk is decided on all cores while another goes through its loop of
// inserts.
const deciders = 2

// storing collects what decideInOrder inserts for the one write of a batch.
type storing struct {
	batch    *store.Batch
	inserted []*prepared
	seqs     []uint64 // the inserted documents' seqs
	waitFor  []uint64 // seqs of the documents the results name
	failed   bool
}

// decideInOrder decides ps in order and inserts the new ones into the
// indexes and w.batch, setting results[i] or errs[i] for each.
//
// With check and several documents, they are decided on all cores first,
// against the indexes as they are now; the loop below keeps each decision
// unless something that could change it happened meanwhile (see
// stillHolds), such as the insert of an earlier document of the chunk
// that is a candidate. A single document is decided the same way, just
// before its locks are taken. At most deciders chunks are decided at once
// (Engine.deciding), so that the inserts of other chunks seldom undo a
// decision made ahead.
func (e *Engine) decideInOrder(ps []prepared, check bool, results []Result, errs []error, w *storing, keysp *[]uint64) {
	var spec []optimistic
	var since *window // the inserts since spec was decided
	if check && len(ps) > 1 {
		e.deciding <- struct{}{}
		defer func() { <-e.deciding }()
		spec = make([]optimistic, len(ps))
		// The counters are read before any index is: what is inserted or
		// removed from then on is checked by stillHolds.
		removals, inserts := e.removals.Load(), e.inserts.Load()
		since = &window{from: inserts, upto: inserts}
		pre := e.queryBatch(ps)
		// One slab holds every document's stripes (a slice each before:
		// 6% of what 64 HTTP clients made the engine allocate).
		m := e.stripeTables()
		slab := make([]uint64, len(ps)*m)
		parallel(len(ps), func(i int) {
			if ps[i].err == nil {
				o := &spec[i]
				*o = optimistic{removals: removals, inserts: inserts, stripes: e.stripes(&ps[i], slab[i*m:i*m:(i+1)*m])}
				if o.pre = pre[i]; o.pre == nil {
					if o.pre, o.err = e.query(&ps[i]); o.err != nil {
						return
					}
				}
				o.d, o.err = e.decideWith(&ps[i], o.pre, nil)
			}
		})
	}
	for i := range ps {
		p := &ps[i]
		if p.err != nil {
			errs[i], w.failed = p.err, true
			continue
		}
		if check {
			e.nChecks.Add(1)
		}
		idl := e.idLock(p.doc.ID)
		idl.Lock()
		ref, status, err := e.lookup(p.doc.ID)
		if err != nil {
			idl.Unlock()
			errs[i], w.failed = err, true
			continue
		}
		if status == idFound && ref.time >= e.cutoff() {
			res, wait, err := e.existing(p, ref)
			idl.Unlock()
			if err != nil {
				errs[i], w.failed = err, true
				continue
			}
			results[i] = res
			w.waitFor = append(w.waitFor, wait)
			continue
		}
		if cutoff := e.cutoff(); p.time < cutoff && e.opts.Retention >= 0 {
			idl.Unlock()
			errs[i], w.failed = fmt.Errorf("%w: %q is dated %s, the window starts at %s", ErrExpired, p.doc.ID, rfc3339(p.time), rfc3339(cutoff)), true
			continue
		}
		if latest := e.opts.Now().Add(MaxFuture).Unix(); p.time > latest {
			idl.Unlock()
			errs[i], w.failed = fmt.Errorf("%w: %q is dated %s, more than %v ahead of the engine's clock (%s)", ErrFutureTime, p.doc.ID, rfc3339(p.time), MaxFuture, rfc3339(e.opts.Now().Unix())), true
			continue
		}
		var d decision
		var stripes []uint64
		if check {
			o, w := optimistic{}, since
			if spec != nil {
				o = spec[i]
			} else {
				o = e.decideOptimistic(p, (*keysp)[:0])
				w = &window{from: o.inserts, upto: o.inserts}
			}
			stripes = o.stripes
			e.lockKeys(stripes)
			d, err = o.d, o.err
			if err == nil && !e.stillHolds(&o, p, w) {
				d, err = e.decideAgain(&o, p, w) // under the locks: exact
			}
		} else {
			stripes = e.stripes(p, (*keysp)[:0])
			e.lockKeys(stripes)
			d = decision{Result: Result{ID: p.doc.ID, Fingerprint: p.fp}}
		}
		if err != nil {
			e.unlockKeys(stripes)
			idl.Unlock()
			errs[i], w.failed = err, true
			continue
		}
		if d.Duplicate {
			e.unlockKeys(stripes)
			idl.Unlock()
			e.nDups.Add(1)
			results[i] = d.Result
			w.waitFor = append(w.waitFor, d.dupSeq)
			continue
		}
		seq := store.MakeSeq(p.time, e.counter.Add(1))
		doc := store.Doc{Record: store.Record{Seq: seq, ID: p.doc.ID, Fingerprint: p.fp.Bytes(), Time: p.time, TextHash: p.hash, TextLen: p.runes, NormLen: p.norm}}
		if !e.opts.DropText {
			doc.Text = p.text
		}
		if len(p.doc.Meta) > 0 {
			doc.Meta = p.doc.Meta
		}
		e.markPending(&doc)
		ent := index.Entry{ID: seq, FP: p.ix, Time: p.time}
		lo := index.Entry{ID: seq, FP: p.lo, Time: p.time}
		if e.heldShort(p.runes, p.norm) {
			e.short.add(ent, p.norm)
			e.shortLong.Add(ent)
			if e.shortLo != nil {
				e.shortLo.add(lo, p.norm)
				e.shortLongLo.Add(lo)
			}
		} else {
			e.long.Add(ent)
			if e.longLo != nil {
				e.longLo.Add(lo)
			}
		}
		if len(p.keys) > 0 {
			e.keys.add(p.keys, seq)
		}
		e.setID(p.doc.ID, docRef{seq: seq, time: p.time}, status == idCollision)
		e.noteInsert(p, seq)
		if spec == nil {
			*keysp = stripes
		}
		e.unlockKeys(stripes)
		idl.Unlock()
		if w.batch == nil {
			w.batch = e.db.NewBatch()
		}
		w.batch.Put(&doc)
		d.Inserted = true
		results[i] = d.Result
		w.inserted = append(w.inserted, p)
		w.seqs = append(w.seqs, seq)
	}
}

// existing answers a document whose id is already stored: the same text is
// an idempotent no-op, another text a conflict.
func (e *Engine) existing(p *prepared, ref docRef) (Result, uint64, error) {
	rec, err := e.record(ref.seq)
	if err != nil {
		return Result{}, 0, fmt.Errorf("neardup: %q: %w", p.doc.ID, err)
	}
	if rec.TextHash != p.hash || !slices.Equal(rec.Fingerprint, p.fp.Bytes()) {
		return Result{}, 0, fmt.Errorf("%w: %q", ErrIDConflict, p.doc.ID)
	}
	return Result{ID: p.doc.ID, Fingerprint: p.fp}, ref.seq, nil
}

// pendingDoc is a document decided as new whose write is not yet
// committed: near-duplicates decided meanwhile read it from here.
type pendingDoc struct {
	rec  store.Record
	text []byte
	done chan struct{}
}

func (e *Engine) markPending(d *store.Doc) {
	e.pendMu.Lock()
	e.pending[d.Seq] = &pendingDoc{rec: d.Record, text: d.Text, done: make(chan struct{})}
	e.pendMu.Unlock()
}

func (e *Engine) donePending(seqs []uint64) {
	e.pendMu.Lock()
	for _, s := range seqs {
		if p, ok := e.pending[s]; ok {
			close(p.done)
			delete(e.pending, s)
		}
	}
	e.pendMu.Unlock()
}

// waitDurable returns once the write of document seq, if still pending,
// has been committed.
func (e *Engine) waitDurable(seq uint64) {
	e.pendMu.Lock()
	p, ok := e.pending[seq]
	e.pendMu.Unlock()
	if ok {
		<-p.done
	}
}

// record returns the record of document seq, from the pending writes or
// the store.
func (e *Engine) record(seq uint64) (store.Record, error) {
	e.pendMu.Lock()
	p, ok := e.pending[seq]
	e.pendMu.Unlock()
	if ok {
		return p.rec, nil
	}
	return e.db.Record(seq)
}

// text returns the text of document seq, from the pending writes or the
// store; nil when texts are not kept.
func (e *Engine) text(seq uint64) ([]byte, error) {
	e.pendMu.Lock()
	p, ok := e.pending[seq]
	e.pendMu.Unlock()
	if ok {
		return p.text, nil
	}
	t, _, err := e.db.Text(seq)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return t, err
}

// parallel runs f(0..n-1) on all cores.
func parallel(n int, f func(i int)) {
	if n < 4 {
		for i := range n {
			f(i)
		}
		return
	}
	par.For(n, f)
}

// Get returns the stored document id, with its text when texts are kept,
// or ErrNotFound.
func (e *Engine) Get(id string) (Document, error) {
	if err := e.enter(); err != nil {
		return Document{}, err
	}
	defer e.leave()
	ref, status, err := e.lookup(id)
	if err != nil {
		return Document{}, err
	}
	if status != idFound || ref.time < e.cutoff() {
		return Document{}, fmt.Errorf("%w: %s", ErrNotFound, quoteID(id))
	}
	e.waitDurable(ref.seq)
	d := Document{ID: id, Time: time.Unix(ref.time, 0)}
	text, meta, err := e.db.Text(ref.seq)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return Document{}, fmt.Errorf("neardup: get %q: %w", id, err)
	}
	d.Text, d.Meta = string(text), meta
	return d, nil
}

// Has reports whether the document id is stored and within the retention
// window, as Get would find it, without reading its text.
func (e *Engine) Has(id string) (bool, error) {
	if err := e.enter(); err != nil {
		return false, err
	}
	defer e.leave()
	ref, status, err := e.lookup(id)
	if err != nil {
		return false, err
	}
	return status == idFound && ref.time >= e.cutoff(), nil
}

// Delete removes the stored document id, or returns ErrNotFound.
func (e *Engine) Delete(id string) error {
	if err := e.enter(); err != nil {
		return err
	}
	defer e.leave()
	idl := e.idLock(id)
	idl.Lock()
	defer idl.Unlock()
	ref, status, err := e.lookup(id)
	if err != nil {
		return err
	}
	if status != idFound || ref.time < e.cutoff() {
		return fmt.Errorf("%w: %s", ErrNotFound, quoteID(id))
	}
	e.waitDurable(ref.seq)
	keys, err := e.storedKeys(ref.seq)
	if err != nil {
		return fmt.Errorf("neardup: delete %q: %w", id, err)
	}
	b := e.db.NewBatch()
	b.Delete(ref.seq)
	if err := e.db.Commit(b); err != nil {
		return fmt.Errorf("neardup: delete %q: %w", id, err)
	}
	e.removals.Add(1)
	e.unindex(ref.seq)
	if len(keys) > 0 {
		e.keys.remove(keys, ref.seq)
	}
	e.dropID([]byte(id), ref.seq)
	e.nDeleted.Add(1)
	return nil
}

// Stats returns counts describing the engine.
func (e *Engine) Stats() Stats {
	s := Stats{
		Checks:      e.nChecks.Load(),
		Inserts:     e.nInserts.Load(),
		Duplicates:  e.nDups.Load(),
		Candidates:  e.nCands.Load(),
		Rejected:    e.nRejected.Load(),
		Expired:     e.nExpired.Load(),
		Deleted:     e.nDeleted.Load(),
		Profile:     e.profile(),
		Bits:        e.bits,
		K:           e.longK,
		OpenSeconds: e.openTime.Seconds(),
	}
	s.MissingTexts = e.missingTexts
	if p := e.opts.Fingerprint.Pipeline; p != nil && s.Profile == "default" {
		if spec := p.String(); spec != "default" {
			s.Pipeline = spec
		}
	}
	s.DistinctNumbers, s.DistinctNegation = e.policy.DistinctNumbers, e.policy.DistinctNegation
	if e.short != nil {
		s.ShortK = e.shortK
		if e.policy.TinyLength > 0 {
			s.TinyK, s.TinyLength = scale(e.policy.Tiny.MaxDistance, e.bits), e.policy.TinyLength
		}
	}
	if e.keys != nil {
		s.TinyWords, s.DeletionKeys = e.policy.TinyWords, e.keys.len()
	}
	if f := e.failure.Load(); f != nil {
		s.Failure = (*f).Error()
	}
	if e.checksSpace() {
		if free := e.free.Load(); free != math.MaxInt64 {
			s.FreeBytes = free
		}
		s.DiskFull = e.spaceErr() != nil
	}
	if e.opts.Retention > 0 {
		s.Retention = e.opts.Retention.Seconds()
	}
	e.life.RLock()
	defer e.life.RUnlock()
	if e.closed {
		return s
	}
	// At 128 bits the indexes of the low halves hold the same documents:
	// their bytes count, their entries do not.
	s.Documents = e.long.Len()
	s.IndexBytes = e.long.Bytes()
	if e.short != nil {
		s.Documents += e.shortLong.Len()
		s.ShortDocuments = e.short.ix.Len()
		s.IndexBytes += e.shortLong.Bytes() + e.short.ix.Bytes()
	}
	if e.longLo != nil {
		s.IndexBytes += e.longLo.Bytes()
		if e.short != nil {
			s.IndexBytes += e.shortLongLo.Bytes() + e.shortLo.ix.Bytes()
		}
	}
	s.StoreBytes = e.db.DiskUsage()
	s.Syncs = e.db.Syncs()
	return s
}

// Close stops background work, waits for running operations and pending
// commits, and closes the store. Later calls return ErrClosed.
func (e *Engine) Close() error {
	e.life.Lock()
	if e.closed {
		e.life.Unlock()
		return ErrClosed
	}
	e.closed = true
	e.life.Unlock()
	close(e.stop)
	e.bg.Wait()
	var serr error
	if e.dir != "" && e.failure.Load() == nil {
		if err := e.writeSnapshot(); err != nil {
			serr = &SnapshotError{Err: err} // without it the next Open rebuilds
		}
	}
	if err := e.db.Close(); err != nil {
		return fmt.Errorf("neardup: close: %w", err)
	}
	return serr
}

// SnapshotError is the error of a Close that closed the store intact but
// could not write the index snapshot (a full disk): nothing stored is
// lost, and the next Open rebuilds the indexes from the store.
type SnapshotError struct{ Err error }

// Error returns the snapshot's error.
func (e *SnapshotError) Error() string { return e.Err.Error() }

// Unwrap returns the snapshot's error.
func (e *SnapshotError) Unwrap() error { return e.Err }
