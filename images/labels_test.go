package images

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithLabels(t *testing.T) {
	labels := map[string]string{"rbx.managed": "true", "rbx.base-id": `sha256:ab"c`}
	tests := []struct {
		name, in, want string
		labels         map[string]string
	}{
		{name: "no labels", in: "FROM x\n", want: "FROM x\n"},
		{name: "one instruction, keys sorted, quoted", in: "FROM x\nRUN true\n", labels: labels,
			want: "FROM x\nRUN true\n# rbx: the build's labels, one instruction (one layer commit)\nLABEL \"rbx.base-id\"=\"sha256:ab\\\"c\" \"rbx.managed\"=\"true\"\n"},
		{name: "no final newline", in: "FROM x", labels: map[string]string{"a": "b"},
			want: "FROM x\n# rbx: the build's labels, one instruction (one layer commit)\nLABEL \"a\"=\"b\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, string(withLabels([]byte(tt.in), tt.labels)))
		})
	}
}

// buildLabels is what the build context's Dockerfile labels (its LABEL
// instructions of quoted pairs, as withLabels writes them): what the fake
// engines record as the built image's labels.
func buildLabels(context []byte) (map[string]string, error) {
	tr := tar.NewReader(bytes.NewReader(context))
	for {
		hdr, err := tr.Next()
		if err != nil {
			return nil, fmt.Errorf("the context's Dockerfile: %w", err)
		}
		if hdr.Name != "Dockerfile" {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		labels := map[string]string{}
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(line, "LABEL ") {
				continue
			}
			for _, m := range labelPair.FindAllStringSubmatch(line, -1) {
				k, kerr := strconv.Unquote(m[1])
				v, verr := strconv.Unquote(m[2])
				if kerr != nil || verr != nil {
					return nil, fmt.Errorf("label %s=%s: not quoted as Go strings", m[1], m[2])
				}
				labels[k] = v
			}
		}
		return labels, nil
	}
}

var labelPair = regexp.MustCompile(`("(?:[^"\\]|\\.)*")=("(?:[^"\\]|\\.)*")`)
