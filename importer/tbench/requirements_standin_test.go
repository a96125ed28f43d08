package tbench

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRequirementsStandinImportNames: a distribution that Debian packages
// without pip metadata (opencv-python → python3-opencv) counts as installed
// when its module imports, and as missing when it does not.
func TestRequirementsStandinImportNames(t *testing.T) {
	py, err := exec.LookPath("python3")
	require.NoError(t, err, "python3 runs the offline pip stand-in")
	script := filepath.Join("standins", "rbx_requirements.py")
	cases := []struct {
		name     string
		module   bool // a cv2 module on the path
		wantExit int
		want     string
	}{
		{name: "module present", module: true, wantExit: 0, want: "opencv-python: provided by the image's module cv2"},
		{name: "module absent", module: false, wantExit: 1, want: "not installed in the image (nothing can be downloaded at test time): opencv-python"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.module {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "cv2.py"), []byte("X = 1\n"), 0o644))
			}
			cmd := exec.Command(py, "-S", script, "opencv-python")
			cmd.Env = append(os.Environ(), "PYTHONPATH="+dir, "PYTHONNOUSERSITE=1")
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.wantExit, code, string(out))
			assert.Contains(t, string(out), tc.want)
		})
	}
}
