package prefilter

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/corpus"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// loader loads trajectory files and their tasks, each task file once.
type loader struct {
	tasks     *corpus.Tasks
	taskPaths map[string]bool // every task file a trajectory resolved to
}

func newLoader() *loader {
	return &loader{tasks: corpus.NewTasks(), taskPaths: map[string]bool{}}
}

// file returns the items of one trajectory file: one per trajectory, and
// one per document or JSONL line that failed to parse.
func (l *loader) file(path string) []*Item {
	data, err := os.ReadFile(path)
	if err != nil {
		return []*Item{{Key: Key{File: path}, Err: fmt.Errorf("read trajectory file: %w", err)}}
	}
	var trajs []*trajectory.Trajectory
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		trajs, err = trajectory.Parse(path, data, false)
	case ".jsonl":
		trajs, err = trajectory.Parse(path, data, true)
	default:
		err = &task.ParseError{File: path, Msg: "expected a trajectory file ending in .json or .jsonl"}
	}
	var items []*Item
	for _, tr := range trajs {
		items = append(items, l.item(tr))
	}
	items = append(items, badLines(path, data, err)...)
	slices.SortStableFunc(items, func(a, b *Item) int { return a.Key.Line - b.Key.Line })
	return items
}

// badLines turns a parse error into items: one per JSONL line, or one for
// the whole document.
func badLines(path string, data []byte, err error) []*Item {
	if err == nil {
		return nil
	}
	byLine := map[int][]error{}
	var lines []int
	for _, e := range errFlatten(err) {
		n := lineOf(e)
		if !strings.EqualFold(filepath.Ext(path), ".jsonl") {
			n = 0
		}
		if _, ok := byLine[n]; !ok {
			lines = append(lines, n)
		}
		byLine[n] = append(byLine[n], e)
	}
	split := strings.Split(string(data), "\n")
	items := make([]*Item, 0, len(lines))
	for _, n := range lines {
		content := data
		if n > 0 && n <= len(split) {
			content = []byte(split[n-1])
		}
		items = append(items, &Item{Key: Key{File: path, Line: n, ID: peekID(content), Hash: hashOf(content)},
			Err: errors.Join(byLine[n]...)})
	}
	return items
}

// peekID is the "id" of a document that failed validation, when it has one.
func peekID(data []byte) string {
	var doc struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return ""
	}
	if s, ok := doc.ID.(string); ok {
		return s
	}
	return ""
}

// item resolves and loads tr's task.
func (l *loader) item(tr *trajectory.Trajectory) *Item {
	enc, _ := json.Marshal(tr)
	it := &Item{Key: Key{File: tr.Path, Line: tr.Line, ID: tr.ID}, Traj: tr}
	taskPath, err := tr.ResolveTaskPath()
	if err != nil {
		it.Key.Hash, it.Err = hashOf(enc), err
		return it
	}
	taskPath = filepath.Clean(taskPath)
	l.taskPaths[taskPath] = true
	tk, data, err := l.tasks.Load(taskPath)
	it.Key.Hash = hashOf(enc, data)
	switch {
	case err != nil:
		it.Err = fmt.Errorf("task %s: %w", taskPath, err)
	default:
		it.Err = tr.CheckServices(tk)
		it.Task, it.taskData = tk, data
	}
	return it
}
