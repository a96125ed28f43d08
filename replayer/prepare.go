package replayer

import (
	"context"
	"fmt"
	"os"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// Prepare copies the task's initial files into a fresh sandbox, before step 0.
func Prepare(ctx context.Context, sb Sandbox, tk *task.Task) error {
	return CopyFiles(ctx, sb, tk, tk.Files)
}

// CopyFiles copies a files map of tk (source relative to the task dir →
// destination in the sandbox) into sb, keeping file modes.
func CopyFiles(ctx context.Context, sb Sandbox, tk *task.Task, files map[string]string) error {
	list, err := tk.Expand(files)
	if err != nil {
		return err
	}
	if fw, ok := sb.(sandbox.FilesWriter); ok {
		batch := make([]sandbox.File, 0, len(list))
		for _, f := range list {
			data, err := os.ReadFile(f.Src)
			if err != nil {
				return fmt.Errorf("copy %s: %w", f.Src, err)
			}
			batch = append(batch, sandbox.File{Path: f.Dest, Data: data, Mode: f.Mode})
		}
		if err := fw.WriteFiles(ctx, batch); err != nil {
			return fmt.Errorf("copy %d files of task %q: %w", len(batch), tk.ID, err)
		}
		return nil
	}
	for _, f := range list {
		data, err := os.ReadFile(f.Src)
		if err != nil {
			return fmt.Errorf("copy %s: %w", f.Src, err)
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		if err := sb.WriteFile(ctx, f.Dest, data, mode); err != nil {
			return fmt.Errorf("copy %s to %s: %w", f.Src, f.Dest, err)
		}
	}
	return nil
}
