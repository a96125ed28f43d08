package tbench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/images"
)

// The verifier stages the deveval recipe's pytest-json-report stand-in, the
// one copy rbx has, under the name rbx_requirements.py installs.
func TestStandinFilesJSONReportIsTheRecipeCopy(t *testing.T) {
	want, err := images.PytestJSONReportPlugin()
	require.NoError(t, err)
	files := standinFiles()
	assert.Equal(t, string(want), files["bin/rbx_pytest_jsonreport.py"])
	assert.Contains(t, files, "bin/rbx_requirements.py")
}
