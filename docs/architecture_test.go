package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArchitectureListsEveryPackage: the package table of architecture.md
// names every package of the module (a directory with non-test Go files,
// testdata aside) and nothing that is not one, so the map a newcomer reads
// first cannot drift from the code again.
func TestArchitectureListsEveryPackage(t *testing.T) {
	pkgs, err := modulePackages("..")
	require.NoError(t, err)
	require.NotEmpty(t, pkgs)
	doc, err := os.ReadFile("architecture.md")
	require.NoError(t, err)
	listed := tablePackages(string(doc))
	require.NotEmpty(t, listed, "architecture.md: no package table under ## Packages")
	for p := range pkgs {
		assert.True(t, listed[p], "architecture.md: package %s is missing from the table", p)
	}
	for p := range listed {
		assert.True(t, pkgs[p], "architecture.md lists %s, which is not a package of the module", p)
	}
}

// modulePackages is the set of package directories under root, relative,
// slash-separated; the root package itself is left out.
func modulePackages(root string) (map[string]bool, error) {
	pkgs := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		if rel != "." {
			pkgs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	return pkgs, err
}

// tableCell is a backquoted package path in a table row's first cell.
var tableCell = regexp.MustCompile("`([a-z0-9_./-]+)`")

// tablePackages is the set of packages the first column of the table under
// "## Packages" names.
func tablePackages(doc string) map[string]bool {
	out := map[string]bool{}
	_, section, ok := strings.Cut(doc, "\n## Packages\n")
	if !ok {
		return out
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		for _, m := range tableCell.FindAllStringSubmatch(cells[1], -1) {
			out[m[1]] = true
		}
	}
	return out
}
