package server

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSlotsGivenUpOnce: a claim's slots are given up exactly once: one
// admitted, the rest released — however many times release is called —
// and an admission beyond the claim is refused, not counted.
func TestSlotsGivenUpOnce(t *testing.T) {
	s := &Server{cfg: defaults(), eps: map[string]*episode{}}
	s.cfg.maxOpen = 3
	c, aerr := s.reserve(2)
	require.Nil(t, aerr)
	_, aerr = s.reserve(2)
	require.NotNil(t, aerr)
	assert.Equal(t, http.StatusTooManyRequests, aerr.Status)

	s.mu.Lock()
	assert.True(t, c.takeLocked())
	s.mu.Unlock()
	c.release()
	c.release()
	assert.Zero(t, s.pending, "the slot not admitted went back once")
	s.mu.Lock()
	assert.False(t, c.takeLocked(), "nothing left to admit")
	s.mu.Unlock()
	assert.Zero(t, s.pending)

	var none *slots
	none.release() // a failed reserve's nil claim is safe to release
	_, aerr = s.reserve(3)
	assert.Nil(t, aerr, "every slot is free again")
}
