package docker

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsStorageOptErr(t *testing.T) {
	for msg, want := range map[string]bool{
		"Error response from daemon: --storage-opt is not supported":                                             true,
		"--storage-opt is supported only for overlay over xfs with 'pquota' mount option":                        true,
		"Storage Option not supported":                                                                           true,
		"Error response from daemon: Conflict. The container name \"/rbx-1\" is already in use by container abc": false,
		"no space left on device":                                                                                false,
	} {
		assert.Equal(t, want, isStorageOptErr(errors.New(msg)), msg)
	}
}
