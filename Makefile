# rbx — make targets. `make demo` and `make test` are the quick start.
GO      ?= go
BIN     := bin/rbx
PKGS    := ./...
# Integration tests use the real Docker engine; the budget covers a cold
# Debian image build (debootstrap) on a fresh machine.
# importer/tbench builds the terminal-bench corpus' task images over the
# toolchain images (slow commits on fuse-overlayfs): the budget covers that.
TEST_TIMEOUT ?= 45m

.PHONY: all build images demo test unit race bench fuzz vet clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/rbx

# Base images are built locally (no registry): static busybox, Debian bookworm.
images: build
	./$(BIN) images build --if-engine

demo: images
	./$(BIN) demo

# Test artefacts (the dashboard's screenshots) are kept in test-artefacts/.
test: images vet
	RBX_TEST_ARTEFACTS=$(CURDIR)/test-artefacts $(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)
	python3 -m unittest discover -s clients/python -v

# Unit tests only: integration tests skip themselves without an engine, so
# this is what runs on machines without Docker.
unit:
	$(GO) test -count=1 -short -timeout 5m $(PKGS)

# Unit tests under the race detector (CI runs it beside make test): -short
# keeps the engine tests out, so it stays within minutes.
race:
	$(GO) test -race -short -count=1 -timeout 20m $(PKGS)

vet:
	$(GO) vet $(PKGS)

# Benchmarks print their figures next to their baselines in one run (the
# docker CLI only as a measured baseline, its rows skipped without it).
bench: images
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./replayer/
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./reset/
	$(GO) test -run '^$$' -bench ColdReplayProcess -benchtime 1x -timeout 30m ./cmd/rbx/
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./prefilter/
	$(GO) test -run '^$$' -bench . -benchtime 200x -timeout 30m ./sandbox/docker/
	$(GO) test -run '^$$' -bench 'Step' -benchtime 200x -timeout 30m ./sandbox/containerd/
	$(GO) test -run '^$$' -bench 'Create' -benchtime 20x -timeout 30m ./sandbox/containerd/
	$(GO) test -run '^$$' -bench ServeLoad -benchtime 1x -timeout 30m ./server/
	$(GO) test -run '^$$' -bench PrefixCache -benchtime 1x -timeout 30m ./server/
	$(GO) test -run '^$$' -bench NextObserve -timeout 10m ./curriculum/

FUZZTIME ?= 15s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseTask$$' -fuzztime $(FUZZTIME) ./task/
	$(GO) test -run '^$$' -fuzz '^FuzzParseTrajectory$$' -fuzztime $(FUZZTIME) ./trajectory/

clean:
	rm -rf bin
