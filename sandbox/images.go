package sandbox

import "context"

// ImageStore is implemented by runtimes that keep images on the host (the
// docker backend; the local backend has no images). Callers find it with a
// type assertion on their Runtime, so that no command names a backend type.
type ImageStore interface {
	// ImagePresent reports whether ref exists locally; nothing is pulled.
	// An engine that does not answer is an error wrapping ErrUnavailable.
	ImagePresent(ctx context.Context, ref string) (bool, error)
	// EnsureImage builds the rbx/* recipe image ref (see package images)
	// when it is missing or older than its recipe, and reports whether it
	// built.
	EnsureImage(ctx context.Context, ref string) (built bool, err error)
	// BuildImage builds the Dockerfile in contextDir, whose FROM is already
	// a local image, as tag unless tag exists, and reports whether it built.
	BuildImage(ctx context.Context, contextDir, tag string) (built bool, err error)
}
