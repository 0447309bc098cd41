package neardup

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"slices"
	"sync"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/similarity"
	"github.com/neardup/neardup/store"
)

// wordKeys maps the deletion keys (similarity.DeletionKeys) of the tiny
// texts of at most Policy.TinyWords words to their seqs, so that a tiny
// text finds the stored ones a word away from it whatever the distance of
// their fingerprints (Policy.TinyWords). It lives in memory: Close writes
// it to the index snapshot, and Open loads it from there, or, without
// one, makes it again from the texts of the tiny records once it returns
// (restoreKeys).
//
// A seq is removed when its document is deleted or expires, and a
// candidate is read from the store before it is verified, so an entry of
// an insert undone, or of a document deleted without its text, only costs
// a read until the expiry pass of its hour drops it.
type wordKeys struct {
	shards [wordKeyShards]wordKeyShard
}

const wordKeyShards = 64

// maxKeySeqs is the most seqs a key keeps: a key common to many texts (the
// words of a template but one) finds the latest of them, as the indexes
// give their nearest MaxCandidates.
const maxKeySeqs = 64

// wordKeyShard is one shard of wordKeys: m holds the first seq of each
// key, more the others (most keys belong to one text: a text a word away
// from a stored one is usually its duplicate, and not stored).
type wordKeyShard struct {
	mu   sync.RWMutex
	m    map[uint64]uint64
	more map[uint64][]uint64
}

func newWordKeys() *wordKeys {
	w := &wordKeys{}
	w.clear()
	return w
}

// reserve sizes w's maps, empty, for about n keys.
func (w *wordKeys) reserve(n int) {
	for i := range w.shards {
		s := &w.shards[i]
		s.mu.Lock()
		if len(s.m) == 0 {
			s.m = make(map[uint64]uint64, n/wordKeyShards)
		}
		s.mu.Unlock()
	}
}

// clear empties w.
func (w *wordKeys) clear() {
	for i := range w.shards {
		s := &w.shards[i]
		s.mu.Lock()
		s.m, s.more = make(map[uint64]uint64), nil
		s.mu.Unlock()
	}
}

func (w *wordKeys) shard(k uint64) *wordKeyShard { return &w.shards[k%wordKeyShards] }

// add maps each of keys to seq.
func (w *wordKeys) add(keys []uint64, seq uint64) {
	one := [1]uint64{seq}
	for _, k := range keys {
		w.addSeqs(k, one[:])
	}
}

// addSeqs maps key k to seqs, oldest first, after the seqs it has (see
// add).
func (w *wordKeys) addSeqs(k uint64, seqs []uint64) {
	if len(seqs) == 0 {
		return
	}
	s := w.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[k]; !ok {
		s.m[k] = seqs[0]
		seqs = seqs[1:]
		if len(seqs) == 0 {
			return
		}
	}
	first := s.m[k]
	rest := s.more[k]
	for _, seq := range seqs {
		if seq == first || slices.Contains(rest, seq) {
			continue
		}
		if len(rest) == maxKeySeqs-1 {
			rest = append(rest[:0], rest[1:]...) // the oldest but one goes
		}
		rest = append(rest, seq)
	}
	if len(rest) > 0 {
		if s.more == nil {
			s.more = make(map[uint64][]uint64)
		}
		s.more[k] = rest
	}
}

// remove drops seq from each of keys.
func (w *wordKeys) remove(keys []uint64, seq uint64) {
	for _, k := range keys {
		s := w.shard(k)
		s.mu.Lock()
		s.drop(k, func(x uint64) bool { return x == seq })
		s.mu.Unlock()
	}
}

// drop removes from key k the seqs that gone reports, moving one of the
// others up to m when its first goes. The caller holds s.mu.
func (s *wordKeyShard) drop(k uint64, gone func(uint64) bool) {
	rest := s.more[k]
	if len(rest) > 0 {
		rest = slices.DeleteFunc(rest, gone)
		if len(rest) == 0 {
			delete(s.more, k)
		} else {
			s.more[k] = rest
		}
	}
	if first, ok := s.m[k]; ok && gone(first) {
		if len(rest) == 0 {
			delete(s.m, k)
			return
		}
		s.m[k] = rest[0]
		if len(rest) == 1 {
			delete(s.more, k)
		} else {
			s.more[k] = rest[1:]
		}
	}
}

// expire drops the seqs below before (those of the hours before it) and
// returns how many keys are left.
func (w *wordKeys) expire(before uint64) int {
	left := 0
	old := func(x uint64) bool { return x < before }
	for i := range w.shards {
		s := &w.shards[i]
		s.mu.Lock()
		for k, first := range s.m {
			if old(first) || len(s.more[k]) > 0 {
				s.drop(k, old)
			}
		}
		left += len(s.m)
		s.mu.Unlock()
	}
	return left
}

// find appends to dst the seqs that share a key of keys, each once.
func (w *wordKeys) find(keys []uint64, dst []uint64) []uint64 {
	n := len(dst)
	for _, k := range keys {
		s := w.shard(k)
		s.mu.RLock()
		if first, ok := s.m[k]; ok {
			dst = append(dst, first)
			dst = append(dst, s.more[k]...)
		}
		s.mu.RUnlock()
	}
	slices.Sort(dst[n:])
	return append(dst[:n], slices.Compact(dst[n:])...)
}

// len returns how many keys w holds.
func (w *wordKeys) len() int {
	n := 0
	for i := range w.shards {
		s := &w.shards[i]
		s.mu.RLock()
		n += len(s.m)
		s.mu.RUnlock()
	}
	return n
}

// textKeys returns the deletion keys of the text whose sketch is s, of n
// runes (as the rules count them), when the Policy gives it keys: it is
// tiny or may be in a tiny pair (under TinyCap), and has at most
// TinyWords words. The caller knows the short index holds it.
func (e *Engine) textKeys(n int, s func() *similarity.Sketch) []uint64 {
	if e.keys == nil || n <= 0 || n >= e.policy.TinyCap() {
		return nil
	}
	words := s().Words(make([]uint64, 0, e.policy.TinyWords+1), e.policy.TinyWords)
	if len(words) > e.policy.TinyWords || len(words) < minTinyWords {
		return nil
	}
	return similarity.DeletionKeys(words, make([]uint64, 0, len(words)+1))
}

// keyMatches appends to ms the stored documents that share a deletion key
// with p and are not in ms already, the latest MaxCandidates of them, each
// with its distance from p (by the whole fingerprint) read from its
// record; deleted or expired ones are left out.
func (e *Engine) keyMatches(p *prepared, ms []index.Match) ([]index.Match, error) {
	if len(p.keys) == 0 {
		return ms, nil
	}
	seqs := e.keys.find(p.keys, nil)
	cutoff := e.cutoff()
	read := 0
	for i := len(seqs) - 1; i >= 0; i-- { // the latest first
		seq := seqs[i]
		if slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == seq }) {
			continue
		}
		if read++; read > e.opts.MaxCandidates {
			break // as many as are verified of an index's matches
		}
		rec, err := e.record(seq)
		if errors.Is(err, store.ErrNotFound) {
			// Deleted while its keys were being made (restoreKeys), or an
			// insert undone: the keys it shares with p go now, so that
			// they do not send every decision of p's texts round again
			// (newKeyMatch).
			e.keys.remove(p.keys, seq)
			continue
		}
		if err != nil {
			return ms, fmt.Errorf("neardup: %w", err)
		}
		if rec.Time < cutoff || len(rec.Fingerprint) != e.bits/8 {
			continue
		}
		hi := binary.BigEndian.Uint64(rec.Fingerprint)
		d := bits.OnesCount64(hi ^ p.ix)
		if e.bits > 64 {
			d += bits.OnesCount64(binary.BigEndian.Uint64(rec.Fingerprint[8:]) ^ p.lo)
		}
		ms = append(ms, index.Match{ID: seq, FP: hi, Distance: d})
	}
	return ms, nil
}

// newKeyMatch reports whether a stored document that shares a deletion key
// with p is not among the matches its decision o was made with (or those
// are unknown): one inserted since, whose keys entered the map before it
// was numbered (see stillHolds).
func (e *Engine) newKeyMatch(o *optimistic, p *prepared) bool {
	if o.pre == nil {
		return true
	}
	for _, seq := range e.keys.find(p.keys, nil) {
		if !slices.ContainsFunc(o.pre, func(m index.Match) bool { return m.ID == seq }) {
			return true
		}
	}
	return false
}

// storedKeys returns the deletion keys of the stored document seq, made
// again from its text: none when it has none, or its text is gone.
func (e *Engine) storedKeys(seq uint64) ([]uint64, error) {
	if e.keys == nil {
		return nil, nil
	}
	rec, err := e.record(seq)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil || !e.heldShort(rec.TextLen, rec.NormLen) {
		return nil, err
	}
	return e.recordKeys(seq, rec.NormLen)
}

// recordKeys returns the deletion keys of the stored text of seq, of n
// runes as the rules count them.
func (e *Engine) recordKeys(seq uint64, n int) ([]uint64, error) {
	if n <= 0 || n >= e.policy.TinyCap() {
		return nil, nil
	}
	text, err := e.text(seq)
	if err != nil || text == nil {
		return nil, err
	}
	return e.storedTextKeys(text, n), nil
}

// storedTextKeys is textKeys for a stored text of n runes (as the rules
// count them).
func (e *Engine) storedTextKeys(text []byte, n int) []uint64 {
	return e.textKeys(n, func() *similarity.Sketch { return similarity.NewSketch(e.visible(text)) })
}

// keyedRecord is a stored document that may have deletion keys, its
// length as the rules count it, and where its text is.
type keyedRecord struct {
	seq  uint64
	norm int
	at   store.TextPlace
}

// restoreKeys makes the deletion keys of the stored documents rs (tiny
// ones, see restore) again from their texts, on all cores, a chunk at a
// time until Close, and then closes keysMade (and sets keysDone when it
// made them all). A snapshot that holds them spares the work
// (loadKeysSnapshot). Open starts it once the
// engine is ready: at about 4.5 µs a text on two cores it would take most
// of a restart of a store of tiny texts (1.2 million of them took 5.2-5.5
// s, against 0.8-1.0 s for the rest of Open), so until it is done a tiny
// text may miss a stored one a word away beyond the tiny rule's distance,
// as if the store had no keys. A text that cannot be read
// gets none: its candidates' verification could not read it either.
func (e *Engine) restoreKeys(rs []keyedRecord) {
	defer close(e.keysMade)
	e.keys.reserve(len(rs) * 8) // texts of about 7 words
	if e.keysReader != nil && e.readKeysSnapshot() {
		e.keysRead.Store(true)
		e.keysDone.Store(true)
		return
	}
	// Made from the texts: those a snapshot that failed added already
	// are not added twice.
	const chunk = 1 << 14
	for from := 0; from < len(rs); from += chunk {
		select {
		case <-e.stop:
			return
		default:
		}
		part := rs[from:min(len(rs), from+chunk)]
		parallel(len(part), func(i int) {
			r := &part[i]
			text, err := e.db.TextAt(r.seq, r.at)
			if err != nil {
				return
			}
			keys := e.storedTextKeys(text, r.norm)
			if len(keys) > 0 {
				e.keys.add(keys, r.seq)
			}
		})
	}
	e.keysDone.Store(true)
}

// openKeysSnapshot opens the snapshot of the deletion keys whose token is
// tok, for restoreKeys to read once Open returns; nil when there is none.
// It is opened before the snapshot's files are removed, and removed once
// read (closeKeysSnapshot).
func (e *Engine) openKeysSnapshot(tok []byte) (*os.File, *bufio.Reader) {
	f, r, err := e.openSnapshot(keysSnapshot, tok)
	if err != nil {
		return nil, nil
	}
	return f, r
}

// closeKeysSnapshot closes and removes the snapshot of the keys, if one
// is open.
func (e *Engine) closeKeysSnapshot() {
	if e.keysFile == nil {
		return
	}
	e.keysFile.Close()
	os.Remove(e.keysFile.Name())
	e.keysFile, e.keysReader = nil, nil
}

// readKeysSnapshot adds to e.keys the keys of the open snapshot but for
// the seqs that expired since it was written (before the hour of the
// cutoff), and reports whether it read them all: false when they were
// made for another policy, the file is damaged, or Close came first.
// Documents inserted meanwhile add their own keys beside them, and one
// deleted meanwhile may leave its keys, which cost a read until a check
// that finds them drops them (keyMatches).
func (e *Engine) readKeysSnapshot() bool {
	defer e.closeKeysSnapshot()
	from := store.HourStart(e.cutoff())
	return readKeys(e.keysReader, e.policy, e.stop, func(k uint64, seqs []uint64) {
		seqs = slices.DeleteFunc(seqs, func(s uint64) bool { return s < from })
		e.keys.addSeqs(k, seqs)
	}) == nil
}

// keysSnapshot names the snapshot file of the deletion keys
// (snapshotPath).
const keysSnapshot = "keys"

// keysMagic begins the deletion keys' snapshot file, after the token.
const keysMagic = "neardup-keys 1\n"

// writeTo writes the keys of w to out (see readKeys): a header naming
// the policy's TinyWords and TinyCap, which made them, the number of
// keys, then each key and its seqs, oldest first. The caller holds no
// lock of w, and nothing writes to w meanwhile (Close).
func (w *wordKeys) writeTo(out io.Writer, p Policy) error {
	bw := bufio.NewWriterSize(out, 1<<20)
	bw.WriteString(keysMagic)
	var b []byte
	b = binary.AppendUvarint(b, uint64(p.TinyWords))
	b = binary.AppendUvarint(b, uint64(p.TinyCap()))
	b = binary.AppendUvarint(b, uint64(w.len()))
	bw.Write(b)
	for i := range w.shards {
		s := &w.shards[i]
		s.mu.RLock()
		for k, first := range s.m {
			more := s.more[k]
			b = binary.LittleEndian.AppendUint64(b[:0], k)
			b = binary.AppendUvarint(b, uint64(1+len(more)))
			b = binary.AppendUvarint(b, first)
			for _, seq := range more {
				b = binary.AppendUvarint(b, seq)
			}
			bw.Write(b)
		}
		s.mu.RUnlock()
	}
	return bw.Flush()
}

// readKeys reads the keys writeTo wrote, for policy p, and calls add for
// each key with its seqs, oldest first (the slice is reused). It returns
// an error when they were made for another TinyWords or TinyCap, the file
// is cut short or damaged, or stop is closed before the end.
func readKeys(r *bufio.Reader, p Policy, stop <-chan struct{}, add func(k uint64, seqs []uint64)) error {
	bad := func(what string) error {
		return fmt.Errorf("neardup: deletion keys snapshot: %s", what)
	}
	magic := make([]byte, len(keysMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != keysMagic {
		return bad("not a snapshot of deletion keys")
	}
	words, err1 := binary.ReadUvarint(r)
	tinyCap, err2 := binary.ReadUvarint(r)
	n, err3 := binary.ReadUvarint(r)
	if err := errors.Join(err1, err2, err3); err != nil {
		return bad("header cut short")
	}
	if words != uint64(p.TinyWords) || tinyCap != uint64(p.TinyCap()) {
		return bad(fmt.Sprintf("made for texts of at most %d words under %d characters, the policy's are %d and %d", words, tinyCap, p.TinyWords, p.TinyCap()))
	}
	var kb [8]byte
	seqs := make([]uint64, 0, maxKeySeqs)
	for i := range n {
		if i%(1<<16) == 0 {
			select {
			case <-stop:
				return bad("not read to the end: the engine closed")
			default:
			}
		}
		if _, err := io.ReadFull(r, kb[:]); err != nil {
			return bad("cut short")
		}
		count, err := binary.ReadUvarint(r)
		if err != nil || count == 0 || count > maxKeySeqs {
			return bad("damaged")
		}
		seqs = seqs[:0]
		for range count {
			seq, err := binary.ReadUvarint(r)
			if err != nil {
				return bad("cut short")
			}
			seqs = append(seqs, seq)
		}
		add(binary.LittleEndian.Uint64(kb[:]), seqs)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return bad("longer than its header says")
	}
	return nil
}
