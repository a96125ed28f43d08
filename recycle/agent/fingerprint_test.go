package agent_test

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

func TestProvenRoundTrip(t *testing.T) {
	p := agent.Proven{Key: agent.Key{1, 2, 3}, FPs: []agent.FP{{Path: 1, Entry: 2}, {Path: 3, Entry: 4}}}
	var buf bytes.Buffer
	require.NoError(t, agent.WriteProven(&buf, p))
	buf.WriteString("plan follows")
	r := bufio.NewReader(&buf)
	got, err := agent.ReadProven(r)
	require.NoError(t, err)
	assert.Equal(t, p, got)
	rest, _ := r.ReadString(0)
	assert.Equal(t, "plan follows", rest, "nothing after the fingerprints is consumed")

	for name, data := range map[string][]byte{
		"empty":     nil,
		"bad magic": []byte("rbx-proven-0\n"),
		"truncated": buf.Bytes()[:20],
	} {
		_, err := agent.ReadProven(bufio.NewReader(bytes.NewReader(data)))
		assert.Error(t, err, name)
	}
}

func TestFingerprintCoversWhatUnchangedCompares(t *testing.T) {
	k := agent.Key{7}
	e := agent.Entry{Path: []byte("/f"), Type: agent.TypeFile, Mode: 0o644, Size: 3, Ctime: 10, Mtime: 10, Ino: 5, Dev: 1}
	edits := map[string]func(*agent.Entry){
		"mode": func(e *agent.Entry) { e.Mode = 0o4755 }, "uid": func(e *agent.Entry) { e.UID = 1 },
		"gid": func(e *agent.Entry) { e.GID = 1 }, "size": func(e *agent.Entry) { e.Size = 4 },
		"ctime": func(e *agent.Entry) { e.Ctime = 11 }, "mtime": func(e *agent.Entry) { e.Mtime = 11 },
		"inode": func(e *agent.Entry) { e.Ino = 6 }, "device": func(e *agent.Entry) { e.Dev = 2 },
		"type": func(e *agent.Entry) { e.Type = agent.TypeFifo }, "link": func(e *agent.Entry) { e.Link = []byte("x") },
	}
	for name, edit := range edits {
		c := e
		edit(&c)
		assert.NotEqual(t, k.Fingerprint(e).Entry, k.Fingerprint(c).Entry, name)
		assert.Equal(t, k.Fingerprint(e).Path, k.Fingerprint(c).Path, name)
	}
	assert.NotEqual(t, k.Fingerprint(e), agent.Key{8}.Fingerprint(e), "another key, other fingerprints")
}

func TestChanges(t *testing.T) {
	k := agent.Key{9}
	a := agent.Entry{Path: []byte("/a"), Type: agent.TypeFile, Ctime: 1}
	b := agent.Entry{Path: []byte("/b"), Type: agent.TypeFile, Ctime: 1}
	p := agent.Proven{Key: k, FPs: []agent.FP{k.Fingerprint(a), k.Fingerprint(b)}}
	a2 := a
	a2.Ctime = 2
	n := agent.Entry{Path: []byte("/n"), Type: agent.TypeDir}
	changed, missing, err := agent.Changes(p, []agent.Entry{a2, n})
	require.NoError(t, err)
	assert.Equal(t, []agent.Entry{a2, n}, changed)
	assert.Equal(t, []int{1}, missing)

	dup := agent.Proven{Key: k, FPs: []agent.FP{k.Fingerprint(a), k.Fingerprint(a)}}
	_, _, err = agent.Changes(dup, nil)
	assert.ErrorContains(t, err, "repeats")
}

func TestFrameRoundTrip(t *testing.T) {
	one := agent.Report{Entries: []agent.Entry{{Path: []byte("/x\n"), Type: agent.TypeFile}}, Missing: []int{0, 4}, State: agent.State{Killed: 2}}
	two := agent.Report{Sums: []agent.Sum{{Path: []byte("/x"), SHA256: "aa"}}}
	var buf bytes.Buffer
	require.NoError(t, agent.WriteFrame(&buf, one))
	require.NoError(t, agent.WriteFrame(&buf, two))
	got, err := agent.ReadFrame(&buf)
	require.NoError(t, err)
	assert.Equal(t, one, got)
	got, err = agent.ReadFrame(&buf)
	require.NoError(t, err)
	assert.Equal(t, two, got)
	_, err = agent.ReadFrame(&buf)
	assert.Error(t, err, "no third frame")
}

// FuzzReadFrame: a frame from a broken or hostile stream is an error,
// never a panic or an unbounded allocation.
func FuzzReadFrame(f *testing.F) {
	var buf bytes.Buffer
	_ = agent.WriteFrame(&buf, agent.Report{Entries: []agent.Entry{{Path: []byte("/a"), Type: agent.TypeDir}}, Missing: []int{3}})
	f.Add(buf.Bytes())
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := agent.ReadFrame(bytes.NewReader(data))
		if err == nil {
			for _, e := range rep.Entries {
				require.NoError(t, e.Check())
			}
		}
	})
}
