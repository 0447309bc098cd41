//go:build !unix

package server_test

import "errors"

// canLimitFileSize says whether limitFileSize works here.
const canLimitFileSize = false

// limitFileSize cannot cap file sizes here.
func limitFileSize(uint64) error { return errors.New("no file size limit on this system") }
