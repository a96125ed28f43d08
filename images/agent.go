package images

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"

	"github.com/docker/docker/api/types/image"

	"github.com/rbx-sandbox/rbx/recycle"
)

// BuildAgent imports the agent image of data (recycle.AgentImageRef) into the engine unless an
// image of that name is there, and returns its name.
func BuildAgent(ctx context.Context, cli ImageAPI, data []byte) (string, error) {
	ref := recycle.AgentImageRef(data)
	if _, err := cli.ImageInspect(ctx, ref); err == nil {
		return ref, nil
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := writeTarEntry(tw, &tar.Header{Typeflag: tar.TypeReg, Name: "rbx-agent", Mode: 0o555, Size: int64(len(data))}, data); err != nil {
		return "", err
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	resp, err := cli.ImageImport(ctx, image.ImportSource{Source: &buf, SourceName: "-"}, ref,
		image.ImportOptions{Changes: []string{`ENTRYPOINT ["/rbx-agent"]`, fmt.Sprintf("LABEL %s=%q", LabelRecipe, recycle.AgentImageRepo)},
			Message: "rbx agent"})
	if err != nil {
		return "", fmt.Errorf("import agent image %s: %w", ref, err)
	}
	defer resp.Close()
	if _, err := readImportResponse(resp); err != nil {
		return "", fmt.Errorf("import agent image %s: %w", ref, err)
	}
	return ref, nil
}
