package images

import "errors"

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrUnknownRecipe: no recipe builds the requested image name.
	ErrUnknownRecipe = errors.New("unknown image recipe")
	// ErrNeedRoot: a host package must be installed (or debootstrap run) and
	// this process is not root.
	ErrNeedRoot = errors.New("must run as root")
	// ErrImport: the engine rejected the imported tarball.
	ErrImport = errors.New("image import rejected")
)
