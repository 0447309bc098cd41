package neardup

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/neardup/neardup/store"
)

// Stored lengths of two kinds.
//
// A record's NormLen is the length its text's short-index tag is made of
// (shortIndex.fits). Records written before the Levenshtein ratio left out
// punctuation and symbols counted them too, so their lengths are longer
// than the ratio's: a tag made of one could drop a candidate that passes.
// The store's editLengthsMeta entry holds the first counter
// (store.Counter) whose records count as the ratio does; the records
// before it are indexed with the tag 0 (length unknown, never dropped),
// and leave the store as the retention window passes.
const editLengthsMeta = "edit-lengths-since"

// readEditLengths sets e.editSince from the store before its records are
// restored. A store without the entry holds none or only records of the
// earlier kind: it reports old, and then every record is taken as earlier
// and the index snapshot (whose tags are of the earlier kind) is not
// loaded, until markEditLengths, after the restore, records where the
// records of the ratio's kind begin.
func (e *Engine) readEditLengths() (old bool, err error) {
	v, err := e.db.Meta(editLengthsMeta)
	if err == nil {
		since, perr := strconv.ParseUint(string(v), 10, 64)
		if perr != nil {
			return false, fmt.Errorf("the store's %s entry %q is damaged: %v", editLengthsMeta, v, perr)
		}
		e.editSince = since
		return false, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	_, _, any, err := e.db.SeqSpan()
	if err != nil {
		return false, err
	}
	if !any {
		return false, e.db.SetMeta(editLengthsMeta, []byte("0"))
	}
	e.editSince = math.MaxUint64
	return true, nil
}

// markEditLengths records, for a store whose records are all of the
// earlier kind, that those written from now on count lengths as the
// ratio does: from the counter after the last one restored.
func (e *Engine) markEditLengths() error {
	since := e.counter.Load() + 1
	if err := e.db.SetMeta(editLengthsMeta, []byte(strconv.FormatUint(since, 10))); err != nil {
		return err
	}
	e.editSince = since
	return nil
}

// tagLen returns the length the short index's tag of the restored record
// r is made of: its NormLen, or 0 (unknown) for a record of the earlier
// kind.
func (e *Engine) tagLen(r *store.View) int {
	if store.Counter(r.Seq) < e.editSince {
		return 0
	}
	return r.NormLen
}
