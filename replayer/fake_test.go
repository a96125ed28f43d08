package replayer_test

import (
	"context"
	"io/fs"
	"maps"
	"strings"
	"syscall"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// fakeSandbox is an in-memory sandbox: files in a map, shell commands
// answered from a script keyed by command text.
type fakeSandbox struct {
	files   map[string]string
	modes   map[string]fs.FileMode
	answers map[string]sandbox.ExecResult
	refuse  map[string]syscall.Errno // paths whose file actions the sandbox refuses
	// readOnly are paths whose writes alone the sandbox refuses.
	readOnly map[string]syscall.Errno
	ran      []string
	timeout  []time.Duration // each Exec's timeout, in order
}

func newFake(answers map[string]sandbox.ExecResult) *fakeSandbox {
	return &fakeSandbox{files: map[string]string{}, modes: map[string]fs.FileMode{}, answers: maps.Clone(answers)}
}

func (f *fakeSandbox) Exec(_ context.Context, req sandbox.ExecRequest) (sandbox.ExecResult, error) {
	f.ran = append(f.ran, req.Command)
	f.timeout = append(f.timeout, req.Timeout)
	if r, ok := f.answers[req.Command]; ok {
		return r, nil
	}
	if strings.HasPrefix(req.Command, "echo ") {
		out := strings.TrimPrefix(req.Command, "echo ") + "\n"
		return sandbox.ExecResult{Output: []byte(out), OutputBytes: int64(len(out))}, nil
	}
	return sandbox.ExecResult{ExitCode: 127, Output: []byte("not scripted: " + req.Command)}, nil
}

func (f *fakeSandbox) WriteFile(_ context.Context, path string, data []byte, mode fs.FileMode) error {
	if errno, ok := f.readOnly[path]; ok {
		return &sandbox.FileError{Op: "write", Path: sandbox.ResolvePath("/workspace", path), Errno: errno}
	}
	if errno, ok := f.refuse[path]; ok {
		return &sandbox.FileError{Op: "write", Path: sandbox.ResolvePath("/workspace", path), Errno: errno}
	}
	f.files[path] = string(data)
	if mode != 0 {
		f.modes[path] = mode
	}
	return nil
}

func (f *fakeSandbox) WriteFiles(ctx context.Context, files []sandbox.File) error {
	for _, fl := range files {
		_ = f.WriteFile(ctx, fl.Path, fl.Data, fl.Mode)
	}
	return nil
}

func (f *fakeSandbox) ReadFile(_ context.Context, path string) ([]byte, error) {
	if errno, ok := f.refuse[path]; ok {
		return nil, &sandbox.FileError{Op: "read", Path: sandbox.ResolvePath("/workspace", path), Errno: errno}
	}
	d, ok := f.files[path]
	if !ok {
		return nil, sandbox.ErrNotFound
	}
	return []byte(d), nil
}
