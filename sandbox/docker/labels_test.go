package docker

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestCapWriter(t *testing.T) {
	c := &sandbox.CapWriter{Limit: 4}
	_, _ = c.Write([]byte("abc"))
	_, _ = c.Write([]byte("def"))
	c.Freeze()
	_, _ = c.Write([]byte("ghi"))
	res := c.Result(sandbox.ExecResult{})
	assert.Equal(t, "abcd", string(res.Output))
	assert.EqualValues(t, 6, res.OutputBytes)
	assert.True(t, res.Truncated)
}
