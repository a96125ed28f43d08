# rbx — make targets. `make demo` and `make test` are the quick start.
GO      ?= go
# rbx ships static (bin/rbx, the server image), so everything but make race
# (the race detector needs cgo) builds, vets and tests that form: one
# compile of every package, the Kubernetes client's included, serves make
# build, go vet, the test binaries and the tests' own static builds of
# cmd/rbx and cmd/rbx-agent, where a cgo build beside it compiled them all
# twice.
CGO_ENABLED ?= 0
export CGO_ENABLED
BIN     := bin/rbx
PKGS    := ./...
# Integration tests use the real Docker engine; the budget covers a cold
# Debian image build (debootstrap) on a fresh machine.
# importer/tbench builds a sample of the terminal-bench corpus (one task or
# two of each kind: 10m43s on this machine, 2026-12-02); `make corpus` runs all of it.
TEST_TIMEOUT ?= 45m
# The whole corpus: every task's image built over the toolchain images
# (multi-GB layer commits on fuse-overlayfs, toolchain installs): 54 minutes
# for the ten on this machine, 68 on CI's of 2026-12-02.
CORPUS_TIMEOUT ?= 120m

# The kubernetes backend's tests and benchmarks run on a real single-node
# cluster started on this machine (scripts/k8s-cluster.sh, as root; the
# cold build of the server binaries, ~5-15 min, is cached under
# ~/.cache/rbx/k8s). `make test K8S=0` leaves it out: those tests then skip.
K8S         ?= 1
K8S_CLUSTER := scripts/k8s-cluster.sh

# Extra `rbx serve` flags of the dataset benchmark's two settings (passed
# as RBX_BENCH_SERVE_FLAGS_10 / _1000; RBX_BENCH_SERVE_FLAGS goes to both);
# empty, the server's defaults (--max-sandboxes from memory, --warm, --pool
# per class), e.g. make bench-run DATASET_FLAGS_1000='--max-sandboxes 128'.
# RBX_BENCH_BIN=path benchmarks that rbx binary instead of building one.
DATASET_FLAGS_10   ?=
DATASET_FLAGS_1000 ?=

.PHONY: all build images images-all host-setup demo test test-prereqs test-run k8s-build corpus unit race bench bench-run fuzz vet clean k8s-up k8s-down

all: build

# bin/rbx is static whatever CGO_ENABLED says (only the standard library's
# net and os/user have cgo forms, and their pure-Go ones read /etc/hosts,
# resolv.conf and /etc/passwd): it is the server image's binary
# (deploy/kubernetes/Dockerfile).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/rbx
	CGO_ENABLED=0 $(GO) build -o bin/rbx-agent ./cmd/rbx-agent

# Base images are built locally (no registry): static busybox, Debian
# bookworm — what the demo uses. The tests also build the toolchain images
# (rbx/buildpack-deps, rbx/deveval) up front: the importer's tests build
# task images over them, and a build inside a test would spend its timeout.
images: build
	scripts/host-setup.sh engine || true
	./$(BIN) images build --if-engine

images-all: build
	scripts/host-setup.sh engine || true
	./$(BIN) images build --all --if-engine

# The demo uses the Docker backend only: its bin/rbx leaves out the
# containerd and Kubernetes backends (-tags rbx_slim: half the packages,
# a third of a cold build's compile time is Kubernetes' client alone);
# make build builds every backend.
demo:
	$(GO) build -tags rbx_slim -o $(BIN) ./cmd/rbx
	CGO_ENABLED=0 $(GO) build -o bin/rbx-agent ./cmd/rbx-agent
	scripts/host-setup.sh engine || true
	./$(BIN) images build --if-engine
	./$(BIN) demo

# With K8S=1 the cluster is up for the whole run and down after it, pass
# or fail; RBX_REQUIRE_KUBERNETES=1 makes its tests fail, not skip, when it
# does not answer. down fails the run when a pod labelled rbx.managed (or an
# owner lease) is left in the cluster, or the host is not as before.
# The image builds wait mostly on downloads and the disk, so vet and the
# Kubernetes binaries' build (CPU) run beside them (-j3).
test: host-setup
	$(MAKE) --no-print-directory -j3 test-prereqs
ifeq ($(K8S),1)
	$(K8S_CLUSTER) up
	RBX_KUBECONFIG=$$($(K8S_CLUSTER) kubeconfig) RBX_REQUIRE_KUBERNETES=1 $(MAKE) --no-print-directory test-run; \
		rc=$$?; $(K8S_CLUSTER) down || rc=1; exit $$rc
else
	$(MAKE) --no-print-directory test-run
endif

test-prereqs: images-all vet $(if $(filter 1,$(K8S)),k8s-build)

# The test cluster's server binaries, built once and cached (k8s-cluster
# up builds them too when missing).
k8s-build:
	scripts/k8s/build.sh

# Test artefacts (the dashboard's screenshots) are kept in test-artefacts/.
# The Python tests run even when a Go test failed (their verdicts are
# independent); the target fails if either did. RBX_RUNTIME=docker: the
# asyncio client's 64 concurrent episodes run on Docker (test_aio).
test-run:
	RBX_TEST_ARTEFACTS=$(CURDIR)/test-artefacts $(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(PKGS); \
		rc=$$?; RBX_RUNTIME=docker python3 -m unittest discover -s clients/python -v || rc=1; exit $$rc

# Every terminal-bench corpus task, not make test's sample: imported, its
# image built, prefiltered (R = 2) and its broken copy rejected.
corpus: host-setup images-all
	RBX_CORPUS=all $(GO) test -count=1 -timeout $(CORPUS_TIMEOUT) -run TestIntegrationTerminalBenchCorpus -v ./importer/tbench/

# The host packages the tests need (one list) and a running engine.
host-setup:
	scripts/host-setup.sh

k8s-up:
	$(K8S_CLUSTER) up

k8s-down:
	$(K8S_CLUSTER) down

# Unit tests only: integration tests skip themselves without an engine, so
# this is what runs on machines without Docker.
unit:
	$(GO) test -count=1 -short -timeout 5m $(PKGS)

# Unit tests under the race detector (CI runs it beside its image builds;
# the detector needs cgo): -short keeps the engine tests out, so it stays
# within minutes.
race:
	CGO_ENABLED=1 $(GO) test -race -short -count=1 -timeout 20m $(PKGS)

vet:
	$(GO) vet $(PKGS)
	$(GO) vet -tags rbx_slim ./cmd/rbx

# Benchmarks print their figures next to their baselines in one run (the
# docker CLI only as a measured baseline, its rows skipped without it).
bench: images
ifeq ($(K8S),1)
	$(K8S_CLUSTER) up
	RBX_KUBECONFIG=$$($(K8S_CLUSTER) kubeconfig) $(MAKE) --no-print-directory bench-run; \
		rc=$$?; $(K8S_CLUSTER) down; exit $$rc
else
	$(MAKE) --no-print-directory bench-run
endif

bench-run:
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./replayer/
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./reset/
	$(GO) test -run '^$$' -bench ColdReplayProcess -benchtime 1x -timeout 30m ./cmd/rbx/
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./prefilter/
	$(GO) test -run '^$$' -bench 'Step' -benchtime 200x -timeout 30m ./sandbox/docker/
	$(GO) test -run '^$$' -bench 'Recycle' -benchtime 20x -timeout 30m ./sandbox/docker/
	$(GO) test -run '^$$' -bench 'Step' -benchtime 200x -timeout 30m ./sandbox/containerd/
	$(GO) test -run '^$$' -bench 'Create' -benchtime 20x -timeout 30m ./sandbox/containerd/
	$(GO) test -run '^$$' -bench 'Recycle' -benchtime 20x -timeout 30m ./sandbox/containerd/
	$(GO) test -run '^$$' -bench 'Step' -benchtime 200x -timeout 30m ./sandbox/kubernetes/
	$(GO) test -run '^$$' -bench 'Create' -benchtime 10x -timeout 30m ./sandbox/kubernetes/
	$(GO) test -run '^$$' -bench 'Recycle' -benchtime 10x -timeout 30m ./sandbox/kubernetes/
	$(GO) test -run '^$$' -bench DeployedServe -benchtime 1x -timeout 30m ./deploy/e2e/
	$(GO) test -run '^$$' -bench ServeLoad -benchtime 1x -timeout 30m ./server/
	$(GO) test -run '^$$' -bench PrefixCache -benchtime 1x -timeout 30m ./server/
	$(GO) test -run '^$$' -bench StartManyTasks -benchtime 1x -timeout 30m ./server/
	$(GO) test -run '^$$' -bench Chaos -benchtime 1x -timeout 30m ./server/
	$(GO) test -run '^$$' -bench OverviewManyTasks -timeout 30m ./dashboard/
	RBX_BENCH_SERVE_FLAGS_10='$(DATASET_FLAGS_10)' RBX_BENCH_SERVE_FLAGS_1000='$(DATASET_FLAGS_1000)' $(GO) test -run '^$$' -bench Dataset -benchtime 1x -timeout 90m ./server/
	$(GO) test -run '^$$' -bench NextObserve -timeout 10m ./curriculum/

FUZZTIME ?= 15s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseTask$$' -fuzztime $(FUZZTIME) ./task/
	$(GO) test -run '^$$' -fuzz '^FuzzParseTrajectory$$' -fuzztime $(FUZZTIME) ./trajectory/
	$(GO) test -run '^$$' -fuzz '^FuzzReadFrame$$' -fuzztime $(FUZZTIME) ./recycle/agent/
	$(GO) test -run '^$$' -fuzz '^FuzzFrames$$' -fuzztime $(FUZZTIME) ./server/openenv/
	$(GO) test -run '^$$' -fuzz '^FuzzScriptResult$$' -fuzztime $(FUZZTIME) ./sandbox/session/

clean:
	rm -rf bin
