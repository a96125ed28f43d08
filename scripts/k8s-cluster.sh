#!/bin/bash
# A real single-node Kubernetes on this machine, for the kubernetes
# backend's tests: etcd (Debian etcd-server), kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet and kube-proxy (built
# from the Go module proxy by scripts/k8s/build.sh, cached; kube-proxy in
# nftables mode, its own table, so that Services route: the in-cluster
# `rbx serve` reaches the API server's Service, clients reach rbx serve's),
# a second containerd with
# CRI (own root, state and socket; Docker's has CRI off), bridge CNI (Debian
# containernetworking-plugins), and rbx's images in its k8s.io namespace:
# imported from Docker, or pulled from a loopback registry when
# RBX_K8S_REGISTRY names one. See docs/kubernetes.md.
#
#   scripts/k8s-cluster.sh up      start (idempotent: a running cluster is kept)
#   scripts/k8s-cluster.sh down    check that no rbx.managed pod or lease is
#                                  left, stop everything, restore the host and
#                                  check it is as before (exit 1 if not)
#   scripts/k8s-cluster.sh status  print whether it runs
#   scripts/k8s-cluster.sh env     print the export lines for KUBECONFIG and
#                                  RBX_K8S_REGISTRY_HOSTS
#   scripts/k8s-cluster.sh kubeconfig  print the kubeconfig path
#
# Environment: RBX_K8S_DIR (state, default /tmp/rbx-k8s), K8S_VERSION
# (default v1.34.4: 1.35+ refuses cgroup v1), RBX_K8S_IMAGES (images to
# import from Docker; default rbx/busybox:latest rbx/debian:bookworm),
# RBX_K8S_REGISTRY (host:port of a registry on loopback, e.g. one started
# with Debian's docker-registry: the images are pushed there and the CRI
# containerd pulls them over plain HTTP instead of importing them).
#
# With gVisor's wrapper installed (scripts/host-setup.sh runsc), the CRI
# has a second runtime handler, runsc, and up creates the RuntimeClass
# runsc for it (pods with runtimeClassName runsc: --oci-runtime runsc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
export K8S_VERSION=${K8S_VERSION:-v1.34.4}
export K8S_CACHE=${K8S_CACHE:-$HOME/.cache/rbx/k8s/$K8S_VERSION}
D=${RBX_K8S_DIR:-/tmp/rbx-k8s}
BIN=$K8S_CACHE/bin
SOCK=$D/containerd/containerd.sock
BRIDGE=rbxk8s0
NS=rbx
IMAGES=${RBX_K8S_IMAGES:-rbx/busybox:latest rbx/debian:bookworm}
PAUSE=rbx.local/pause:1
REGISTRY=${RBX_K8S_REGISTRY:-}
# The pods' addresses (bridge CNI, host-local IPAM); kube-proxy's clusterCIDR.
PODCIDR=10.244.0.0/24
# containerd's hosts directory (CRI registry config_path), read at every
# pull: a hosts.toml per registry host, so tests can add a loopback
# registry of their own (sandbox/kubernetes/k8stest.TrustRegistry).
HOSTS=$D/containerd/certs.d
export KUBECONFIG=$D/admin.kubeconfig
# The sysctls the kubelet (setupKernelTunables) and the bridge plugin set.
SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward"
GO=${GO:-go}
# RUNSC_WRAPPER is runsc with rbx's flags (scripts/host-setup.sh installs
# it): the runc shim runs it in runc's place for the runsc handler, as
# Debian's runsc has no containerd-shim-runsc-v1.
RUNSC_WRAPPER=/usr/local/lib/rbx/runsc
command -v "$GO" >/dev/null || GO=/usr/local/go/bin/go

log() { printf '%s k8s-cluster: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# api PATH [curl args...]: a request to the API server as the admin.
api() {
	local p=$1; shift
	curl -sS --fail --max-time 5 --cacert "$D/pki/ca.crt" --cert "$D/pki/admin.crt" --key "$D/pki/admin.key" "$@" "https://127.0.0.1:6443$p"
}

# waitfor SECONDS DESC CMD...: retry CMD every 0.2 s.
waitfor() {
	local secs=$1 desc=$2; shift 2
	local end=$((SECONDS + secs))
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || { log "timeout waiting for $desc"; tail -n 30 "$D"/logs/*.log >&2 || true; return 1; }
		sleep 0.2
	done
}

running() { [ -f "$D/pids/$1" ] && kill -0 "$(cat "$D/pids/$1")" 2>/dev/null; }

# start NAME CMD...: run CMD in its own session, logging to logs/NAME.log.
start() {
	local name=$1; shift
	setsid "$@" >"$D/logs/$name.log" 2>&1 </dev/null &
	echo $! >"$D/pids/$name"
}

node_ip() {
	local ip
	ip=$(ip -4 route get 1.1.1.1 2>/dev/null | awk '{for(i=1;i<=NF;i++) if($i=="src"){print $(i+1); exit}}') || true
	[ -n "$ip" ] || ip=$(hostname -I | awk '{print $1}')
	echo "$ip"
}

need_packages() {
	local missing=()
	command -v etcd >/dev/null || missing+=(etcd-server)
	[ -x /usr/lib/cni/bridge ] || missing+=(containernetworking-plugins)
	command -v containerd >/dev/null || missing+=(containerd)
	command -v nft >/dev/null || missing+=(nftables) # kube-proxy's nftables mode
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null; }
}

pki() {
	[ -f "$D/pki/admin.crt" ] && return 0
	local ip=$1
	mkdir -p "$D/pki"
	(cd "$D/pki"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj "/CN=rbx-test-ca" 2>/dev/null
	printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:10.0.0.1,IP:%s\n' "$ip" >apiserver.ext
	openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver" 2>/dev/null
	openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 30 -extfile apiserver.ext 2>/dev/null
	printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' >client.ext
	openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=rbx-admin" 2>/dev/null
	openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 30 -extfile client.ext 2>/dev/null
	openssl genrsa -out sa.key 2048 2>/dev/null
	openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null)
	cat >"$KUBECONFIG" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: rbx-test, cluster: {server: "https://127.0.0.1:6443", certificate-authority-data: $(base64 -w0 "$D/pki/ca.crt")}}]
users: [{name: admin, user: {client-certificate-data: $(base64 -w0 "$D/pki/admin.crt"), client-key-data: $(base64 -w0 "$D/pki/admin.key")}}]
contexts: [{name: rbx-test, context: {cluster: rbx-test, user: admin, namespace: $NS}}]
current-context: rbx-test
EOF
}

# runsc_handler prints the CRI's runsc runtime handler, when the wrapper is
# installed: the runc shim with the wrapper as its runc, a root of its own.
runsc_handler() {
	[ -x "$RUNSC_WRAPPER" ] || return 0
	cat <<EOF
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runsc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runsc.options]
        BinaryName = "$RUNSC_WRAPPER"
        SystemdCgroup = false
        Root = "$D/runsc"
EOF
}

# runtime_class creates the RuntimeClass runsc (handler runsc) when the CRI
# has that handler (see runsc_handler).
runtime_class() {
	[ -x "$RUNSC_WRAPPER" ] || { log "no $RUNSC_WRAPPER: no runsc RuntimeClass (scripts/host-setup.sh runsc installs it)"; return 0; }
	api /apis/node.k8s.io/v1/runtimeclasses -X POST -H 'Content-Type: application/json' \
		-d '{"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass","metadata":{"name":"runsc"},"handler":"runsc"}' >/dev/null 2>&1 ||
		api /apis/node.k8s.io/v1/runtimeclasses/runsc >/dev/null
}

containerd_up() {
	mkdir -p "$D/containerd" "$D/cni/net.d" "$D/cni/ipam" "$D/runc"
	cat >"$D/containerd/config.toml" <<EOF
version = 2
root = "$D/containerd/root"
state = "$D/containerd/state"
[grpc]
  address = "$SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  netns_mounts_under_state_dir = true
  # Required on this machine kind: without CAP_SYS_RESOURCE runc cannot set
  # the negative oom_score_adj of the pause container.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$D/runc"
$(runsc_handler)
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$HOSTS"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$D/cni/net.d"
EOF
	# No portmap plugin: it would add iptables chains the teardown must undo.
	cat >"$D/cni/net.d/10-rbx-bridge.conflist" <<EOF
{"cniVersion":"0.4.0","name":"rbx-k8s","plugins":[
 {"type":"bridge","bridge":"$BRIDGE","isGateway":true,"ipMasq":false,"hairpinMode":true,
  "ipam":{"type":"host-local","dataDir":"$D/cni/ipam","ranges":[[{"subnet":"$PODCIDR"}]],"routes":[{"dst":"0.0.0.0/0"}]}},
 {"type":"loopback"}]}
EOF
	mkdir -p "$HOSTS"
	[ -z "$REGISTRY" ] || trust_registry "$REGISTRY"
	start containerd containerd --config "$D/containerd/config.toml"
	waitfor 30 containerd ctr -a "$SOCK" version
}

# trust_registry HOST: the CRI pulls from HOST (a loopback registry) over
# plain HTTP; the same file as k8stest.HostsTOML.
trust_registry() {
	case $1 in 127.0.0.1:*|localhost:*) ;; *) die "registry $1: only a loopback registry (127.0.0.1:PORT) is trusted over plain HTTP" ;; esac
	mkdir -p "$HOSTS/$1"
	printf 'server = "http://%s"\n\n[host."http://%s"]\n  capabilities = ["pull", "resolve"]\n  skip_verify = true\n' "$1" "$1" >"$HOSTS/$1/hosts.toml"
}

# registry_image IMG: push Docker's IMG to $REGISTRY, have containerd pull
# it from there through the hosts directory, and name it IMG on the node
# (pods use rbx's local names, imagePullPolicy Never).
registry_image() {
	local img=$1 remote=$REGISTRY/$1
	docker tag "$img" "$remote"
	docker push -q "$remote" >/dev/null || { docker rmi "$remote" >/dev/null 2>&1; die "push $img to $REGISTRY failed"; }
	docker rmi "$remote" >/dev/null
	ctr -a "$SOCK" -n k8s.io images pull --hosts-dir "$HOSTS" "$remote" >/dev/null
	ctr -a "$SOCK" -n k8s.io images tag --force "$remote" "docker.io/$img" >/dev/null
}

# import_images: the pause image (built here) and rbx's images from Docker
# (through $REGISTRY when set), each skipped when the same image id was
# brought in before.
import_images() {
	local pause=$D/images/pause
	mkdir -p "$pause" "$D/images"
	if ! ctr -a "$SOCK" -n k8s.io images ls -q | grep -qx "$PAUSE"; then
		CGO_ENABLED=0 "$GO" build -C "$repo" -trimpath -ldflags "-s -w" -o "$pause/pause" ./scripts/k8s/pause
		docker rmi "$PAUSE" >/dev/null 2>&1 || true
		tar -C "$pause" -c pause | docker import --change 'ENTRYPOINT ["/pause"]' - "$PAUSE" >/dev/null
		docker save "$PAUSE" | ctr -a "$SOCK" -n k8s.io images import - >/dev/null
		docker rmi "$PAUSE" >/dev/null
	fi
	local img id mark
	# rbx's agent images (rbx images build rbx/agent): what pods recycled in
	# place (rbx serve --recycle on) get their agent from.
	for img in $IMAGES $(docker image ls --format '{{.Repository}}:{{.Tag}}' rbx/agent 2>/dev/null); do
		if ! id=$(docker image inspect -f '{{.Id}}' "$img" 2>/dev/null); then
			[ "$img" = rbx/busybox:latest ] && die "image $img is missing from Docker (run: make images); it is the sandboxes' tools image"
			log "warning: image $img is missing from Docker: not imported"
			continue
		fi
		mark=$D/images/$(echo "$img" | tr '/:' '__').id
		[ "$(cat "$mark" 2>/dev/null)" = "$id" ] && continue
		if [ -n "$REGISTRY" ]; then
			log "pulling $img from $REGISTRY"
			registry_image "$img"
		else
			log "importing $img"
			docker save "$img" | ctr -a "$SOCK" -n k8s.io images import - >/dev/null
		fi
		echo "$id" >"$mark"
	done
}

control_plane_up() {
	local ip=$1
	start etcd etcd --name rbx-k8s --data-dir "$D/etcd-data" \
		--listen-client-urls http://127.0.0.1:12379 --advertise-client-urls http://127.0.0.1:12379 \
		--listen-peer-urls http://127.0.0.1:12380 --initial-advertise-peer-urls http://127.0.0.1:12380 \
		--initial-cluster rbx-k8s=http://127.0.0.1:12380 --unsafe-no-fsync
	start apiserver "$BIN/kube-apiserver" --etcd-servers=http://127.0.0.1:12379 --bind-address=0.0.0.0 --secure-port=6443 \
		--advertise-address="$ip" --service-cluster-ip-range=10.0.0.0/24 --client-ca-file="$D/pki/ca.crt" \
		--tls-cert-file="$D/pki/apiserver.crt" --tls-private-key-file="$D/pki/apiserver.key" \
		--kubelet-client-certificate="$D/pki/admin.crt" --kubelet-client-key="$D/pki/admin.key" \
		--service-account-issuer=https://kubernetes.default.svc.cluster.local \
		--service-account-key-file="$D/pki/sa.pub" --service-account-signing-key-file="$D/pki/sa.key" \
		--authorization-mode=Node,RBAC --allow-privileged=false --enable-priority-and-fairness=false \
		--cert-dir="$D/pki/apiserver-generated"
	waitfor 120 "the API server" api /readyz
	# Without the controller-manager no default service account exists and
	# every pod creation fails.
	start controller-manager "$BIN/kube-controller-manager" --kubeconfig="$KUBECONFIG" \
		--authentication-kubeconfig="$KUBECONFIG" --authorization-kubeconfig="$KUBECONFIG" \
		--bind-address=127.0.0.1 --secure-port=10257 --leader-elect=false --service-account-private-key-file="$D/pki/sa.key" \
		--root-ca-file="$D/pki/ca.crt" --use-service-account-credentials=false --controllers='*,-nodeipam' \
		--cert-dir="$D/pki/cm-generated"
	start scheduler "$BIN/kube-scheduler" --kubeconfig="$KUBECONFIG" --authentication-kubeconfig="$KUBECONFIG" \
		--authorization-kubeconfig="$KUBECONFIG" --bind-address=127.0.0.1 --secure-port=10259 --leader-elect=false
}

# proxy_up starts kube-proxy in nftables mode: its rules live in its own
# nftables tables ("kube-proxy", ip and ip6), not in Docker's iptables
# chains, and down deletes them. It changes no conntrack sysctl (all 0:
# leave as is).
proxy_up() {
	mkdir -p "$D/kube-proxy"
	cat >"$D/kube-proxy/config.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $KUBECONFIG}
mode: nftables
clusterCIDR: $PODCIDR
hostnameOverride: $(hostname)
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
	start kube-proxy "$BIN/kube-proxy" --config="$D/kube-proxy/config.yaml"
}

# proxy_tables lists kube-proxy's nftables tables that exist.
proxy_tables() {
	local f
	for f in ip ip6; do nft list table "$f" kube-proxy >/dev/null 2>&1 && echo "$f kube-proxy"; done
	true
}

# service_routes: kube-proxy has programmed the API server's Service.
service_routes() {
	nft list table ip kube-proxy 2>/dev/null | grep -q '10\.0\.0\.1'
}

kubelet_up() {
	local ip=$1
	mkdir -p "$D/kubelet" "$D/pod-logs"
	cat >"$D/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication: {anonymous: {enabled: false}, webhook: {enabled: false}, x509: {clientCAFile: $D/pki/ca.crt}}
authorization: {mode: AlwaysAllow}
port: 10250
healthzPort: 0
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$SOCK
failSwapOn: false
failCgroupV1: false
podLogsDir: $D/pod-logs
clusterDomain: cluster.local
readOnlyPort: 0
makeIPTablesUtilChains: false
podPidsLimit: 1024
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
EOF
	start kubelet "$BIN/kubelet" --config="$D/kubelet/config.yaml" --kubeconfig="$KUBECONFIG" \
		--root-dir="$D/kubelet/root" --cert-dir="$D/kubelet/pki" --hostname-override="$(hostname)" --node-ip="$ip"
}

node_ready() {
	api "/api/v1/nodes/$(hostname)" | python3 -c 'import json,sys; c={x["type"]:x["status"] for x in json.load(sys.stdin)["status"]["conditions"]}; sys.exit(c.get("Ready")!="True")'
}

ns_ready() {
	api /api/v1/namespaces/$NS/serviceaccounts/default >/dev/null
}

cmd_up() {
	[ "$(id -u)" = 0 ] || die "run as root (kubelet, containerd)"
	if running kubelet && api /readyz >/dev/null 2>&1; then
		log "already running; KUBECONFIG=$KUBECONFIG"
		import_images
		return 0
	fi
	need_packages
	"$here/k8s/build.sh" >&2
	# A failed start leaves nothing running: the logs are shown, then down.
	trap 'rc=$?; trap - ERR; log "up failed (exit $rc)"; tail -n 20 "$D"/logs/*.log >&2 2>/dev/null || true; cmd_down || true; exit $rc' ERR
	mkdir -p "$D/logs" "$D/pids"
	# What down restores: the sysctls, and the host paths the kubelet and
	# libcni create when they do not exist yet.
	if [ ! -f "$D/host.before" ]; then
		{ for k in $SYSCTLS; do echo "sysctl $k $(sysctl -n "$k")"; done
		  for p in /var/lib/kubelet /var/lib/cni; do [ -e "$p" ] && echo "existed $p"; done; true; } >"$D/host.before"
	fi
	local ip t0=$SECONDS
	ip=$(node_ip)
	pki "$ip"
	containerd_up
	import_images
	control_plane_up "$ip"
	kubelet_up "$ip"
	proxy_up
	waitfor 120 "node Ready" node_ready
	waitfor 60 "kube-proxy's rules for the API server's Service" service_routes
	api /api/v1/namespaces -X POST -H 'Content-Type: application/json' \
		-d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$NS\"}}" >/dev/null 2>&1 || true
	waitfor 60 "the default service account of namespace $NS" ns_ready
	runtime_class
	trap - ERR
	log "up in $((SECONDS - t0)) s; export KUBECONFIG=$KUBECONFIG (namespace $NS)"
}

stop() {
	local p
	[ -f "$D/pids/$1" ] || return 0
	p=$(cat "$D/pids/$1")
	if kill "$p" 2>/dev/null; then
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	fi
	rm -f "$D/pids/$1"
}

# left_in_cluster: what a test run must not leave, listed before down
# deletes it: pods labelled rbx.managed (in any namespace) and the owner
# heartbeat leases rbx keeps while it has sandboxes.
left_in_cluster() {
	local what path
	for what in "pods:/api/v1/pods?labelSelector=rbx.managed" "leases:/apis/coordination.k8s.io/v1/leases?labelSelector=rbx.heartbeat-owner"; do
		path=${what#*:}
		api "$path" 2>/dev/null | python3 -c 'import json,sys
for i in json.load(sys.stdin)["items"]: print(sys.argv[1], i["metadata"]["namespace"] + "/" + i["metadata"]["name"])' "${what%%:*}" || true
	done
}

# host_left: what the host keeps of the cluster after down, compared with
# host.before: processes naming the state directory, mounts under it, the
# bridge, the kubelet's cgroups, changed sysctls, created host paths.
host_left() {
	local p ctl kind a b
	for p in $(pgrep -f -- "$D/" || true); do
		[ "$p" = $$ ] || echo "process $p: $(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null | cut -c1-120)"
	done
	awk -v d="$D/" 'index($2, d) == 1 {print "mount " $2}' /proc/mounts
	ip link show "$BRIDGE" >/dev/null 2>&1 && echo "link $BRIDGE"
	proxy_tables | sed 's/^/nftables table /'
	for ctl in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/unified/kubepods; do
		[ -d "$ctl" ] && echo "cgroup $ctl"
	done
	if [ -f "$D/host.before" ]; then
		while read -r kind a b; do
			[ "$kind" = sysctl ] && [ "$(sysctl -n "$a")" != "$b" ] && echo "sysctl $a=$(sysctl -n "$a") (was $b)"
		done <"$D/host.before"
		for p in /var/lib/kubelet /var/lib/cni; do
			grep -q "^existed $p\$" "$D/host.before" || { [ -e "$p" ] && echo "path $p"; }
		done
	fi
	true
}

cmd_down() {
	[ -d "$D" ] || { log "not running"; return 0; }
	local left="" hostleft
	# Pods first, through the API, while the kubelet can still stop them;
	# but first what the run left behind, which is an error.
	if running apiserver; then
		left=$(left_in_cluster)
		[ -z "$left" ] || log "ERROR: left in the cluster after the run:"$'\n'"$left"
		local nss
		nss=$(api /api/v1/namespaces 2>/dev/null | python3 -c 'import json,sys; print(" ".join(i["metadata"]["name"] for i in json.load(sys.stdin)["items"]))' 2>/dev/null) || true
		for ns in $nss; do api "/api/v1/namespaces/$ns/pods?gracePeriodSeconds=0" -X DELETE >/dev/null 2>&1 || true; done
	fi
	stop kube-proxy; stop kubelet; stop scheduler; stop controller-manager; stop apiserver; stop etcd
	# kube-proxy leaves its rules when it stops: its own tables only.
	local f t
	proxy_tables | while read -r f t; do nft delete table "$f" "$t" 2>/dev/null || true; done
	# Every CRI pod sandbox, through containerd: containers, netns, CNI.
	if running containerd; then
		"$GO" run -C "$repo" ./scripts/k8s/crireset -socket "$SOCK" >&2 || log "warning: CRI reset failed"
		local c
		for c in $(ctr -a "$SOCK" -n k8s.io containers ls -q 2>/dev/null); do
			ctr -a "$SOCK" -n k8s.io tasks kill -s KILL "$c" >/dev/null 2>&1 || true
			ctr -a "$SOCK" -n k8s.io tasks rm -f "$c" >/dev/null 2>&1 || true
			ctr -a "$SOCK" -n k8s.io containers rm "$c" >/dev/null 2>&1 || true
		done
	fi
	stop containerd
	# Shims outlive a killed containerd: end those of this state dir, by pid.
	local pid
	for pid in $(pgrep -f "containerd-shim-runc-v2 -namespace k8s.io .*-address $SOCK" || true); do kill -9 "$pid" 2>/dev/null || true; done
	# gVisor's sandboxes and gofers outlive their shim: those of this root.
	for pid in $(pgrep -f -- "--root=$D/runsc" || true); do kill -9 "$pid" 2>/dev/null || true; done
	# Kubelet cgroups (cgroup v1, cgroupfs driver), innermost first.
	local ctl
	for ctl in /sys/fs/cgroup/*/; do
		[ -d "$ctl/kubepods" ] && find "$ctl/kubepods" -depth -type d -exec rmdir {} \; 2>/dev/null || true
	done
	[ -d /sys/fs/cgroup/unified/kubepods ] && find /sys/fs/cgroup/unified/kubepods -depth -type d -exec rmdir {} \; 2>/dev/null || true
	ip link del "$BRIDGE" 2>/dev/null || true
	awk -v d="$D/" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
	if [ -f "$D/host.before" ]; then
		while read -r kind a b; do
			case $kind in
			sysctl) [ "$(sysctl -n "$a")" = "$b" ] || sysctl -q -w "$a=$b" >/dev/null ;;
			esac
		done <"$D/host.before"
		# The kubelet writes /var/lib/kubelet/device-plugins whatever its
		# --root-dir; libcni caches results in /var/lib/cni.
		grep -q '^existed /var/lib/kubelet$' "$D/host.before" || rm -rf /var/lib/kubelet
		grep -q '^existed /var/lib/cni$' "$D/host.before" || rm -rf /var/lib/cni
	fi
	hostleft=$(host_left)
	rm -rf "$D"
	[ ! -e "$D" ] || hostleft+=$'\n'"path $D"
	[ -z "$hostleft" ] || log "ERROR: the host is not as before:"$'\n'"$hostleft"
	if [ -n "$left" ] || [ -n "$hostleft" ]; then
		log "down (with leftovers, see above)"
		return 1
	fi
	log "down; no rbx.managed pod or lease was left, the host is as before"
}

cmd_status() {
	if running kubelet && api /readyz >/dev/null 2>&1; then
		echo "running: KUBECONFIG=$KUBECONFIG"
	else
		echo "not running"; return 1
	fi
}

case ${1:-} in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
env) echo "export KUBECONFIG=$KUBECONFIG RBX_K8S_REGISTRY_HOSTS=$HOSTS" ;;
kubeconfig) echo "$KUBECONFIG" ;;
*) echo "usage: $0 up|down|status|env|kubeconfig" >&2; exit 2 ;;
esac
