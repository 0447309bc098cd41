package neardup

import (
	"sync"
	"sync/atomic"
	"time"
)

// Concurrent CheckAndInsert calls are decided and stored in batches.
//
// Each call fingerprints its document on its own goroutine, then hands it
// to one of combineRunners goroutines. A runner takes every document
// handed over meanwhile (up to combineMax) and decides and stores them as
// CheckAndInsertBatch does: the index queries on all cores, then the
// inserts in order under the locks, then one store write. A lone call,
// with no batch in progress, waits for nothing: a runner takes it at once
// (after a larger batch, see fill, at most a millisecond).
// Under load, calls share what a batch shares (one write and sync, one
// pass of locks, the scans of the short-text index), and a document costs
// about as much CPU as one sent in a batch (docs/PERFORMANCE.md, Engine,
// "Seventh pass").
//
// Two runners, one collecting at a time. A runner that finds the other
// still busy with its batch waits for it to finish, and takes what came
// meanwhile, unless spillMin calls are already queued: then it decides
// and stores them while the other waits for its sync. With few writers,
// batches are then as large as the writers make them, one sync each (at 64
// writers, runners that each took whatever was queued made batches of 15
// documents); with many, deciding and syncing still overlap
// (docs/PERFORMANCE.md, Engine, "Fourteenth pass"). Three runners did no
// better, and runners that handed the wait for the sync to another
// goroutine made smaller batches and cost more (docs/PERFORMANCE.md).
//
// While the other runner stores its batch (its sync is under way), the
// waiting collector decides the calls queued meanwhile, aheadMin or more
// at a time, into the batch it will store next (decideMore): once the
// other is done, only the calls of the last moments are left to decide
// before its own write. It decides nothing while the other still decides,
// so that batches are decided in the order they were taken. At 64 writers
// the engine then took about 5% more documents a second, and 64 HTTP
// clients sending one document each about 6% more (docs/PERFORMANCE.md,
// Engine, "Sixteenth pass").
//
// The writers that a batch answers send their next calls just as the next
// batch is taken, too late for it. So a collector that finds fewer calls
// queued than the last batch held waits for as many, for at most a quarter
// of the time the last batch took (see fill). At 64 writers batches then
// hold about 40 documents instead of 28, and one sync carries them
// (docs/PERFORMANCE.md, Engine, "Fifteenth pass").

const (
	combineRunners = 2
	combineMax     = 1024
)

// combiner hands CheckAndInsert calls to the runners.
type combiner struct {
	q       chan *combined // calls waiting for a runner
	collect sync.Mutex     // held by the runner collecting a batch
	busy    atomic.Int32   // runners deciding or storing a batch
	// deciding counts the runners deciding a batch, not yet storing it.
	deciding atomic.Int32
	// A runner that finishes deciding or storing a batch leaves a token.
	freed chan struct{}
	// want is how many queued calls the collector waits for (0: none):
	// spillMin while the other runner is busy, the last batch's size in
	// fill. The caller that queues the last of them leaves a token in
	// filled.
	want   atomic.Int32
	filled chan struct{}
	// The last batch: how many calls it held and how long it took to
	// decide and store, which fill waits by. fillMax bounds that wait.
	lastSize atomic.Int32
	lastTook atomic.Int64 // nanoseconds
	fillMax  time.Duration
}

// combined is one CheckAndInsert handed to a runner, which answers it
// with a token in done.
type combined struct {
	p    prepared
	res  Result
	err  error
	done chan struct{}
}

// combinedPool holds combined calls that were answered, for reuse.
var combinedPool = sync.Pool{New: func() any { return &combined{done: make(chan struct{}, 1)} }}

// startCombiner starts the runners; they stop with the engine.
func (e *Engine) startCombiner() {
	e.comb.q = make(chan *combined, combineMax)
	e.comb.freed = make(chan struct{}, 1)
	e.comb.filled = make(chan struct{}, 1)
	e.comb.fillMax = fillMax
	for range combineRunners {
		e.bg.Add(1)
		go e.combineLoop()
	}
}

// combine decides and stores p on a runner and returns its result. The
// caller holds the engine open (enter), so Close waits for it.
func (e *Engine) combine(p prepared) (Result, error) {
	c := combinedPool.Get().(*combined)
	c.p = p
	e.comb.q <- c
	if w := e.comb.want.Load(); w > 0 && len(e.comb.q) >= int(w) {
		signal(e.comb.filled)
	}
	<-c.done
	res, err := c.res, c.err
	*c = combined{done: c.done}
	combinedPool.Put(c)
	return res, err
}

// signal leaves a token in ch (of capacity one) unless one is there.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// spillMin is how many queued calls a runner takes while the other runner
// is still busy with its batch.
const spillMin = 256

func (e *Engine) combineLoop() {
	defer e.bg.Done()
	batch := make([]*combined, 0, combineMax)
	ps := make([]prepared, 0, combineMax)
	for {
		// One runner at a time collects a batch.
		e.comb.collect.Lock()
		select {
		case <-e.stop:
			e.comb.collect.Unlock()
			return
		case c := <-e.comb.q:
			batch = append(batch[:0], c)
		}
		// Tokens left from before are stale.
		drain(e.comb.freed)
		drain(e.comb.filled)
		var b decided
		ps = ps[:0]
		// While the other runner is busy, decide what comes meanwhile,
		// aheadMin calls or more at a time, once it is storing its batch;
		// with spillMin calls, go on without it.
		for e.comb.busy.Load() > 0 && len(batch)+len(e.comb.q) < spillMin {
			if e.comb.deciding.Load() == 0 && len(batch)-len(ps)+len(e.comb.q) >= aheadMin {
				batch = e.takeQueued(batch)
				ps = e.decideAhead(&b, batch, ps)
				continue
			}
			// Wait for the other runner, or for the queued calls that
			// make spillMin, or aheadMin to decide.
			need := spillMin - len(batch)
			if e.comb.deciding.Load() == 0 {
				need = min(need, aheadMin-(len(batch)-len(ps)))
			}
			e.comb.want.Store(int32(need)) // before the length is read: see combine
			if len(e.comb.q) < need {
				select {
				case <-e.comb.freed:
				case <-e.comb.filled:
				}
			}
			e.comb.want.Store(0)
		}
		e.fill(len(batch))
		batch = e.takeQueued(batch)
		e.comb.busy.Add(1)
		e.comb.deciding.Add(1)
		e.comb.collect.Unlock()
		began := time.Now()
		ps = e.decideAhead(&b, batch, ps)
		e.comb.deciding.Add(-1)
		signal(e.comb.freed)
		rs, err := e.storeDecided(&b)
		be, _ := err.(*BatchError)
		for i, c := range batch {
			switch {
			case be != nil && be.Errs[i] != nil:
				c.err = be.Errs[i] // the document's own
			case be == nil && err != nil:
				c.err = err
			default:
				c.res = rs[i]
			}
			c.done <- struct{}{} // c is the caller's again
		}
		clear(ps) // the texts belong to the callers
		e.comb.lastSize.Store(int32(len(batch)))
		e.comb.lastTook.Store(int64(time.Since(began)))
		clear(batch)
		e.comb.busy.Add(-1)
		signal(e.comb.freed)
	}
}

// aheadMin is how many calls a collector decides at a time while the
// other runner stores its batch.
const aheadMin = 8

// takeQueued appends the queued calls to batch, up to combineMax.
func (e *Engine) takeQueued(batch []*combined) []*combined {
	for len(batch) < combineMax {
		select {
		case c := <-e.comb.q:
			batch = append(batch, c)
		default:
			return batch
		}
	}
	return batch
}

// decideAhead decides into b the calls of batch not yet decided (those
// past len(ps)) and returns ps with their documents appended.
func (e *Engine) decideAhead(b *decided, batch []*combined, ps []prepared) []prepared {
	from := len(ps)
	for _, c := range batch[from:] {
		ps = append(ps, c.p)
	}
	if len(ps) > from {
		e.decideMore(b, ps[from:], true)
	}
	return ps
}

// fillMax is the longest a collector waits in fill.
const fillMax = time.Millisecond

// fill waits, when fewer calls are queued than the last batch held (and
// that batch held fewer than spillMin), until as many are, or a quarter of
// the time the last batch took, or fillMax, has passed. The collector
// holds held calls already. A lone writer waits for nothing: its last
// batch held one call.
func (e *Engine) fill(held int) {
	c := &e.comb
	w := int(c.lastSize.Load()) - held
	if w <= len(c.q) || w >= spillMin {
		return
	}
	drain(c.filled)
	c.want.Store(int32(w)) // before the length is read: see combine
	if len(c.q) < w {
		t := time.NewTimer(min(time.Duration(c.lastTook.Load())/4, c.fillMax))
		select {
		case <-c.filled:
		case <-t.C:
		}
		t.Stop()
	}
	c.want.Store(0)
}

// drain takes the token from ch, if there is one.
func drain(ch chan struct{}) {
	select {
	case <-ch:
	default:
	}
}
