package session_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// fileCall is what a fake session.FileExec was asked to run.
type fileCall struct {
	script string
	data   []byte
}

// fakeFileExec records its call and answers with out, code and err,
// writing out to the caller's writer when it gave one.
func fakeFileExec(call *fileCall, out string, code int, err error) session.FileExec {
	return func(_ context.Context, script string, data []byte, w io.Writer) ([]byte, int, error) {
		call.script, call.data = script, data
		if w != nil {
			_, _ = io.WriteString(w, out)
			return nil, code, err
		}
		return []byte(out), code, err
	}
}

// TestFilesResults: what a script's exit code and output become.
func TestFilesResults(t *testing.T) {
	tests := []struct {
		name    string
		read    bool
		sized   bool
		code    int
		out     string
		execErr error
		want    string
		wantIs  []error
		wantErr string
	}{
		{name: "write", out: ""},
		{name: "read", read: true, out: "data\x00bin", want: "data\x00bin"},
		{name: "write refused", code: 42, out: "\036rbx-refused write\nsh: can't create /work/f: Permission denied\n",
			wantErr: "write /work/f: Permission denied", wantIs: []error{fs.ErrPermission}},
		{name: "parent refused", code: 42, out: "\036rbx-refused mkdir\nmkdir: can't create directory '/work': Read-only file system\n",
			wantErr: "mkdir /work: Read-only file system"},
		{name: "read missing", read: true, code: 42, out: "\036rbx-refused read\ncat: can't open '/work/f': No such file or directory\n",
			wantErr: "read /work/f: No such file or directory", wantIs: []error{sandbox.ErrNotFound, fs.ErrNotExist}},
		{name: "read refused after data", read: true, code: 42, out: "part\036rbx-refused x\n\036rbx-refused read\ncat: read error: Input/output error\n",
			wantErr: "read /work/f: Input/output error"},
		{name: "unknown message kept", code: 42, out: "\036rbx-refused write\nsomething odd\n", wantErr: "write /work/f: something odd"},
		{name: "short write", sized: true, code: 43, wantErr: "write in sb: write /work/f: the file does not hold what was sent"},
		{name: "no tools", code: 127, out: "sh: cat: not found", wantErr: "write in sb: write /work/f: the sandbox cannot run its shell's tools (exit 127): sh: cat: not found"},
		{name: "exec fails", execErr: errors.New("gone"), wantErr: "write /work/f in sb: gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var call fileCall
			f := session.Files{ID: "sb", Workdir: "/work", Sized: tt.sized, Exec: fakeFileExec(&call, tt.out, tt.code, tt.execErr)}
			var got []byte
			var err error
			if tt.read {
				got, err = f.ReadFile(context.Background(), "f")
				assert.Nil(t, call.data, "a read has no stdin")
			} else {
				err = f.WriteFile(context.Background(), "f", []byte("x"), 0)
				assert.Equal(t, []byte("x"), call.data)
			}
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				for _, is := range tt.wantIs {
					assert.ErrorIs(t, err, is)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

// FuzzScriptResult: whatever a script printed (a read's data before the
// marker, a tool's odd message), the result never panics, a refusal names
// the operation's path and reads "<op> <path>: <message>", and exit 0 is
// always success.
func FuzzScriptResult(f *testing.F) {
	f.Add([]byte("\x1erbx-refused write\nsh: can't create /x: Permission denied\n"), 42)
	f.Add([]byte("data\x1erbx-refused read\n"), 42)
	f.Add([]byte("\x1erbx-refused mkdir\nmkdir: /a: File exists"), 42)
	f.Add([]byte("\x1erbx-refused"), 42)
	f.Add([]byte(""), 0)
	f.Add([]byte("x"), 43)
	f.Fuzz(func(t *testing.T, out []byte, code int) {
		err := session.ScriptResult("write", "/w/f", out, code)
		if code == 0 {
			require.NoError(t, err)
			return
		}
		require.Error(t, err)
		if fe, ok := errors.AsType[*sandbox.FileError](err); ok {
			assert.True(t, fe.Path == "/w/f" || fe.Path == "/w", fe.Path)
			assert.True(t, strings.HasPrefix(err.Error(), fe.Op+" "+fe.Path+": "), err.Error())
		}
	})
}
