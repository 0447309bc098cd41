package main

import (
	"os"
	"runtime/pprof"
)

// cpuProfile is a CPU profile written to a file that is created before the
// profile starts, so that a bad path is reported before any work.
type cpuProfile struct {
	f  *os.File
	on bool
}

// openCPUProfile creates the profile's file; an empty path gives a profile
// that does nothing. A file that cannot be created is a usage error.
func openCPUProfile(path string) (*cpuProfile, error) {
	if path == "" {
		return &cpuProfile{}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, usagef("--cpuprofile: %v", err)
	}
	return &cpuProfile{f: f}, nil
}

// start starts profiling, unless it has started already.
func (p *cpuProfile) start() error {
	if p.f == nil || p.on {
		return nil
	}
	if err := pprof.StartCPUProfile(p.f); err != nil {
		return err
	}
	p.on = true
	return nil
}

// stop stops profiling and closes the file.
func (p *cpuProfile) stop() {
	if p.f == nil {
		return
	}
	if p.on {
		pprof.StopCPUProfile()
	}
	p.f.Close()
	p.f = nil
}

// startCPUProfile starts writing a CPU profile to path and returns the
// function that stops it and closes the file. An empty path does nothing.
func startCPUProfile(path string) (stop func(), err error) {
	p, err := openCPUProfile(path)
	if err != nil {
		return nil, err
	}
	if err := p.start(); err != nil {
		p.stop()
		return nil, err
	}
	return p.stop, nil
}
