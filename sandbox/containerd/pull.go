package containerd

import (
	"context"
	"fmt"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/remotes"
	"github.com/containerd/containerd/v2/core/remotes/docker"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// WithPullPolicy sets when images are pulled from their registry (default
// sandbox.PullNever: only the namespace and the image source are used).
func WithPullPolicy(p sandbox.PullPolicy) Option {
	return func(c *config) error {
		if _, err := sandbox.ParsePullPolicy(string(p)); err != nil {
			return err
		}
		c.pull = p
		return nil
	}
}

// resolver finds registries as Docker does, with the credentials of the
// user's Docker config, over plain HTTP for loopback registries only.
func resolver() remotes.Resolver {
	return docker.NewResolver(docker.ResolverOptions{Hosts: docker.ConfigureDefaultRegistries(
		docker.WithPlainHTTP(docker.MatchLocalhost),
		docker.WithAuthorizer(docker.NewDockerAuthorizer(docker.WithAuthCreds(sandbox.RegistryCredentials))),
	)})
}

// pull fetches name (ref normalised) into the namespace; image unpacks it.
// A failure wraps sandbox.ErrPullFailed with the registry's reason.
func (r *Runtime) pullImage(ctx context.Context, ref, name string) (client.Image, error) {
	fmt.Fprintf(r.progress, "pulling image %s into containerd namespace %s\n", ref, r.namespace)
	img, err := r.cli.Pull(ctx, name, client.WithResolver(resolver()))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", sandbox.ErrPullFailed, ref, err)
	}
	fmt.Fprintf(r.progress, "pulled image %s (%s)\n", ref, img.Target().Digest)
	return img, nil
}
