package images

import (
	"archive/tar"
	"bytes"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// withLabels returns dockerfile with one LABEL instruction for labels
// appended (applying to its last stage). Why not the build's Labels
// option: the engine's classic builder turns it into one LABEL
// instruction per label, and every instruction commits a layer — on a
// fuse-overlayfs engine a diff of the whole image tree against its
// parent's, about 45 s each over rbx/deveval on this 2-core machine.
// One instruction is one commit.
func withLabels(dockerfile []byte, labels map[string]string) []byte {
	if len(labels) == 0 {
		return dockerfile
	}
	var b bytes.Buffer
	b.Write(dockerfile)
	if len(dockerfile) > 0 && dockerfile[len(dockerfile)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString("# rbx: the build's labels, one instruction (one layer commit)\n")
	b.WriteString(labelInstruction(labels))
	b.WriteByte('\n')
	return b.Bytes()
}

// labelInstruction is `LABEL "k"="v" ...`, keys sorted, both quoted.
func labelInstruction(labels map[string]string) string {
	parts := []string{"LABEL"}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, strconv.Quote(k)+"="+strconv.Quote(labels[k]))
	}
	return strings.Join(parts, " ")
}

// writeTarEntry writes hdr, sized to data, and data.
func writeTarEntry(tw *tar.Writer, hdr *tar.Header, data []byte) error {
	hdr.Size = int64(len(data))
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}
