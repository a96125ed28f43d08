package sandbox

import "context"

// EngineVersioner is implemented by runtimes backed by an engine that
// reports its version (docker).
type EngineVersioner interface {
	// EngineVersion returns the engine's version and API version.
	EngineVersion(ctx context.Context) (version, apiVersion string, err error)
}
