package docker

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseOwner(t *testing.T) {
	const passwd = "root:x:0:0:root:/root:/bin/sh\nagent:x:1000:100::/home/agent:/bin/sh\nbroken:x:y:z\n"
	const group = "root:x:0:\nusers:x:100:\nstaff:x:50:agent\n"
	for _, tc := range []struct {
		spec     string
		uid, gid int
		err      string
	}{
		{spec: "agent", uid: 1000, gid: 100},
		{spec: "agent:staff", uid: 1000, gid: 50},
		{spec: "agent:7", uid: 1000, gid: 7},
		{spec: "1000", uid: 1000, gid: 100},
		{spec: "2000", uid: 2000, gid: 2000},
		{spec: "2000:staff", uid: 2000, gid: 50},
		{spec: "root", uid: 0, gid: 0},
		{spec: "nobody", err: `no user "nobody"`},
		{spec: "broken", err: `no user "broken"`},
		{spec: "agent:wheel", err: `no group "wheel"`},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			o, err := parseOwner(tc.spec, passwd, group)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, fileOwner{uid: tc.uid, gid: tc.gid}, *o)
		})
	}
}

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
