//go:build !race

package neardup

// pipelineRace is true in race builds (see pipeline_race_test.go).
const pipelineRace = false
