package images

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/docker/docker/api/types/image"
)

// build produces r's rootfs tarball and imports it, returning the image ID.
func (b *Builder) build(ctx context.Context, r Recipe) (string, error) {
	src, err := r.source(ctx, b, r)
	if err != nil {
		return "", err
	}
	// Closing also unblocks a producer goroutine writing into a pipe when
	// the engine stops reading early.
	defer src.Close()
	return b.importTar(ctx, r, src)
}

// importTar streams a rootfs tarball to the engine with r's changes and
// labels, and waits for the engine's verdict.
func (b *Builder) importTar(ctx context.Context, r Recipe, src io.Reader) (string, error) {
	changes := append(slices.Clone(r.Changes), fmt.Sprintf("LABEL %s=%q %s=%q",
		LabelRecipe, r.Name, LabelRecipeVersion, strconv.Itoa(r.Version)))
	resp, err := b.cli.ImageImport(ctx, image.ImportSource{Source: src, SourceName: "-"}, r.Name,
		image.ImportOptions{Changes: changes, Message: "rbx recipe " + r.Name + " v" + strconv.Itoa(r.Version)})
	if err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	defer resp.Close()
	id, err := readImportResponse(resp)
	if err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	return id, nil
}

// importMessage is one line of the engine's JSON progress stream.
type importMessage struct {
	Status      string `json:"status"`
	Error       string `json:"error"`
	ErrorDetail *struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// readImportResponse drains the stream; the engine reports failures inside
// it with HTTP 200, so an unread stream would hide them.
func readImportResponse(r io.Reader) (string, error) {
	dec := json.NewDecoder(r)
	var id string
	for {
		var m importMessage
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("read engine response: %w", err)
		}
		if m.ErrorDetail != nil && m.ErrorDetail.Message != "" {
			return "", fmt.Errorf("%w: %s", ErrImport, m.ErrorDetail.Message)
		}
		if m.Error != "" {
			return "", fmt.Errorf("%w: %s", ErrImport, m.Error)
		}
		if m.Status != "" {
			id = m.Status
		}
	}
	if id == "" {
		return "", fmt.Errorf("%w: engine returned no image id", ErrImport)
	}
	return id, nil
}
