package tbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadCompose: what a compose file asks of the sandbox's service is
// mapped (cap_add) or refused by name; terminal-bench's log volumes are
// its harness's, not the task's; other services are not imported.
func TestReadCompose(t *testing.T) {
	for _, tc := range []struct {
		name, compose string
		caps          []string
		want          []string // substrings of the report, in order
	}{
		{"none", "", nil, nil},
		{"terminal-bench's template", `services:
  client:
    build:
      dockerfile: Dockerfile
    image: ${T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME}
    command: ["sh", "-c", "sleep infinity"]
    volumes:
      - ${T_BENCH_TASK_LOGS_PATH}:${T_BENCH_CONTAINER_LOGS_PATH}
`, nil, nil},
		{"hostile", `services:
  client:
    build: .
    privileged: true
    cap_add: [SYS_ADMIN, cap_net_admin]
    network_mode: host
    devices: ["/dev/kvm:/dev/kvm"]
    volumes: ["/var/run/docker.sock:/var/run/docker.sock"]
    pid: host
  db:
    image: postgres
`, []string{"SYS_ADMIN", "NET_ADMIN"}, []string{
			"compose service client: cap_add SYS_ADMIN: mapped to the task's cap_add",
			"cap_add NET_ADMIN: mapped",
			"privileged true: refused",
			"network_mode host: refused",
			"devices /dev/kvm:/dev/kvm: refused",
			"volumes /var/run/docker.sock:/var/run/docker.sock: refused",
			"pid host: refused",
			"compose service db: service db: not imported",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.compose != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "docker-compose.yaml"), []byte(tc.compose), 0o644))
			}
			reqs, caps, err := readCompose(dir)
			require.NoError(t, err)
			assert.Equal(t, tc.caps, caps)
			var lines []string
			for _, r := range reqs {
				lines = append(lines, r.String())
			}
			report := strings.Join(lines, "\n")
			require.Len(t, lines, len(tc.want), report)
			for _, w := range tc.want {
				assert.Contains(t, report, w)
			}
		})
	}
	t.Run("bad YAML names the file", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "docker-compose.yml"), []byte("services: [\n"), 0o644))
		_, _, err := readCompose(dir)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "docker-compose.yml")
	})
}
