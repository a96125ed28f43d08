package session_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
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

func TestFilesWriteFile(t *testing.T) {
	tests := []struct {
		name       string
		sized      bool
		path       string
		data       []byte
		mode       fs.FileMode
		code       int
		out        string
		execErr    error
		wantScript string
		wantData   []byte
		wantErr    string
	}{
		{
			name: "relative path, mode kept", path: "a.txt", data: []byte("hi"),
			wantScript: `umask 022; p='/work/a.txt'; d=${p%/*}; mkdir -p -- "${d:-/}" && cat > "$p"`,
			wantData:   []byte("hi"),
		},
		{
			name: "explicit mode renames over", path: "/bin/run", data: []byte("x"), mode: 0o755,
			wantScript: `umask 022; p='/bin/run'; d=${p%/*}; mkdir -p -- "${d:-/}" && cat > "$p.rbx-tmp" && chmod 755 "$p.rbx-tmp" && mv -f "$p.rbx-tmp" "$p"`,
			wantData:   []byte("x"),
		},
		{
			name: "nil data still gets a stdin", path: "/e",
			wantScript: `umask 022; p='/e'; d=${p%/*}; mkdir -p -- "${d:-/}" && cat > "$p"`,
			wantData:   []byte{},
		},
		{
			name: "sized reads exactly and checks", sized: true, path: "/s", data: []byte("abc"),
			wantScript: `umask 022; p='/s'; d=${p%/*}; mkdir -p -- "${d:-/}" && head -c 3 > "$p" && [ "$(wc -c < "$p")" -eq 3 ]`,
			wantData:   []byte("abc"),
		},
		{
			name: "sized nil data needs no stdin", sized: true, path: "/s",
			wantScript: `umask 022; p='/s'; d=${p%/*}; mkdir -p -- "${d:-/}" && head -c 0 > "$p" && [ "$(wc -c < "$p")" -eq 0 ]`,
		},
		{
			name: "script fails", path: "/ro/f", data: []byte("x"), code: 1, out: "read-only file system\n",
			wantScript: `umask 022; p='/ro/f'; d=${p%/*}; mkdir -p -- "${d:-/}" && cat > "$p"`,
			wantData:   []byte("x"), wantErr: "write /ro/f in sb: exit 1: read-only file system",
		},
		{
			name: "exec fails", path: "/f", data: []byte("x"), execErr: errors.New("gone"),
			wantScript: `umask 022; p='/f'; d=${p%/*}; mkdir -p -- "${d:-/}" && cat > "$p"`,
			wantData:   []byte("x"), wantErr: "write /f in sb: gone",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var call fileCall
			f := session.Files{ID: "sb", Workdir: "/work", Sized: tt.sized, Exec: fakeFileExec(&call, tt.out, tt.code, tt.execErr)}
			err := f.WriteFile(context.Background(), tt.path, tt.data, tt.mode)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.wantScript, call.script)
			assert.Equal(t, tt.wantData, call.data)
		})
	}
}

func TestFilesReadFile(t *testing.T) {
	tests := []struct {
		name    string
		code    int
		out     string
		execErr error
		want    string
		wantIs  error
		wantErr string
	}{
		{name: "content", out: "data\x00bin", want: "data\x00bin"},
		{name: "missing", code: 40, wantIs: sandbox.ErrNotFound, wantErr: "read /work/f in sb: not found"},
		{name: "not a file", code: 41, wantErr: "read /work/f in sb: not a regular file"},
		{name: "cat fails", code: 1, wantErr: "read /work/f in sb: cat exit 1"},
		{name: "exec fails", execErr: errors.New("gone"), wantErr: "read /work/f in sb: gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var call fileCall
			f := session.Files{ID: "sb", Workdir: "/work", Exec: fakeFileExec(&call, tt.out, tt.code, tt.execErr)}
			got, err := f.ReadFile(context.Background(), "f")
			assert.Equal(t, `p='/work/f'; [ -e "$p" ] || exit 40; [ -f "$p" ] || exit 41; exec cat -- "$p" 2>/dev/null`, call.script)
			assert.Nil(t, call.data, "a read has no stdin")
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				if tt.wantIs != nil {
					assert.ErrorIs(t, err, tt.wantIs)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}
