//go:build race

package neardup

// pipelineRace is true in race builds, where the slowest pipeline tests
// (loading the gse dictionary, thousands of long documents) run smaller or
// not at all: the race detector makes them ten times slower and they hold
// no concurrency of their own.
const pipelineRace = true
