// Package tbench converts terminal-bench (v1) and Harbor task folders into
// native rbx tasks with a reference trajectory: the solution script split
// into one shell step per top-level command, the tests run offline as the
// verifier with the image's own pytest, and the Dockerfile rewritten to
// build FROM a local image.
package tbench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
)

// Layouts of task folders.
const (
	LayoutTerminalBench = "terminal-bench"
	LayoutHarbor        = "harbor"
)

// ErrNotTask marks a folder that is neither layout.
var ErrNotTask = errors.New("not a terminal-bench or Harbor task folder")

// Source is a task folder as read.
type Source struct {
	Dir         string
	Layout      string
	Instruction string
	// AgentTimeout and TestTimeout come from the task's metadata (0 if absent).
	AgentTimeout, TestTimeout time.Duration
	// Solution is the reference solution script; SolutionFile its name.
	Solution, SolutionFile string
	// Dockerfile is its text ("" when absent); ContextDir the build context.
	Dockerfile, DockerfileName, ContextDir string
	// TestScript is run-tests.sh (Harbor: tests/test.sh), "" when absent.
	TestScript, TestScriptName string
	// Warnings are what was read in a way that may not be what the author
	// meant (an old-format task.yaml with several descriptions).
	Warnings []string
}

// Read reads a task folder of either layout.
func Read(dir string) (*Source, error) {
	src := &Source{Dir: dir}
	switch {
	case exists(filepath.Join(dir, "task.yaml")):
		return src, src.readTerminalBench()
	case exists(filepath.Join(dir, "task.toml")):
		return src, src.readHarbor()
	}
	return nil, fmt.Errorf("%s: %w: expected task.yaml (terminal-bench) or task.toml (Harbor)", dir, ErrNotTask)
}

func (s *Source) readTerminalBench() error {
	s.Layout = LayoutTerminalBench
	data, err := os.ReadFile(filepath.Join(s.Dir, "task.yaml"))
	if err != nil {
		return err
	}
	var meta struct {
		Instruction  string        `yaml:"instruction"`
		Descriptions []description `yaml:"descriptions"`
		AgentTimeout float64       `yaml:"max_agent_timeout_sec"`
		TestTimeout  float64       `yaml:"max_test_timeout_sec"`
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(s.Dir, "task.yaml"), err)
	}
	s.Instruction = meta.Instruction
	if s.Instruction == "" {
		s.Instruction = s.fromDescriptions(meta.Descriptions)
	}
	s.AgentTimeout, s.TestTimeout = seconds(meta.AgentTimeout), seconds(meta.TestTimeout)
	s.SolutionFile = "solution.sh"
	if s.Solution, err = readText(s.Dir, s.SolutionFile); err != nil {
		return err
	}
	if exists(filepath.Join(s.Dir, "Dockerfile")) {
		s.DockerfileName, s.ContextDir = "Dockerfile", s.Dir
		if s.Dockerfile, err = readText(s.Dir, "Dockerfile"); err != nil {
			return err
		}
	}
	if exists(filepath.Join(s.Dir, "run-tests.sh")) {
		s.TestScriptName = "run-tests.sh"
		s.TestScript, err = readText(s.Dir, "run-tests.sh")
	}
	return err
}

func (s *Source) readHarbor() error {
	s.Layout = LayoutHarbor
	data, err := os.ReadFile(filepath.Join(s.Dir, "task.toml"))
	if err != nil {
		return err
	}
	meta, err := parseTOML(string(data))
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(s.Dir, "task.toml"), err)
	}
	s.AgentTimeout = seconds(meta.number("agent", "timeout_sec"))
	s.TestTimeout = seconds(meta.number("verifier", "timeout_sec"))
	if s.Instruction, err = readText(s.Dir, "instruction.md"); err != nil {
		return err
	}
	s.SolutionFile = filepath.Join("solution", "solve.sh")
	if s.Solution, err = readText(s.Dir, s.SolutionFile); err != nil {
		return err
	}
	if exists(filepath.Join(s.Dir, "environment", "Dockerfile")) {
		s.DockerfileName, s.ContextDir = filepath.Join("environment", "Dockerfile"), filepath.Join(s.Dir, "environment")
		if s.Dockerfile, err = readText(s.Dir, s.DockerfileName); err != nil {
			return err
		}
	}
	if exists(filepath.Join(s.Dir, "tests", "test.sh")) {
		s.TestScriptName = filepath.Join("tests", "test.sh")
		s.TestScript, err = readText(s.Dir, s.TestScriptName)
	}
	return err
}

func readText(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "", fmt.Errorf("read task file: %w", err)
	}
	return string(b), nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// tomlDoc is the subset of TOML Harbor's task.toml uses: [section] headers
// and key = number | string | bool lines.
type tomlDoc map[string]map[string]string

func parseTOML(s string) (tomlDoc, error) {
	doc := tomlDoc{"": {}}
	section := ""
	for i, raw := range strings.Split(s, "\n") {
		l := strings.TrimSpace(raw)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.HasPrefix(l, "[") {
			if !strings.HasSuffix(l, "]") || strings.HasPrefix(l, "[[") {
				return nil, fmt.Errorf("line %d: expected a [section] header", i+1)
			}
			section = strings.TrimSpace(l[1 : len(l)-1])
			if doc[section] == nil {
				doc[section] = map[string]string{}
			}
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: expected key = value", i+1)
		}
		doc[section][strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
	}
	return doc, nil
}

func (d tomlDoc) number(section, key string) float64 {
	f, _ := strconv.ParseFloat(d[section][key], 64)
	return f
}
