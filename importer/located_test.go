package importer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestImportErrorsLocated: malformed input of every format names the
// file, line and column; nothing panics.
func TestImportErrorsLocated(t *testing.T) {
	tests := []struct {
		name   string
		format Format
		data   string
		want   string
	}{
		{"truncated, detected", FormatAuto, "{\n  \"schema_version\": \"ATIF-v1.4\",\n  \"steps\": [", "import t.json:3:13: invalid JSON: unexpected end of JSON input"},
		{"truncated ATIF", FormatATIF, "{\"steps\": [{\"source\": \"agent\",", "import t.json:1:31: invalid JSON: unexpected end"},
		{"bad token, OpenHands", FormatOpenHands, "[\n{\"id\": 1,\n \"action\": run}]", "import t.json:3:12: invalid JSON: invalid character 'r'"},
		{"wrong type, ATIF", FormatATIF, "{\"schema_version\": \"ATIF-v1.4\",\n \"steps\": {\"a\": 1}}", "import t.json:2:12 as atif:"},
		{"wrong type, SWE-agent", FormatSWEAgent, "{\"trajectory\": [\n {\"action\": 3}]}", "import t.json:2:"},
		{"empty", FormatAuto, "  ", "import t.json:1:3: invalid JSON: empty document"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Import(tc.format, "t.json", []byte(tc.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
