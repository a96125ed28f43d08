package server

import (
	"crypto/subtle"
	"time"
)

func now() time.Time                  { return time.Now() }
func since(t time.Time) time.Duration { return time.Since(t) }
func constantTimeEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
