package recycle

import (
	"bytes"
	"fmt"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// sameShape compares what a restore restores (not times or inodes).
func sameShape(want, got agent.Entry) error {
	switch {
	case want.Type != got.Type:
		return fmt.Errorf("type %s, want %s", got.Type, want.Type)
	case want.Mode != got.Mode || want.UID != got.UID || want.GID != got.GID:
		return fmt.Errorf("mode %o %d:%d, want %o %d:%d", got.Mode, got.UID, got.GID, want.Mode, want.UID, want.GID)
	case want.Type != agent.TypeDir && want.Size != got.Size:
		return fmt.Errorf("size %d, want %d", got.Size, want.Size)
	case !bytes.Equal(want.Link, got.Link) || want.Rdev != got.Rdev:
		return fmt.Errorf("link %q dev %d, want %q dev %d", got.Link, got.Rdev, want.Link, want.Rdev)
	}
	return nil
}
