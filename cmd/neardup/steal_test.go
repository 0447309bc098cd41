package main

import (
	"runtime"
	"testing"
	"time"
)

func TestParseSteal(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"cpu  4134354 4241 385747 1830186 108010 0 37805 110254 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n", 1102540 * time.Millisecond, true},
		{"cpu  1 2 3 4 5 6 7 250\n", 2500 * time.Millisecond, true},
		{"cpu  1 2 3 4 5 6 7\n", 0, false}, // an old kernel without the column
		{"cpu0 1 2 3 4 5 6 7 8 9\n", 0, false},
		{"cpu  1 2 3 4 5 6 7 x\n", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseSteal([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseSteal(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if runtime.GOOS == "linux" {
		if _, ok := hostSteal(); !ok {
			t.Error("hostSteal is not known on Linux")
		}
		if s := startSteal().seconds(); s < 0 {
			t.Errorf("steal over an instant = %v, want 0 or more", s)
		}
	}
}
