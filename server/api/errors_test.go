package api_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/server/api"
)

// TestAPIErrorWire pins an error's body: clients switch on code and read
// the details flat beside it, while status and Retry-After travel as HTTP
// headers, never in the JSON.
func TestAPIErrorWire(t *testing.T) {
	e := (&api.APIError{Status: 429, Code: api.CodeTooManyEpisodes, Message: "full", RetryAfter: 2}).
		With("open", 3).With("max", 3)
	b, err := json.Marshal(e)
	require.NoError(t, err)
	assert.JSONEq(t, `{"code":"too_many_episodes","message":"full","open":3,"max":3}`, string(b))
	assert.Equal(t, "too_many_episodes: full", e.Error())
}
