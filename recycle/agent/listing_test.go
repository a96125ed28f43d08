package agent_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

func sampleReport() agent.Report {
	return agent.Report{
		Entries: []agent.Entry{
			{Path: []byte("/"), Type: agent.TypeDir, Mode: 0o755, MountRoot: true, Flags: 0x40,
				Xattrs: []agent.Xattr{{Name: "system.posix_acl_default", Value: []byte{2, 0, 0, 0}}, {Name: "user.x", Value: []byte("s\x00\xff")}}},
			{Path: []byte("/a\nb\xff"), Type: agent.TypeFile, Mode: 0o4755, Size: 7, Ctime: 1, Mtime: 2, Ino: 3, Dev: 4, Nlink: 2, NoFlags: true,
				Xattrs: []agent.Xattr{{Name: "security.capability", Value: []byte{1, 0, 0, 2}}}},
			{Path: []byte("/l"), Type: agent.TypeSymlink, Mode: 0o777, Link: []byte("../\x00x"[:3])},
		},
		Sums:  []agent.Sum{{Path: []byte("/a\nb\xff"), SHA256: "ab"}},
		Kept:  []agent.Kept{{Path: []byte("/etc/hosts"), Data: []byte("127.0.0.1 localhost\n")}},
		State: agent.State{Killed: 2},
	}
}

func TestReportRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, agent.WriteReport(&buf, sampleReport()))
	got, err := agent.ReadReport(&buf)
	require.NoError(t, err)
	assert.Equal(t, sampleReport(), got)
}

func TestReadReportRejects(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, agent.WriteReport(&buf, sampleReport()))
	full := buf.String()
	lines := strings.SplitAfter(full, "\n")
	tests := map[string]string{
		"truncated":       strings.Join(lines[:len(lines)-2], ""),
		"duplicate":       lines[1] + full,
		"relative path":   `{"e":{"p":"YQ==","t":"f","m":0,"u":0,"g":0,"s":0,"c":0,"mt":0,"i":0,"d":0}}` + "\n" + `{"end":true,"n":1}` + "\n",
		"dotdot":          `{"e":{"p":"L2EvLi4=","t":"f","m":0,"u":0,"g":0,"s":0,"c":0,"mt":0,"i":0,"d":0}}` + "\n" + `{"end":true,"n":1}` + "\n",
		"unknown field":   `{"x":1}` + "\n",
		"bad count":       `{"end":true,"n":3}` + "\n",
		"xattrs unsorted": `{"e":{"p":"Lw==","t":"d","x":[{"n":"user.b","v":""},{"n":"user.a","v":""}]}}` + "\n" + `{"end":true,"n":1}` + "\n",
		"xattr twice":     `{"e":{"p":"Lw==","t":"d","x":[{"n":"user.a","v":""},{"n":"user.a","v":"eA=="}]}}` + "\n" + `{"end":true,"n":1}` + "\n",
		"xattr no name":   `{"e":{"p":"Lw==","t":"d","x":[{"n":"","v":""}]}}` + "\n" + `{"end":true,"n":1}` + "\n",
		"xattr field":     `{"e":{"p":"Lw==","t":"d","x":[{"n":"user.a","v":"","z":1}]}}` + "\n" + `{"end":true,"n":1}` + "\n",
		"fs-own flags":    `{"e":{"p":"Lw==","t":"d","fl":524288}}` + "\n" + `{"end":true,"n":1}` + "\n",
		"dir link count":  `{"e":{"p":"Lw==","t":"d","n":2}}` + "\n" + `{"end":true,"n":1}` + "\n",
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := agent.ReadReport(strings.NewReader(in))
			assert.Error(t, err)
		})
	}
}

// FuzzReadReport: the host parses what an agent in a hostile sandbox
// printed; it must never panic, and what it accepts must be well formed
// and survive a round trip.
func FuzzReadReport(f *testing.F) {
	var buf bytes.Buffer
	_ = agent.WriteReport(&buf, sampleReport())
	f.Add(buf.Bytes())
	f.Add([]byte(`{"end":true}` + "\n"))
	f.Add([]byte(`{"e":{"p":"Lw==","t":"d"}}` + "\n" + `{"end":true,"n":1}` + "\n"))
	f.Add([]byte(`{"e":{"p":"Lw==","t":"d","fl":64,"x":[{"n":"system.posix_acl_access","v":"AgAAAA=="},{"n":"user.x","v":"c2VjcmV0"}]}}` + "\n" +
		`{"e":{"p":"L2E=","t":"f","n":2,"nf":true,"x":[{"n":"security.capability","v":"AQAAAg=="}]}}` + "\n" + `{"end":true,"n":2}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := agent.ReadReport(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, e := range rep.Entries {
			require.NoError(t, e.Check())
		}
		var out bytes.Buffer
		require.NoError(t, agent.WriteReport(&out, rep))
		again, err := agent.ReadReport(&out)
		require.NoError(t, err)
		assert.Equal(t, len(rep.Entries), len(again.Entries))
	})
}

func TestParseMounts(t *testing.T) {
	ms, err := agent.ParseMounts([]byte("overlay / overlay rw 0 0\n/dev/vda /a\\040b ext4 ro,relatime 0 0\n"))
	require.NoError(t, err)
	require.Len(t, ms, 2)
	assert.Equal(t, []byte("/a b"), ms[1].Point)
	assert.True(t, ms[1].ReadOnly)
	listed, points := agent.Writable(append(ms, agent.Mount{Point: []byte("/.rbx"), FSType: "ext4"},
		agent.Mount{Point: []byte("/proc"), FSType: "proc"}, agent.Mount{Point: []byte("/dev/shm"), FSType: "tmpfs"}), "/.rbx")
	require.Len(t, listed, 2)
	assert.Equal(t, "/", string(listed[0].Point))
	assert.Equal(t, "/dev/shm", string(listed[1].Point))
	assert.True(t, points["/proc"])
}

func TestPlanRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := agent.NewPlanWriter(&buf)
	require.NoError(t, w.Write(agent.Op{Op: agent.OpRemove, Path: []byte("/x\n")}, nil))
	require.NoError(t, w.Write(agent.Op{Op: agent.OpCreate, Path: []byte("/f"), Type: agent.TypeFile, Size: 3}, strings.NewReader("a\nb")))
	require.NoError(t, w.Close())
	r := agent.NewPlanReader(&buf)
	op, _, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, []byte("/x\n"), op.Path)
	op, content, err := r.Next()
	require.NoError(t, err)
	data := new(bytes.Buffer)
	_, _ = data.ReadFrom(content)
	assert.Equal(t, "a\nb", data.String())
	_, _, err = r.Next()
	assert.ErrorIs(t, err, io.EOF)
}
