package docs

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLinks: every relative link in README.md and docs/*.md resolves to a
// file or directory of the repository and, with an #anchor into a markdown
// file, to one of its headings. Links never leave the repository.
func TestLinks(t *testing.T) {
	files, err := filepath.Glob("*.md")
	require.NoError(t, err)
	require.NotEmpty(t, files, "no docs/*.md found")
	docs := []string{"README.md"}
	for _, f := range files {
		docs = append(docs, path.Join("docs", f))
	}
	for _, doc := range docs {
		t.Run(doc, func(t *testing.T) {
			broken, err := brokenLinks("..", doc)
			require.NoError(t, err)
			assert.Empty(t, broken)
		})
	}
}

// TestBrokenLinksReported: the checker finds each kind of bad link, so
// TestLinks can fail.
func TestBrokenLinksReported(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(text), 0o644))
	}
	write("README.md", "# Title\n\n## `rbx gc`: removal\n")
	write("docs/a.md", strings.Join([]string{
		"# A", "",
		"[ok](../README.md#rbx-gc-removal) [self](#a) [web](https://example.com) [dir](.)",
		"[missing](b.md) [anchor](../README.md#nope) [outside](../../x.md) [self-bad](#zz)",
		"```", "[in code](nowhere.md)", "```", "`[inline](nowhere.md)`",
	}, "\n"))
	broken, err := brokenLinks(root, "docs/a.md")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"docs/a.md:4: b.md: no such file",
		"docs/a.md:4: ../README.md#nope: no heading with anchor #nope",
		"docs/a.md:4: ../../x.md: leaves the repository",
		"docs/a.md:4: #zz: no heading with anchor #zz",
	}, broken)
}

func TestSlug(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"Quick start", "quick-start"},
		{"`rbx serve`: the reset backend for RL trainers", "rbx-serve-the-reset-backend-for-rl-trainers"},
		{"Replay, verify, images, demo", "replay-verify-images-demo"},
		{"Lifecycle: warm pools, reset, gc and faults", "lifecycle-warm-pools-reset-gc-and-faults"},
		{"terminal-bench and Harbor task folders", "terminal-bench-and-harbor-task-folders"},
		{"#### `write_file`", "write_file"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, slug(strings.TrimLeft(tt.heading, "# ")))
		})
	}
}

var (
	linkRE   = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeRE   = regexp.MustCompile("`[^`]*`")
	schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// brokenLinks lists the bad relative links of doc (a slash path under
// root) as "doc:line: target: why".
func brokenLinks(root, doc string) ([]string, error) {
	ls, err := links(filepath.Join(root, filepath.FromSlash(doc)))
	if err != nil {
		return nil, err
	}
	var broken []string
	for _, l := range ls {
		if why := checkLink(root, doc, l.target); why != "" {
			broken = append(broken, fmt.Sprintf("%s:%d: %s: %s", doc, l.line, l.target, why))
		}
	}
	return broken, nil
}

// checkLink says what is wrong with target, a link in doc, or "".
func checkLink(root, doc, target string) string {
	if schemeRE.MatchString(target) {
		return "" // https:, mailto: — not checked offline
	}
	file, anchor, _ := strings.Cut(target, "#")
	rel := doc
	if file != "" {
		rel = path.Join(path.Dir(doc), file)
	}
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(file) {
		return "leaves the repository"
	}
	full := filepath.Join(root, filepath.FromSlash(rel))
	if _, err := os.Stat(full); err != nil {
		return "no such file"
	}
	if anchor == "" || !strings.HasSuffix(rel, ".md") {
		return ""
	}
	anchors, err := headings(full)
	if err != nil {
		return err.Error()
	}
	if !anchors[anchor] {
		return "no heading with anchor #" + anchor
	}
	return ""
}

type link struct {
	line   int
	target string
}

// links returns the inline links of a markdown file outside code blocks
// and code spans.
func links(file string) ([]link, error) {
	var out []link
	err := eachProseLine(file, func(n int, line string) {
		line = codeRE.ReplaceAllString(line, "code")
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, link{line: n, target: m[1]})
		}
	})
	return out, err
}

// headings returns the anchors of a markdown file's ATX headings, with
// GitHub's "-1", "-2" suffixes for repeated ones.
func headings(file string) (map[string]bool, error) {
	seen := map[string]int{}
	anchors := map[string]bool{}
	err := eachProseLine(file, func(_ int, line string) {
		if !strings.HasPrefix(line, "#") {
			return
		}
		text := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(text, " ") {
			return
		}
		s := slug(strings.TrimSpace(text))
		if n := seen[s]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	})
	return anchors, err
}

// slug is GitHub's heading anchor: lower case, punctuation dropped, spaces
// turned into hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// eachProseLine calls fn with every line (numbered from 1) outside fenced
// code blocks.
func eachProseLine(file string, fn func(n int, line string)) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	fenced := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			fn(n, line)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	return nil
}
