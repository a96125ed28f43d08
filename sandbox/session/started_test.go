package session_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

func TestStartedWriter(t *testing.T) {
	const sentinel = "xabc-\n"
	tests := []struct {
		name        string
		writes      []string
		want        string
		wantStarted bool
	}{
		{name: "sentinel whole", writes: []string{sentinel + "err\n"}, want: "err\n", wantStarted: true},
		{name: "sentinel alone", writes: []string{sentinel}, want: "", wantStarted: true},
		{name: "sentinel in pieces", writes: []string{"x", "ab", "c-\nrest", "more"}, want: "restmore", wantStarted: true},
		{name: "wrapper failed first", writes: []string{"rbx: cannot apply the sandbox ulimits\n"}, want: "rbx: cannot apply the sandbox ulimits\n", wantStarted: true},
		{name: "diverges inside the sentinel", writes: []string{"xa", "Z"}, want: "xaZ", wantStarted: true},
		{name: "ends inside the sentinel", writes: []string{"xab"}, want: "xab", wantStarted: false},
		{name: "nothing", want: "", wantStarted: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := session.NewStartedWriter(&out, sentinel)
			for _, p := range tt.writes {
				n, err := w.Write([]byte(p))
				require.NoError(t, err)
				assert.Equal(t, len(p), n)
			}
			started := false
			select {
			case <-w.Started():
				started = true
			default:
			}
			assert.Equal(t, tt.wantStarted, started)
			require.NoError(t, w.Flush())
			assert.Equal(t, tt.want, out.String())
			n, err := w.Write([]byte("after"))
			require.NoError(t, err)
			assert.Equal(t, 5, n)
			assert.Equal(t, tt.want+"after", out.String(), "after a flush, writes pass through")
		})
	}
}
