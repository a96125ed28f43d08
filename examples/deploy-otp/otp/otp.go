// Package otp is the one-time-password service of the deploy-otp example: a
// time-based code that a deploy script checks, so that a state restored from a
// snapshot (holding an expired code) fails while a replay that fetches a
// fresh code succeeds (docs/overview.md).
//
// A code is the first 8 hex characters of sha256("<secret>:<window>") where
// window = floor(unix seconds / period seconds). It is valid during its own
// window and the next one, so it lives between one and two periods and a code
// fetched just before a window ends is still good when it is used.
package otp

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strconv"
	"time"
)

// CodeLen is the number of hex characters in a code.
const CodeLen = 8

// seconds is period in whole seconds, at least 1: the deploy script works
// with `date +%s`, so sub-second periods cannot be reproduced there.
func seconds(period time.Duration) int64 {
	return max(int64(period/time.Second), 1)
}

// Window is the index of the period that contains t.
func Window(t time.Time, period time.Duration) int64 {
	p := seconds(period)
	u := t.Unix()
	w := u / p
	if u%p < 0 { // floor, not truncation, for times before 1970
		w--
	}
	return w
}

// WindowCode is the code of window w.
func WindowCode(secret string, w int64) string {
	sum := sha256.Sum256([]byte(secret + ":" + strconv.FormatInt(w, 10)))
	return hex.EncodeToString(sum[:])[:CodeLen]
}

// Code is the code issued at time t. period is truncated to whole seconds
// (minimum one second).
func Code(secret string, t time.Time, period time.Duration) string {
	return WindowCode(secret, Window(t, period))
}

// Valid reports whether code is accepted at time now: it must be the code of
// now's window or of the window before.
func Valid(secret, code string, now time.Time, period time.Duration) bool {
	w := Window(now, period)
	ok := 0
	for _, c := range []string{WindowCode(secret, w), WindowCode(secret, w-1)} {
		ok |= subtle.ConstantTimeCompare([]byte(c), []byte(code))
	}
	return ok == 1
}

// Expiry is the instant a code issued at t stops being valid: the end of the
// window after t's.
func Expiry(t time.Time, period time.Duration) time.Time {
	return time.Unix((Window(t, period)+2)*seconds(period), 0)
}
