package neardup

// Concurrent CheckAndInsert calls are decided and stored in batches.
//
// Each call fingerprints its document on its own goroutine, then hands it
// to one of combineRunners goroutines. A runner takes every document
// handed over meanwhile (up to combineMax) and decides and stores them as
// CheckAndInsertBatch does: the index queries on all cores, then the
// inserts in order under the locks, then one store write. A lone call
// waits for nothing: an idle runner takes it at once. Under load, calls
// share what a batch shares (one write and sync, one pass of locks, the
// scans of the short-text index), and a document costs about as much CPU
// as one sent in a batch (docs/PERFORMANCE.md, Engine, "Seventh pass").
//
// Two runners: while one waits for its write to be synced, the other
// decides the next documents. One or three did no better, and runners that
// handed the wait for the sync to another goroutine made smaller batches
// and cost more (docs/PERFORMANCE.md).

const (
	combineRunners = 2
	combineMax     = 1024
)

// combined is one CheckAndInsert handed to a runner.
type combined struct {
	p    prepared
	res  Result
	err  error
	done chan struct{}
}

// startCombiner starts the runners; they stop with the engine.
func (e *Engine) startCombiner() {
	e.combineq = make(chan *combined, combineMax)
	for range combineRunners {
		e.bg.Add(1)
		go e.combineLoop()
	}
}

// combine decides and stores p on a runner and returns its result. The
// caller holds the engine open (enter), so Close waits for it.
func (e *Engine) combine(p prepared) (Result, error) {
	c := &combined{p: p, done: make(chan struct{})}
	e.combineq <- c
	<-c.done
	return c.res, c.err
}

func (e *Engine) combineLoop() {
	defer e.bg.Done()
	batch := make([]*combined, 0, combineMax)
	ps := make([]prepared, 0, combineMax)
	for {
		select {
		case <-e.stop:
			return
		case c := <-e.combineq:
			batch = append(batch[:0], c)
		}
	more:
		for len(batch) < combineMax {
			select {
			case c := <-e.combineq:
				batch = append(batch, c)
			default:
				break more
			}
		}
		ps = ps[:0]
		for _, c := range batch {
			ps = append(ps, c.p)
		}
		rs, err := e.decideAndStore(ps, true)
		be, _ := err.(*BatchError)
		for i, c := range batch {
			switch {
			case be != nil && be.Errs[i] != nil:
				// As a batch of one reports it.
				c.err = &BatchError{Errs: []error{be.Errs[i]}}
			case be == nil && err != nil:
				c.err = err
			default:
				c.res = rs[i]
			}
			close(c.done)
		}
		clear(ps) // the texts belong to the callers
		clear(batch)
	}
}
