package docker

// AssumeStorageOpt makes r believe its storage driver takes a size, as on
// overlay2 over xfs, so that tests reach the engine's refusal and the
// fallback on drivers that do not.
func AssumeStorageOpt(r *Runtime) {
	r.disk.mu.Lock()
	defer r.disk.mu.Unlock()
	r.disk.probed, r.disk.storage, r.disk.why = true, true, "assumed by a test"
}
