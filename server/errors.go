package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/neardup/neardup"
)

// apiError is an error with the HTTP status and machine-readable code it is
// reported with.
type apiError struct {
	status  int
	code    string
	message string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func newError(status int, code, message string) *apiError {
	return &apiError{status: status, code: code, message: message}
}

// storeFailed is the error of every API request that reaches the engine,
// and of /readyz, once a write to the store has failed (a full disk, say):
// the engine stopped, and serves again once the server is restarted.
func storeFailed(message string) *apiError {
	return newError(http.StatusServiceUnavailable, "store_failed", message)
}

func badRequest(message string) *apiError {
	return newError(http.StatusBadRequest, "bad_request", message)
}

var (
	errUnavailableStarting = newError(http.StatusServiceUnavailable, "unavailable", "the server is starting; retry shortly")
	errUnavailableDraining = newError(http.StatusServiceUnavailable, "unavailable", "the server is shutting down")
	errOverloaded          = newError(http.StatusTooManyRequests, "overloaded", "too many requests in progress; retry shortly")
	errTimeout             = newError(http.StatusServiceUnavailable, "timeout", "the request's work took longer than the server allows (its write timeout); send fewer queries or documents at once")
	errOverloadedBytes     = newError(http.StatusTooManyRequests, "overloaded", "too many request bytes in progress; retry shortly")
	errMissingText         = newError(http.StatusBadRequest, "missing_text", `"text" is missing or empty`)
	errInvalidUTF8         = newError(http.StatusBadRequest, "invalid_utf8", "the request body is not valid UTF-8")
)

// errorBody is the JSON shape of every error response.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// engineError maps an error from the engine to its API error, by errors.Is
// against the engine's sentinel errors.
func engineError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	m := engineMessage(err)
	switch {
	case errors.Is(err, neardup.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", m)
	case errors.Is(err, neardup.ErrEmptyText):
		return errMissingText
	case errors.Is(err, neardup.ErrInvalidUTF8):
		return errInvalidUTF8
	case errors.Is(err, neardup.ErrEmptyID), errors.Is(err, neardup.ErrBadMeta):
		return newError(http.StatusBadRequest, "bad_request", m)
	case errors.Is(err, neardup.ErrIDConflict):
		return newError(http.StatusConflict, "id_conflict", m)
	case errors.Is(err, neardup.ErrTooLarge):
		return newError(http.StatusRequestEntityTooLarge, "text_too_large", m)
	case errors.Is(err, neardup.ErrIDTooLong):
		return newError(http.StatusBadRequest, "id_too_long", m)
	case errors.Is(err, neardup.ErrExpired):
		return newError(http.StatusBadRequest, "expired", m)
	case errors.Is(err, neardup.ErrFutureTime):
		return newError(http.StatusBadRequest, "future_time", m)
	case errors.Is(err, neardup.ErrClosed):
		return errUnavailableDraining
	case errors.Is(err, neardup.ErrStoreFailed):
		return storeFailed(m)
	case errors.Is(err, neardup.ErrDiskFull):
		return newError(http.StatusInsufficientStorage, "insufficient_storage", m)
	case errors.Is(err, neardup.ErrProfile), errors.Is(err, neardup.ErrHex), errors.Is(err, neardup.ErrWidth), errors.Is(err, neardup.ErrBadCursor):
		return badRequest(m)
	case errors.Is(err, context.DeadlineExceeded):
		return errTimeout
	case errors.Is(err, context.Canceled):
		// The server cut the request off at its shutdown timeout, or the
		// client went away (and reads no answer).
		return newError(http.StatusServiceUnavailable, "unavailable", "the request was cut off: the server is shutting down")
	}
	return newError(http.StatusInternalServerError, "internal", m)
}

// engineMessage is err's message for an API client, without the prefix
// that names the engine's Go package.
func engineMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "neardup: ")
}

// writeError writes e as the response.
func writeError(w http.ResponseWriter, e *apiError) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	// A retry helps a server that is busy, starting or draining (behind a
	// balancer, the retry reaches another); one whose store failed answers
	// the same until it is restarted, so it gets no Retry-After.
	if e.status == http.StatusTooManyRequests || e.status == http.StatusServiceUnavailable && e.code != "store_failed" {
		h.Set("Retry-After", strconv.Itoa(1))
	}
	w.WriteHeader(e.status)
	b, _ := json.Marshal(errorBody{errorDetail{Code: e.code, Message: e.message}})
	b = append(b, '\n')
	w.Write(b)
}
