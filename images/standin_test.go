package images

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPytestJSONReportPlugin(t *testing.T) {
	b, err := PytestJSONReportPlugin()
	require.NoError(t, err)
	assert.Contains(t, string(b), "def pytest_addoption(parser)")
	assert.Contains(t, string(b), "--json-report-file")
}
