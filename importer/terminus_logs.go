package importer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

// episodeDir names the folders terminal-bench's Terminus agents log one
// turn in: episode-N/prompt.txt (what the model was sent: the
// instruction and terminal first, then the terminal after the previous
// turn) and episode-N/response.json (its reply).
var episodeDir = regexp.MustCompile(`^episode-(\d+)$`)

// IsTerminusLogs reports whether dir holds Terminus' episode folders.
func IsTerminusLogs(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "episode-0", "prompt.txt"))
	return err == nil
}

// TerminusLogsChat reads Terminus' episode folders in dir as the chat
// they record — each prompt a user message, each response an assistant
// one, in episode order — for the openai importer (which reads a turn's
// keystrokes and gives the next prompt, the terminal after them, to its
// last command). An episode without a response ends the run (the agent
// stopped there); a missing prompt is an error naming it.
func TerminusLogsChat(dir string) ([]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("terminus logs: %w", err)
	}
	var episodes []int
	for _, e := range entries {
		if m := episodeDir.FindStringSubmatch(e.Name()); m != nil && e.IsDir() {
			n, _ := strconv.Atoi(m[1])
			episodes = append(episodes, n)
		}
	}
	sort.Ints(episodes)
	var msgs []map[string]string
	for i, n := range episodes {
		if n != i {
			return nil, fmt.Errorf("terminus logs %s: episode-%d missing (episodes must be 0, 1, 2…)", dir, i)
		}
		ep := filepath.Join(dir, fmt.Sprintf("episode-%d", n))
		prompt, err := os.ReadFile(filepath.Join(ep, "prompt.txt"))
		if err != nil {
			return nil, fmt.Errorf("terminus logs: %w", err)
		}
		msgs = append(msgs, map[string]string{"role": "user", "content": string(prompt)})
		resp, err := os.ReadFile(filepath.Join(ep, "response.json"))
		if os.IsNotExist(err) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("terminus logs: %w", err)
		}
		msgs = append(msgs, map[string]string{"role": "assistant", "content": string(resp)})
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("terminus logs %s: no episode-N folder", dir)
	}
	return json.Marshal(msgs)
}
