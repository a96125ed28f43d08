package local

import (
	"context"
	"fmt"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// WriteFiles writes each file as WriteFile does (directly under the root,
// never through the session shell), stopping at the first failure. Mode 0
// means 0644, as in the docker backend, whatever an existing file's mode.
func (s *Sandbox) WriteFiles(ctx context.Context, files []sandbox.File) error {
	for _, f := range files {
		mode := f.Mode.Perm()
		if mode == 0 {
			mode = 0o644
		}
		if err := s.writeFile(ctx, f.Path, f.Data, mode); err != nil {
			return fmt.Errorf("write %q in sandbox %q: %w", f.Path, s.id, err)
		}
	}
	return nil
}
