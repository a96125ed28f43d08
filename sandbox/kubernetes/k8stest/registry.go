package k8stest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RegistryHostsEnv names the hosts directory (containerd's config_path) of
// the test cluster's CRI containerd; scripts/k8s-cluster.sh env prints it.
// Unset, it is containerd/certs.d next to RBX_KUBECONFIG, where the script
// keeps it.
const RegistryHostsEnv = "RBX_K8S_REGISTRY_HOSTS"

// RegistryHostsDir returns the hosts directory of the test cluster's
// containerd; it skips tb when there is none (failing it when Required).
func RegistryHostsDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv(RegistryHostsEnv)
	if dir == "" {
		dir = filepath.Join(filepath.Dir(Kubeconfig(tb)), "containerd", "certs.d")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		msg := fmt.Sprintf("no containerd hosts directory at %s (set %s; scripts/k8s-cluster.sh env prints it)", dir, RegistryHostsEnv)
		if Required() {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	return dir
}

// TrustRegistry lets the test cluster's containerd pull from the registry
// at host ("127.0.0.1:<port>") over plain HTTP: a hosts.toml for it in the
// hosts directory, which the CRI reads at every pull, so no restart is
// needed. It is removed at test end.
func TrustRegistry(tb testing.TB, host string) {
	tb.Helper()
	if !strings.HasPrefix(host, "127.0.0.1:") && !strings.HasPrefix(host, "localhost:") {
		tb.Fatalf("registry %s: only loopback registries are trusted over plain HTTP", host)
	}
	dir := filepath.Join(RegistryHostsDir(tb), host)
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatalf("trust registry %s: %v", host, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hosts.toml"), []byte(HostsTOML(host)), 0o644); err != nil {
		tb.Fatalf("trust registry %s: %v", host, err)
	}
}

// HostsTOML is containerd's hosts.toml for a plain-HTTP registry at host,
// the same as scripts/k8s-cluster.sh writes for RBX_K8S_REGISTRY.
func HostsTOML(host string) string {
	return fmt.Sprintf("server = \"http://%s\"\n\n[host.\"http://%s\"]\n  capabilities = [\"pull\", \"resolve\"]\n  skip_verify = true\n", host, host)
}
