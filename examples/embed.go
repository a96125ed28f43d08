// Package examples bundles the example tasks and their reference
// trajectories (see README.md in this directory). Tests, the README and
// `rbx demo` use them; FS carries them inside the binary.
package examples

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// FS holds each example under its name: NAME/task.yaml, NAME/trajectory.json,
// NAME/workspace/ (the agent's starting files) and NAME/tests/ (the
// verifier). Go sources beside them (the OTP service) are not included.
//
//go:embed deploy-otp/task.yaml deploy-otp/trajectory.json all:deploy-otp/workspace all:deploy-otp/tests
//go:embed run-sh-path/task.yaml run-sh-path/trajectory.json all:run-sh-path/workspace all:run-sh-path/tests
//go:embed fix-tests/task.yaml fix-tests/trajectory.json all:fix-tests/workspace all:fix-tests/tests
var FS embed.FS

// Names lists the bundled examples, simplest first.
func Names() []string { return []string{"deploy-otp", "run-sh-path", "fix-tests"} }

// Extract writes every bundled example under dir (dir/NAME/task.yaml, ...),
// creating dir if needed. embed.FS keeps no permission bits, so shell
// scripts (*.sh) are written executable: the tasks run ./deploy.sh and
// scripts/check.sh directly.
func Extract(dir string) error {
	err := fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dest := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dest, 0o755)
		}
		data, err := FS.ReadFile(p)
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if strings.HasSuffix(path.Base(p), ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(dest, data, mode); err != nil {
			return err
		}
		// WriteFile's mode is filtered by the umask and ignored for existing files.
		return os.Chmod(dest, mode)
	})
	if err != nil {
		return fmt.Errorf("extract examples to %s: %w", dir, err)
	}
	return nil
}
