//go:build unix

package server_test

import (
	"os/signal"
	"syscall"
)

// canLimitFileSize says whether limitFileSize works here.
const canLimitFileSize = true

// limitFileSize caps the files this process writes at n bytes
// (RLIMIT_FSIZE), with SIGXFSZ ignored, so that a write past the cap
// returns EFBIG instead of ending the process.
func limitFileSize(n uint64) error {
	signal.Ignore(syscall.SIGXFSZ)
	return syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
}
