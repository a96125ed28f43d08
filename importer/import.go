// Package importer turns trajectories written by other agents and tools
// (OpenAI chat messages, ATIF, SWE-agent, mini-swe-agent, OpenHands) into
// native rbx trajectories, and exports native trajectories as ATIF or
// OpenAI messages. Tool calls become actions through a documented,
// extensible table (ToolMap); calls it does not know are kept as noop steps
// and reported, never dropped.
package importer

import (
	"fmt"
	"slices"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// Format names a trajectory format.
type Format string

// Formats rbx imports.
const (
	FormatAuto         Format = "auto"
	FormatNative       Format = "native"
	FormatOpenAI       Format = "openai"
	FormatATIF         Format = "atif"
	FormatSWEAgent     Format = "swe-agent"
	FormatMiniSWEAgent Format = "mini-swe-agent"
	FormatOpenHands    Format = "openhands"
)

// Formats lists the trajectory formats Import accepts, auto first.
var Formats = []Format{FormatAuto, FormatNative, FormatOpenAI, FormatATIF, FormatSWEAgent, FormatMiniSWEAgent, FormatOpenHands}

// Valid reports whether f is a known format.
func (f Format) Valid() bool { return slices.Contains(Formats, f) }

// Result is what an import produced.
type Result struct {
	Trajectories []*trajectory.Trajectory
	Report       Report
}

// Import reads data, named name (used for ids and errors), as format f
// (FormatAuto detects it).
func Import(f Format, name string, data []byte, opts ...Option) (*Result, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if f == FormatAuto {
		if f, err = Detect(data); err != nil {
			return nil, fmt.Errorf("import %s: %w", name, err)
		}
	}
	id := c.id
	if id == "" {
		id = IDFromName(name)
	}
	res := &Result{Report: Report{Format: f}}
	var ts []*trajectory.Trajectory
	switch f {
	case FormatNative:
		ts, err = importNative(name, data, c)
	case FormatOpenAI:
		ts, err = one(importOpenAI(data, id, c, &res.Report))
	case FormatATIF:
		ts, err = one(importATIF(data, id, c, &res.Report))
	case FormatSWEAgent:
		ts, err = one(importSWEAgent(data, id, c, &res.Report))
	case FormatMiniSWEAgent:
		ts, err = one(importMiniSWE(data, id, c, &res.Report))
	case FormatOpenHands:
		ts, err = one(importOpenHands(data, id, c, &res.Report))
	default:
		return nil, fmt.Errorf("import %s: format %q: expected one of %v", name, f, Formats)
	}
	if err != nil {
		return nil, fmt.Errorf("import %s as %s: %w", name, f, err)
	}
	for _, t := range ts {
		res.Report.count(t)
	}
	res.Trajectories = ts
	return res, nil
}

func one(t *trajectory.Trajectory, err error) ([]*trajectory.Trajectory, error) {
	if err != nil {
		return nil, err
	}
	return []*trajectory.Trajectory{t}, nil
}

func importNative(name string, data []byte, c config) ([]*trajectory.Trajectory, error) {
	jsonl := len(name) > 6 && name[len(name)-6:] == ".jsonl"
	ts, err := trajectory.Parse(name, data, jsonl)
	if err != nil {
		return nil, err
	}
	if c.id != "" && len(ts) == 1 {
		ts[0].ID = c.id
	}
	return ts, nil
}
