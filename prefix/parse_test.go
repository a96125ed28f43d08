package prefix

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func TestLimit(t *testing.T) {
	shell := trajectory.Step{Action: trajectory.KindShell, Command: "ls"}
	tests := []struct {
		name string
		step trajectory.Step
		k    int
		want int
		why  string
	}{
		{"all reusable", shell, 4, 4, ""},
		{"http", trajectory.Step{Action: trajectory.KindHTTP, URL: "http://x"}, 4, 2, "http step"},
		{"volatile", trajectory.Step{Action: trajectory.KindShell, Command: "date", Volatile: true}, 4, 2, "volatile"},
		{"varied output", trajectory.Step{Action: trajectory.KindShell, Command: "ls", Observation: &trajectory.Observation{Pinned: true, Varied: true}}, 4, 2, "differed between verified runs"},
		{"beyond k", trajectory.Step{Action: trajectory.KindHTTP, URL: "http://x"}, 2, 2, ""},
		{"keys", trajectory.Step{Action: trajectory.KindKeys, Keys: "vi x\n"}, 4, 2, "a keys step (the terminal and its programs are not cached)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			traj := &trajectory.Trajectory{Steps: []trajectory.Step{shell, shell, tc.step, shell}}
			j, why := Limit(traj, tc.k)
			assert.Equal(t, tc.want, j)
			if tc.why == "" {
				assert.Nil(t, why)
				return
			}
			require.NotNil(t, why)
			assert.Equal(t, 2, why.Step)
			assert.Contains(t, why.Error(), tc.why)
			assert.ErrorIs(t, why, ErrNotReusable)
		})
	}
}

func TestShFunctionLimit(t *testing.T) {
	for cmd, defines := range map[string]bool{
		"ls -l":                    false,
		"f() { echo; }":            true,
		"function f { :; }":        true,
		". ./env.sh":               true,
		"source venv/bin/activate": true,
		"x=$(date)":                false,
		"eval \"$x\"":              true,
	} {
		traj := &trajectory.Trajectory{Steps: []trajectory.Step{{Action: trajectory.KindShell, Command: cmd}}}
		_, got := shFunctionLimit(traj, 1)
		assert.Equal(t, defines, got, cmd)
	}
}

func TestParseListing(t *testing.T) {
	t.Run("gnu", func(t *testing.T) {
		l, err := parseListing(gz(t, "gnu\nd 755 0 0 1700000000.5 4096 /w\x00f 644 1000 1000 1700000001.25 12 /w/a b\x00l 777 0 0 5.0 1 /w/l\x00"))
		require.NoError(t, err)
		assert.Equal(t, meta{Type: 'f', Mode: 0o644, UID: 1000, GID: 1000, Ctime: 1700000001_250000000, Size: 12}, l["/w/a b"])
		assert.Equal(t, byte('d'), l["/w"].Type)
		assert.Equal(t, byte('l'), l["/w/l"].Type)
	})
	t.Run("gnu opaque directory", func(t *testing.T) {
		l, err := parseListing(gz(t, "gnu\no 700 42 0 1700000000.5 4096 /var/cache/apt/archives/partial\x00"))
		require.NoError(t, err)
		assert.Equal(t, meta{Type: 'd', Mode: 0o700, UID: 42, Ctime: 1700000000_500000000, Size: 4096, Opaque: true}, l["/var/cache/apt/archives/partial"])
	})
	t.Run("busybox", func(t *testing.T) {
		l, err := parseListing(gz(t, "bb\n41ed 0 0 1700000000 4096 /w\n81a4 0 0 1700000002 3 /w/f x\n"))
		require.NoError(t, err)
		assert.Equal(t, meta{Type: 'f', Mode: 0o644, Ctime: 1700000002e9, Size: 3}, l["/w/f x"])
		assert.Equal(t, meta{Type: 'd', Mode: 0o755, Ctime: 1700000000e9, Size: 4096}, l["/w"])
	})
	for name, in := range map[string]string{"format": "zz\n", "gnu record": "gnu\nf 644 0\x00", "bb type": "bb\n1ff 0 0 1 1 /x\n"} {
		t.Run("bad "+name, func(t *testing.T) {
			_, err := parseListing(gz(t, in))
			assert.Error(t, err)
		})
	}
}

func TestParseClock(t *testing.T) {
	n, err := parseClock("1796110025.212754059")
	require.NoError(t, err)
	assert.Equal(t, int64(1796110025_212754059)-int64(ctimeSlack), n, "GNU date: nanoseconds, less a tick of slack")
	n, err = parseClock("1796110024.%N")
	require.NoError(t, err)
	assert.Equal(t, int64(1796110024e9), n, "busybox date: whole seconds")
	_, err = parseClock("soon")
	assert.Error(t, err)
}

func TestDiffListing(t *testing.T) {
	const t0 = 100
	base := listing{
		"/w": {Type: 'd', Ctime: 50}, "/w/keep": {Type: 'f', Ctime: 50}, "/w/edit": {Type: 'f', Ctime: 50},
		"/w/gone": {Type: 'd', Ctime: 50}, "/w/gone/a": {Type: 'f', Ctime: 50}, "/w/swap": {Type: 'f', Ctime: 50},
		"/etc/hosts": {Type: 'f', Ctime: 50}, "/": {Type: 'd', Ctime: 50},
	}
	cur := listing{
		"/w": {Type: 'd', Ctime: 120}, "/w/keep": {Type: 'f', Ctime: 50}, "/w/edit": {Type: 'f', Ctime: 130, Size: 7},
		"/w/new": {Type: 'd', Ctime: 40}, "/w/new/old-ctime": {Type: 'f', Ctime: 40, Size: 5}, "/w/swap": {Type: 'd', Ctime: 110},
		"/etc/hosts": {Type: 'f', Ctime: 200}, "/": {Type: 'd', Ctime: 200},
	}
	c := diffListing(base, cur, t0, map[string]bool{"/etc/hosts": true})
	assert.Equal(t, []string{"/w/gone", "/w/swap"}, c.Delete, "topmost deletions and type changes")
	assert.Equal(t, []string{"/w", "/w/edit", "/w/new", "/w/new/old-ctime", "/w/swap"}, c.Archive,
		"changed since t0, new (a moved-in tree keeps old change times), other type; excluded mounts and / left out")
	assert.Equal(t, int64(12), c.Bytes)
	assert.Empty(t, c.Opaque)
}

func TestDiffListingOpaque(t *testing.T) {
	const t0 = 100
	base := listing{
		"/a": {Type: 'd', Ctime: 50, Opaque: true}, "/b": {Type: 'd', Ctime: 50, Opaque: true},
		"/c": {Type: 'd', Ctime: 50}, "/c/x": {Type: 'f', Ctime: 50}, "/d": {Type: 'd', Ctime: 50, Opaque: true},
	}
	for _, tc := range []struct {
		name    string
		cur     listing
		opaque  []string
		archive []string
	}{
		{"unchanged opaque directories are the baseline's", listing{"/a": base["/a"], "/b": base["/b"], "/c": base["/c"], "/c/x": base["/c/x"], "/d": base["/d"]}, nil, nil},
		{"an opaque directory changed since t0", listing{"/a": {Type: 'd', Ctime: 120, Opaque: true}, "/b": base["/b"], "/c": base["/c"], "/c/x": base["/c/x"], "/d": base["/d"]}, []string{"/a"}, nil},
		{"a new opaque directory", listing{"/a": base["/a"], "/b": base["/b"], "/c": base["/c"], "/c/x": base["/c/x"], "/d": base["/d"], "/e": {Type: 'd', Ctime: 40, Opaque: true}}, []string{"/e"}, nil},
		{"a directory made opaque (its children look gone)", listing{"/a": base["/a"], "/b": base["/b"], "/c": {Type: 'd', Ctime: 50, Opaque: true}, "/d": base["/d"]}, []string{"/c"}, nil},
		{"an opaque directory made readable is copied with its content", listing{"/a": base["/a"], "/b": base["/b"], "/c": base["/c"], "/c/x": base["/c/x"], "/d": {Type: 'd', Ctime: 120}, "/d/y": {Type: 'f', Ctime: 40}}, nil, []string{"/d", "/d/y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := diffListing(base, tc.cur, t0, nil)
			assert.Equal(t, tc.opaque, c.Opaque)
			assert.Equal(t, tc.archive, c.Archive)
		})
	}
}

func TestBatches(t *testing.T) {
	var paths []string
	for i := 0; i < 5000; i++ {
		paths = append(paths, "/some/rather/long/directory/name/for/testing/batches/file-number-000"+string(rune('a'+i%26)))
	}
	bs := batches(paths)
	require.Greater(t, len(bs), 1)
	n := 0
	for _, b := range bs {
		size := 0
		for _, p := range b {
			size += len(p) + 4
		}
		assert.LessOrEqual(t, size, argBatch)
		n += len(b)
	}
	assert.Equal(t, len(paths), n)
}
