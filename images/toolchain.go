package images

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"

	"io/fs"
	"path"
	"strconv"

	"github.com/docker/docker/api/types/build"
)

// toolchainFS holds the build contexts of toolchain recipes: a Dockerfile
// FROM the recipe's base, with RUN apt-get lines (containers reach the
// Debian mirror while an image builds) and the files it copies.
//
//go:embed recipes
var toolchainFS embed.FS

// toolchainContext returns r's build context as a tar with fixed modes,
// owners and times, in name order: the same files give the same bytes.
func toolchainContext(r Recipe, labels map[string]string) ([]byte, error) {
	sub, err := fs.Sub(toolchainFS, path.Join("recipes", r.context))
	if err != nil {
		return nil, fmt.Errorf("recipe %s context: %w", r.Name, err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		hdr := &tar.Header{Name: p, Mode: 0o644, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if d.IsDir() {
			hdr.Name, hdr.Mode, hdr.Typeflag = p+"/", 0o755, tar.TypeDir
			return tw.WriteHeader(hdr)
		}
		data, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		if p == "Dockerfile" {
			data = withLabels(data, labels)
		}
		return writeTarEntry(tw, hdr, data)
	})
	if err == nil {
		err = tw.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("recipe %s context: %w", r.Name, err)
	}
	return buf.Bytes(), nil
}

// toolchainDigest names what a toolchain image is built from: its context
// and its base image's ID.
func (b *Builder) toolchainDigest(ctx context.Context, r Recipe) (string, error) {
	tarball, err := toolchainContext(r, nil)
	if err != nil {
		return "", err
	}
	base, err := b.cli.ImageInspect(ctx, r.Base)
	if err != nil {
		return "", fmt.Errorf("inspect base image %q: %w", r.Base, err)
	}
	h := sha256.New()
	h.Write(tarball)
	h.Write([]byte("\x00" + base.ID))
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// buildToolchain builds r's Dockerfile through the engine, labelled with
// the recipe, its version and digest, and returns the image ID.
func (b *Builder) buildToolchain(ctx context.Context, r Recipe, digest string) (string, error) {
	tarball, err := toolchainContext(r, map[string]string{LabelRecipe: r.Name, LabelRecipeVersion: strconv.Itoa(r.Version),
		LabelRecipeDigest: digest, "rbx.managed": "true"})
	if err != nil {
		return "", err
	}
	b.status("building %s from %s with Debian's packages (a few minutes the first time)", r.Name, r.Base)
	resp, err := b.cli.ImageBuild(ctx, bytes.NewReader(tarball), build.ImageBuildOptions{
		Tags: []string{r.Name}, Dockerfile: "Dockerfile", Remove: true, ForceRemove: true, PullParent: false,
	})
	if err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	defer resp.Body.Close()
	if err := readBuildStream(resp.Body, b.cfg.progress); err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	info, err := b.cli.ImageInspect(ctx, r.Name)
	if err != nil {
		return "", fmt.Errorf("inspect built image: %w", err)
	}
	return info.ID, nil
}
