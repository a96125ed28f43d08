package recycle

import (
	"bytes"
	"fmt"

	"github.com/rbx-sandbox/rbx/recycle/agent"
)

// sameShape compares what a restore restores (not times or inodes): type,
// mode, owner, size but a directory's, link target, device, a file's link
// count, inode flags, extended attributes.
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
	case want.Nlink != got.Nlink:
		return fmt.Errorf("link count %d, want %d", got.Nlink, want.Nlink)
	case want.Flags != got.Flags || want.NoFlags != got.NoFlags:
		return fmt.Errorf("inode flags %#x (none: %t), want %#x (none: %t)", got.Flags, got.NoFlags, want.Flags, want.NoFlags)
	case !agent.XattrsEqual(want.Xattrs, got.Xattrs):
		return fmt.Errorf("extended attributes %s, want %s", xattrNames(got.Xattrs), xattrNames(want.Xattrs))
	}
	return nil
}

func xattrNames(xs []agent.Xattr) string {
	names := make([]string, len(xs))
	for i, x := range xs {
		names[i] = x.Name
	}
	return fmt.Sprintf("%q", names)
}
