#!/bin/bash
# Builds the pinned Kubernetes server binaries (kube-apiserver, kubelet,
# kube-controller-manager, kube-scheduler, kube-proxy) from the Go module proxy into
# $K8S_CACHE/bin. Debian bookworm packages no Kubernetes server, and the test
# cluster has no network but the Go proxy, so a scratch module requiring
# k8s.io/kubernetes is the only source. The result is cached: a second run
# with the binaries present returns at once, and one that finds some missing
# (kube-proxy, added later) builds only those.
set -euo pipefail
K8S_VERSION=${K8S_VERSION:-v1.34.4}
K8S_CACHE=${K8S_CACHE:-$HOME/.cache/rbx/k8s/$K8S_VERSION}
GO=${GO:-go}
BINS=(kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy)

have_all() { for b in "${BINS[@]}"; do [ -x "$K8S_CACHE/bin/$b" ] || return 1; done; }
if have_all; then echo "k8s $K8S_VERSION binaries cached in $K8S_CACHE/bin"; exit 0; fi

# The staging modules (k8s.io/api, client-go, ...) are published as v0.X.Y
# for Kubernetes v1.X.Y; k8s.io/kubernetes' go.mod points them at
# ./staging, so each needs a replace to the published version.
minor=${K8S_VERSION#v1.}; staging="v0.$minor"
src=$K8S_CACHE/src
mkdir -p "$src" "$K8S_CACHE/bin"
cd "$src"
cat > go.mod <<MOD
module rbx.local/k8s-server-build

go 1.24

require k8s.io/kubernetes $K8S_VERSION
MOD
for m in api apiextensions-apiserver apimachinery apiserver cli-runtime client-go \
  cloud-provider cluster-bootstrap code-generator component-base component-helpers \
  controller-manager cri-api cri-client csi-translation-lib dynamic-resource-allocation \
  endpointslice externaljwt kms kube-aggregator kube-controller-manager kube-proxy \
  kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission \
  sample-apiserver sample-cli-plugin sample-controller; do
  echo "replace k8s.io/$m => k8s.io/$m $staging" >> go.mod
done
cat > tools.go <<'GO'
//go:build tools

// Package tools pins the Kubernetes server commands for go build.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
)
GO
echo "resolving k8s.io/kubernetes $K8S_VERSION modules"
GOFLAGS=-mod=mod "$GO" mod tidy -e >/dev/null
# Without the version stamps the servers report v0.0.0 and kubectl and
# client-go discovery cannot parse the server version.
major=1; min=${minor%%.*}
ld=""
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ld="$ld -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=$major -X $p.gitMinor=$min -X $p.gitTreeState=clean"
done
for b in "${BINS[@]}"; do
  [ -x "$K8S_CACHE/bin/$b" ] && continue
  echo "building $b"
  CGO_ENABLED=0 "$GO" build -mod=mod -tags tools -trimpath -ldflags "-s -w $ld" \
    -o "$K8S_CACHE/bin/$b.tmp" "k8s.io/kubernetes/cmd/$b"
  mv "$K8S_CACHE/bin/$b.tmp" "$K8S_CACHE/bin/$b"
done
echo "k8s $K8S_VERSION binaries built in $K8S_CACHE/bin"
