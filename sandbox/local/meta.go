package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// idPrefix starts every local sandbox id.
const idPrefix = "local-"

// metaFile is the metadata file in a sandbox directory, beside root/ so that
// file actions (confined to root/) cannot touch it.
const metaFile = "rbx-sandbox.json"

// meta is what Open and List need to know about a sandbox another Runtime
// (or an earlier process) created.
type meta struct {
	ID          string            `json:"id"`
	Image       string            `json:"image,omitempty"`
	Workdir     string            `json:"workdir"`
	Mode        sandbox.Mode      `json:"mode"`
	Env         map[string]string `json:"env,omitempty"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations,omitempty"`
	StepTimeout time.Duration     `json:"step_timeout"`
	OutputCap   int               `json:"output_cap"`
	// FileSize and NoFile are the ulimits of the sandbox's shells; 0 (a
	// sandbox made by an older rbx) leaves them as they are.
	FileSize int64     `json:"file_size,omitempty"`
	NoFile   int64     `json:"nofile,omitempty"`
	Created  time.Time `json:"created"`
}

func metaFromSpec(id, owner string, spec sandbox.Spec) meta {
	labels := sandbox.ManagedLabels(spec.Labels)
	labels[sandbox.LabelOwner] = owner
	return meta{
		ID: id, Image: spec.Image, Workdir: spec.Workdir, Mode: spec.Mode,
		Env: spec.Env, Labels: labels, Annotations: spec.Annotations,
		StepTimeout: spec.StepTimeout, OutputCap: spec.OutputCap, Created: time.Now().UTC(),
		FileSize: spec.Limits.FileSizeBytes, NoFile: spec.Limits.NoFile,
	}
}

func writeMeta(dir string, m meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode metadata: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, metaFile), b, 0o600); err != nil {
		return fmt.Errorf("write metadata: %w", err)
	}
	return nil
}

func readMeta(dir string) (meta, error) {
	var m meta
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if errors.Is(err, fs.ErrNotExist) {
		return m, fmt.Errorf("read metadata: %w", sandbox.ErrNotFound)
	}
	if err != nil {
		return m, fmt.Errorf("read metadata: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("decode metadata %s: %w", filepath.Join(dir, metaFile), err)
	}
	return m, nil
}

// dirOf returns the sandbox directory of id, refusing ids that are not ours
// or that would name something outside the base directory.
func (r *Runtime) dirOf(id string) (string, error) {
	name, ok := strings.CutPrefix(id, idPrefix)
	if !ok || name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return "", fmt.Errorf("sandbox %q: %w", id, sandbox.ErrNotFound)
	}
	return filepath.Join(r.cfg.baseDir, name), nil
}

// labelsMatch reports whether labels include every pair of selector.
func labelsMatch(labels, selector map[string]string) bool {
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
