package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestResolveUser(t *testing.T) {
	const passwd = "root:x:0:0:root:/root:/bin/sh\nagent:x:1000:100::/home/agent:/bin/sh\nbroken:x:y:z\n"
	const group = "root:x:0:\nusers:x:100:\nstaff:x:50:agent\ndev:x:60:bob,agent\n"
	for _, tc := range []struct {
		spec     string
		uid, gid int
		groups   []int
		err      string
	}{
		{spec: "agent", uid: 1000, gid: 100, groups: []int{50, 60}},
		{spec: "agent:staff", uid: 1000, gid: 50, groups: []int{50, 60}},
		{spec: "agent:7", uid: 1000, gid: 7, groups: []int{50, 60}},
		{spec: "1000", uid: 1000, gid: 100, groups: []int{50, 60}},
		{spec: "2000", uid: 2000, gid: 2000},
		{spec: "2000:staff", uid: 2000, gid: 50},
		{spec: "root", uid: 0, gid: 0},
		{spec: "nobody", err: `no user "nobody"`},
		{spec: "broken", err: `no user "broken"`},
		{spec: "agent:wheel", err: `no group "wheel"`},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			ids, err := sandbox.ResolveUser(tc.spec, passwd, group)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, sandbox.UserIDs{UID: tc.uid, GID: tc.gid, Groups: tc.groups}, ids)
		})
	}
}

func TestNumericUser(t *testing.T) {
	for u, want := range map[string]bool{"1000:2000": true, "0:0": true, "1000": false, "a:1": false, "1:b": false, "-1:2": false} {
		_, ok := sandbox.NumericUser(u)
		assert.Equal(t, want, ok, u)
	}
}
