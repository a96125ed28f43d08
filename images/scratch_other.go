//go:build !linux

package images

import (
	"fmt"
	"os"
)

// removeScratch deletes a scratch directory; debootstrap only runs on Linux,
// so nothing can be mounted inside it here.
func removeScratch(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove scratch dir: %w", err)
	}
	return nil
}
