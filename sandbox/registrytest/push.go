package registrytest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/registry"
	"github.com/docker/docker/client"
)

// Push tags the local Docker image src as dst, pushes it to its registry
// and removes the tag again, so that dst exists only in the registry.
func Push(tb testing.TB, cli *client.Client, src, dst string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := cli.ImageTag(ctx, src, dst); err != nil {
		tb.Fatalf("tag %s as %s: %v", src, dst, err)
	}
	defer RemoveDockerImage(tb, cli, dst)
	auth, _ := registry.EncodeAuthConfig(registry.AuthConfig{})
	rc, err := cli.ImagePush(ctx, dst, image.PushOptions{RegistryAuth: auth})
	if err != nil {
		tb.Fatalf("push %s: %v", dst, err)
	}
	defer rc.Close()
	dec := json.NewDecoder(rc)
	for {
		var m struct{ Error string }
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			tb.Fatalf("push %s: %v", dst, err)
		}
		if m.Error != "" {
			tb.Fatalf("push %s: %s", dst, m.Error)
		}
	}
}

// RemoveDockerImage removes the tag ref from Docker (not the image it
// names, which other tags keep); a missing tag is fine.
func RemoveDockerImage(tb testing.TB, cli *client.Client, ref string) {
	tb.Helper()
	_, err := cli.ImageRemove(context.Background(), ref, image.RemoveOptions{PruneChildren: false})
	if err != nil && !client.IsErrNotFound(err) {
		tb.Errorf("remove %s: %v", ref, err)
	}
}
