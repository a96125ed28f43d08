package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/distribution/reference"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/registry"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// WithPullPolicy sets when Create pulls the image from its registry
// (default sandbox.PullNever: only local images are used).
func WithPullPolicy(p sandbox.PullPolicy) Option {
	return func(c *config) error {
		if _, err := sandbox.ParsePullPolicy(string(p)); err != nil {
			return err
		}
		c.pull = p
		return nil
	}
}

// pullFor pulls ref as the pull policy says: never, when it is not local,
// or always. A failure wraps sandbox.ErrPullFailed with the registry's
// reason; status lines go to the writer of WithProgress.
func (r *Runtime) pullFor(ctx context.Context, ref string) error {
	switch r.pull.Effective(ref) {
	case sandbox.PullMissing:
		if present, err := r.ImagePresent(ctx, ref); err != nil || present {
			return err
		}
	case sandbox.PullAlways:
	default:
		return nil
	}
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return fmt.Errorf("%w: image %q: %v", sandbox.ErrInvalidSpec, ref, err)
	}
	host := reference.Domain(named)
	user, secret, err := sandbox.RegistryCredentials(host)
	if err != nil {
		return err
	}
	ac := registry.AuthConfig{Username: user, Password: secret, ServerAddress: host}
	if user == "" && secret != "" {
		ac = registry.AuthConfig{IdentityToken: secret, ServerAddress: host}
	}
	auth, err := registry.EncodeAuthConfig(ac)
	if err != nil {
		return err
	}
	fmt.Fprintf(r.progress, "pulling image %s\n", ref)
	rc, err := r.cli.ImagePull(ctx, reference.TagNameOnly(named).String(), image.PullOptions{RegistryAuth: auth})
	if err != nil {
		return fmt.Errorf("%w: %s: %w", sandbox.ErrPullFailed, ref, engineErr(err))
	}
	defer rc.Close()
	if err := pullMessages(rc, r.progress); err != nil {
		return fmt.Errorf("%w: %s: %w", sandbox.ErrPullFailed, ref, err)
	}
	return nil
}

// pullMessages reads the engine's pull stream to its end, writing the
// status lines that are not per-layer progress, and returns the error the
// stream reports (the registry's reason), if any.
func pullMessages(rc io.Reader, w io.Writer) error {
	dec := json.NewDecoder(rc)
	for {
		var m struct {
			Status string `json:"status"`
			ID     string `json:"id"`
			Error  string `json:"error"`
		}
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("read pull stream: %w", err)
		}
		if m.Error != "" {
			return errors.New(m.Error)
		}
		if m.ID == "" || m.Status == "Pull complete" {
			fmt.Fprintf(w, "  %s %s\n", m.ID, m.Status)
		}
	}
}
