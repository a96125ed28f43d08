package images

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
)

// TaskImageAPI is the part of the Engine API client task image builds use.
type TaskImageAPI interface {
	ImageInspect(ctx context.Context, ref string, opts ...client.ImageInspectOption) (image.InspectResponse, error)
	ImageBuild(ctx context.Context, buildContext io.Reader, options build.ImageBuildOptions) (build.ImageBuildResponse, error)
}

// TaskImagePrefix starts the tags of task images: rbx-task/<id>:<hash>.
const TaskImagePrefix = "rbx-task/"

// ContextTar writes dir as a build context tar: regular files and
// directories in name order, with fixed times and owners, so the same
// content always gives the same bytes (and the same tag).
func ContextTar(dir string, w io.Writer) error {
	return contextTar(dir, w, nil)
}

// contextTar is ContextTar with labels set by the top Dockerfile's last
// instruction (withLabels); nil leaves it as it is.
func contextTar(dir string, w io.Writer, labels map[string]string) error {
	tw := tar.NewWriter(w)
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && (d.IsDir() || d.Type().IsRegular()) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("build context %s: %w", dir, err)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if err := addTarEntry(tw, dir, p, labels); err != nil {
			return fmt.Errorf("build context %s: %w", dir, err)
		}
	}
	return tw.Close()
}

func addTarEntry(tw *tar.Writer, dir, p string, labels map[string]string) error {
	info, err := os.Stat(p)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return err
	}
	hdr := &tar.Header{Name: filepath.ToSlash(rel), Mode: int64(info.Mode().Perm()), Format: tar.FormatPAX}
	if info.IsDir() {
		hdr.Typeflag, hdr.Name = tar.TypeDir, hdr.Name+"/"
		return tw.WriteHeader(hdr)
	}
	hdr.Typeflag, hdr.Size = tar.TypeReg, info.Size()
	if hdr.Name == "Dockerfile" && labels != nil {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return writeTarEntry(tw, hdr, withLabels(data, labels))
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(tw, f)
	return err
}

// TaskTag is the tag of the image built from dir for task id:
// rbx-task/<id>:<first 12 hex digits of the context's SHA-256>.
func TaskTag(id, dir string) (string, error) {
	h := sha256.New()
	if err := ContextTar(dir, h); err != nil {
		return "", err
	}
	return TaskImagePrefix + id + ":" + hex.EncodeToString(h.Sum(nil))[:12], nil
}

// BaseIDLabel records the ID of the image a task image was built FROM. The
// tag hashes the build context only, so without it a task image would
// outlive a rebuilt base (a changed toolchain recipe) and keep the old one.
const BaseIDLabel = "rbx.base-id"

// BuildTask builds the Dockerfile in dir (its FROM already a local image)
// as tag through the Engine API, unless tag exists and was built from the
// base image present now. It reports whether it built; build output goes to
// progress.
func BuildTask(ctx context.Context, cli TaskImageAPI, dir, tag string, progress io.Writer) (bool, error) {
	baseID, err := fromImageID(ctx, cli, dir)
	if err != nil {
		return false, err
	}
	if img, err := cli.ImageInspect(ctx, tag); err == nil {
		if img.Config != nil && img.Config.Labels[BaseIDLabel] == baseID {
			return false, nil
		}
	} else if !cerrdefs.IsNotFound(err) {
		return false, fmt.Errorf("inspect image %s: %w", tag, err)
	}
	var buf bytes.Buffer
	labels := map[string]string{"rbx.managed": "true", "rbx.task-image": "true", BaseIDLabel: baseID}
	if err := contextTar(dir, &buf, labels); err != nil {
		return false, err
	}
	resp, err := cli.ImageBuild(ctx, &buf, build.ImageBuildOptions{
		Tags: []string{tag}, Dockerfile: "Dockerfile", Remove: true, ForceRemove: true, PullParent: false,
	})
	if err != nil {
		return false, fmt.Errorf("build image %s: %w", tag, err)
	}
	defer resp.Body.Close()
	if err := readBuildStream(resp.Body, progress); err != nil {
		return false, fmt.Errorf("build image %s: %w", tag, err)
	}
	return true, nil
}

// readBuildStream copies the build's messages to progress and returns the
// error the stream reports, if any.
func readBuildStream(r io.Reader, progress io.Writer) error {
	if progress == nil {
		progress = io.Discard
	}
	dec := json.NewDecoder(r)
	for {
		var m struct {
			Stream      string `json:"stream"`
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("read build output: %w", err)
		}
		if m.Stream != "" {
			fmt.Fprint(progress, m.Stream)
		}
		if m.Error != "" {
			return errors.New(strings.TrimSpace(m.Error))
		}
	}
}

// fromImageID returns the ID of the image the first FROM in dir/Dockerfile
// names ("" when it names none, e.g. scratch, or it is not present: the
// build then fails with the engine's own message).
func fromImageID(ctx context.Context, cli TaskImageAPI, dir string) (string, error) {
	path := filepath.Join(dir, "Dockerfile")
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %q: %w", path, err)
	}
	ref := firstFrom(string(data))
	if ref == "" || ref == "scratch" {
		return "", nil
	}
	img, err := cli.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("inspect base image %s: %w", ref, err)
	}
	return img.ID, nil
}

// firstFrom returns the image of a Dockerfile's first FROM, flags skipped.
func firstFrom(dockerfile string) string {
	for _, line := range strings.Split(dockerfile, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.EqualFold(f[0], "FROM") {
			continue
		}
		for _, w := range f[1:] {
			if !strings.HasPrefix(w, "--") {
				return w
			}
		}
	}
	return ""
}
