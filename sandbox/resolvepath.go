package sandbox

import "path"

// ResolvePath makes p, a path inside a sandbox, absolute against workdir
// (empty means workdir) and clean: what a relative path in a Sandbox
// method means on every container backend.
func ResolvePath(workdir, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(workdir, p)
}
