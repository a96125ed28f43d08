package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrNoise is returned for a malformed noise specification.
var ErrNoise = errors.New("invalid noise")

// Noise gives the probability that the noisy policy corrupts each step.
type Noise struct {
	// Steps maps a step index to its corruption probability.
	Steps map[int]float64 `json:"steps,omitempty"`
	// Default applies to steps not in Steps.
	Default float64 `json:"default,omitempty"`
}

// P is the probability that step i is corrupted.
func (n Noise) P(i int) float64 {
	if p, ok := n.Steps[i]; ok {
		return p
	}
	return n.Default
}

// ParseNoise reads a noise specification: either inline, "j=p,..." with
// "*=p" for every other step (e.g. "4=0.9" or "*=0.05,9=0.5"), or the name
// of a file holding the same pairs (one or more per line, '#' comments) or
// a JSON object {"4": 0.9, "*": 0.05}.
func ParseNoise(spec string) (Noise, error) {
	if data, err := os.ReadFile(spec); err == nil {
		n, perr := parseNoiseText(string(data))
		if perr != nil {
			return Noise{}, fmt.Errorf("noise file %s: %w", spec, perr)
		}
		return n, nil
	}
	if !strings.Contains(spec, "=") {
		return Noise{}, fmt.Errorf("%w: %q: expected j=p,... (e.g. 4=0.9) or a file", ErrNoise, spec)
	}
	return parseNoiseText(spec)
}

func parseNoiseText(text string) (Noise, error) {
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") {
		var m map[string]float64
		if err := json.Unmarshal([]byte(t), &m); err != nil {
			return Noise{}, fmt.Errorf("%w: %v", ErrNoise, err)
		}
		var pairs []string
		for k, v := range m {
			pairs = append(pairs, k+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
		text = strings.Join(pairs, ",")
	}
	n := Noise{Steps: map[int]float64{}}
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			if err := n.add(f); err != nil {
				return Noise{}, err
			}
		}
	}
	return n, nil
}

func (n *Noise) add(pair string) error {
	key, val, ok := strings.Cut(pair, "=")
	p, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if !ok || err != nil || !(p >= 0 && p <= 1) {
		return fmt.Errorf("%w: %q: expected STEP=P with 0 ≤ P ≤ 1", ErrNoise, pair)
	}
	if key = strings.TrimSpace(key); key == "*" || key == "all" {
		n.Default = p
		return nil
	}
	j, err := strconv.Atoi(key)
	if err != nil || j < 0 {
		return fmt.Errorf("%w: %q: expected a step index ≥ 0 or * before '='", ErrNoise, pair)
	}
	n.Steps[j] = p
	return nil
}
