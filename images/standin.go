package images

import "fmt"

// jsonReportPlugin is where the pytest-json-report stand-in lives: the
// rbx/deveval recipe copies it into its image (the original DevEval image
// ships the plugin), and the terminal-bench verifier installs the same file
// when a test script asks pip for pytest-json-report on another image.
const jsonReportPlugin = "recipes/deveval/rbx_pytest_json_report.py"

// PytestJSONReportPlugin returns the source of rbx's pytest-json-report
// stand-in (a pytest plugin module), the one copy rbx has.
func PytestJSONReportPlugin() ([]byte, error) {
	b, err := toolchainFS.ReadFile(jsonReportPlugin)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", jsonReportPlugin, err)
	}
	return b, nil
}
