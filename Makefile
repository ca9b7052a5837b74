# specd: the two commands a new machine needs are `make run` and `make test`.
GO      ?= go
VERSION ?= v0.1.0-dev
LDFLAGS := -X main.specdVersion=$(VERSION)

.PHONY: build release release-check run test test-unit test-image test-console fuzz kubectl kube kube-apiserver kube-controller-manager e2e-test conformance conformance-table conformance-ci helm controller plugins image proto proto-tools proto-check bench bench-compare vet fmt verify clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/specd ./cmd/specd

# specd for every supported platform (linux and darwin, amd64 and arm64)
# into RELEASE_DIR, as specd-VERSION-OS-ARCH, with SHA256SUMS: static,
# stamped with VERSION, the commit and its date, and reproducible (the same
# commit and Go release give the same bytes; hack/release says how).
#   make release VERSION=v0.2.0
RELEASE_DIR ?= bin/release

release:
	$(GO) run ./hack/release -version $(VERSION) -out $(RELEASE_DIR)

# The release's own tests, with the slow one: go install ...@VERSION from a
# module proxy holding HEAD (a full build of specd in a new module cache).
release-check:
	SPECD_TEST_GO_INSTALL=1 $(GO) test -timeout 60m ./hack/release/

# Embedded etcd (data in ./data), the example schemas and plugins, on
# https://127.0.0.1:8080 with certificates generated into ./data; then
# `export KUBECONFIG=data/admin.kubeconfig` in another terminal.
run: build plugins
	bin/specd serve --schemas examples/schemas --plugins bin/plugins --data-dir data --listen 127.0.0.1:8080

# Every example plugin (examples/plugins/*, each a main package) into
# bin/plugins, named by its directory: where `make run` and the tests find
# them.
plugins:
	$(GO) build -o bin/plugins/ ./examples/plugins/...

# kubectl for the acceptance tests, built from k8s.io/kubectl at the version
# pinned in test/kubectl/go.mod, so the tests never depend on what the
# machine has installed. Its version is stamped as Kubernetes' release
# builds do (k8s.io/kubectl v0.X.Y is Kubernetes v1.X.Y): unstamped, it
# reports v0.0.0-master+$Format:%H$, which `kubectl version` cannot parse.
KUBECTL_MODULE  = $(shell awk '$$1 == "k8s.io/kubectl" { print $$2 }' test/kubectl/go.mod)
KUBECTL_VERSION = $(patsubst v0.%,v1.%,$(KUBECTL_MODULE))
KUBECTL_PARTS   = $(subst ., ,$(patsubst v%,%,$(KUBECTL_VERSION)))
KUBE_VERSION_PKG := k8s.io/component-base/version
KUBECTL_LDFLAGS = -X $(KUBE_VERSION_PKG).gitVersion=$(KUBECTL_VERSION) \
	-X $(KUBE_VERSION_PKG).gitMajor=$(word 1,$(KUBECTL_PARTS)) \
	-X $(KUBE_VERSION_PKG).gitMinor=$(word 2,$(KUBECTL_PARTS)) \
	-X $(KUBE_VERSION_PKG).gitCommit= \
	-X $(KUBE_VERSION_PKG).gitTreeState=clean \
	-X $(KUBE_VERSION_PKG).buildDate=$(call module_date,test/kubectl,k8s.io/kubectl)

# module_date is the UTC time the module proxy gives module $(2) of the go.mod
# in directory $(1): the build date stamped into kube's tools, fixed for a
# version so that the link is cached and the binary the same each time.
module_date = $(shell cd $(1) && $(GO) list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' $(2))

# KUBECTL_BIN is where it goes; the e2e tests, run without $$KUBECTL, build
# theirs through this target too, into bin/e2e (test/e2e/harness).
KUBECTL_BIN ?= bin/kubectl

kubectl:
	@case "$(KUBECTL_VERSION)" in v1.*.*) ;; *) echo "kubectl: no k8s.io/kubectl v0.X.Y in test/kubectl/go.mod (found '$(KUBECTL_MODULE)')"; exit 1;; esac
	cd test/kubectl && $(GO) build -ldflags "$(KUBECTL_LDFLAGS)" -o $(abspath $(KUBECTL_BIN)) .

# The host cluster of the aggregation tests (test/aggregated) and of the
# chart's server-side dry runs (test/chart, test/testkube):
# kube-apiserver and kube-controller-manager of k8s.io/kubernetes at the
# version test/kube/go.mod pins, stamped with it as kube's release builds
# are. kube-apiserver is test/kube/kube-apiserver, kube's own command with
# --secure-port=0 serving on a free loopback port (it prints which). The
# first build takes several minutes; `nice` leaves the machine usable.
KUBE_MODULE  = $(shell awk '$$1 == "k8s.io/kubernetes" { print $$2 } $$1 == "require" && $$2 == "k8s.io/kubernetes" { print $$3 }' test/kube/go.mod)
KUBE_PARTS   = $(subst ., ,$(patsubst v%,%,$(KUBE_MODULE)))
KUBE_LDFLAGS = -X $(KUBE_VERSION_PKG).gitVersion=$(KUBE_MODULE) \
	-X $(KUBE_VERSION_PKG).gitMajor=$(word 1,$(KUBE_PARTS)) \
	-X $(KUBE_VERSION_PKG).gitMinor=$(word 2,$(KUBE_PARTS)) \
	-X $(KUBE_VERSION_PKG).gitCommit= \
	-X $(KUBE_VERSION_PKG).gitTreeState=clean \
	-X $(KUBE_VERSION_PKG).buildDate=$(call module_date,test/kube,k8s.io/kubernetes)
KUBE_APISERVER_BIN          ?= bin/kube-apiserver
KUBE_CONTROLLER_MANAGER_BIN ?= bin/kube-controller-manager

kube: kube-apiserver kube-controller-manager

kube-apiserver:
	@case "$(KUBE_MODULE)" in v1.*.*) ;; *) echo "kube-apiserver: no k8s.io/kubernetes v1.X.Y in test/kube/go.mod (found '$(KUBE_MODULE)')"; exit 1;; esac
	cd test/kube && nice $(GO) build -ldflags "$(KUBE_LDFLAGS)" -o $(abspath $(KUBE_APISERVER_BIN)) ./kube-apiserver

kube-controller-manager:
	@case "$(KUBE_MODULE)" in v1.*.*) ;; *) echo "kube-controller-manager: no k8s.io/kubernetes v1.X.Y in test/kube/go.mod (found '$(KUBE_MODULE)')"; exit 1;; esac
	cd test/kube && nice $(GO) build -ldflags "$(KUBE_LDFLAGS)" -o $(abspath $(KUBE_CONTROLLER_MANAGER_BIN)) k8s.io/kubernetes/cmd/kube-controller-manager

# Helm for the acceptance tests: helm.sh/helm/v4's own cmd/helm, a tool of
# test/helm/go.mod at the version pinned there, stamped with that version
# as Helm's release builds are (unstamped, `helm version` says v4.3).
HELM_MODULE = $(shell awk '$$1 == "helm.sh/helm/v4" { print $$2 }' test/helm/go.mod)
HELM_BIN   ?= bin/helm

helm:
	@case "$(HELM_MODULE)" in v4.*.*) ;; *) echo "helm: no helm.sh/helm/v4 v4.X.Y in test/helm/go.mod (found '$(HELM_MODULE)')"; exit 1;; esac
	cd test/helm && $(GO) build -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$(HELM_MODULE)" -o $(abspath $(HELM_BIN)) helm.sh/helm/v4/cmd/helm

# specd's OCI image (tools/image, a module of its own): specd and the
# example plugins for linux/amd64 and linux/arm64, from scratch, as one
# image index in an OCI layout in IMAGE_DIR, and with IMAGE_TAR=FILE also
# as one tar file. No Docker daemon, registry or base image; two builds
# of one commit give the same digest (its time is the commit's, or
# SOURCE_DATE_EPOCH). docs/deploy.md says how to push or load it.
IMAGE_DIR ?= bin/image
IMAGE_TAR ?=

image:
	cd tools/image && $(GO) run . -repo $(CURDIR) -version $(VERSION) -out $(abspath $(IMAGE_DIR)) $(if $(IMAGE_TAR),-tar $(abspath $(IMAGE_TAR)))

# The image's test (tools/image/build): reads the layout `make image`
# wrote, runs the specd in it, and builds it again to compare digests.
test-image: image
	cd tools/image && SPECD_IMAGE=$(abspath $(IMAGE_DIR)) SPECD_IMAGE_VERSION=$(VERSION) $(GO) test -count=1 -timeout 45m ./...

# The test controller (test/controller): a controller-runtime manager and a
# client-go leader election candidate, as a user writes them, at the
# versions pinned in test/controller/go.mod.
CONTROLLER_BIN ?= bin/controller

controller:
	cd test/controller && $(GO) build -o $(abspath $(CONTROLLER_BIN)) .

# Kubernetes' own e2e test binary (k8s.io/kubernetes/test/e2e, built with
# `go test -c`) at the version test/kube/go.mod pins: the conformance
# tests run against specd. Cold, it compiles most of Kubernetes (see
# docs/conformance.md for how long that takes).
E2E_TEST_BIN ?= bin/e2e.test

e2e-test:
	cd test/kube && nice $(GO) test -c -o $(abspath $(E2E_TEST_BIN)) k8s.io/kubernetes/test/e2e

# The focus of docs/conformance.md, run against a specd serving its
# built-in kinds (the tests test/conformance/notes.txt says are not
# applicable are skipped; CONFORMANCE_FLAGS=-all runs them too); the
# report, the tests' output and specd's log go to bin/conformance, and the
# table into docs/conformance.md and test/conformance/passing.txt.
# conformance-table writes them again from that report (after a note is
# edited).
CONFORMANCE_DIR   ?= bin/conformance
CONFORMANCE_FLAGS ?=
CONFORMANCE_TABLE  = -doc docs/conformance.md -readme README.md -passing test/conformance/passing.txt -report-dir $(CONFORMANCE_DIR)

conformance: build kubectl e2e-test
	$(GO) run ./test/conformance/cmd/conformance -e2e $(E2E_TEST_BIN) -specd bin/specd -kubectl $(KUBECTL_BIN) $(CONFORMANCE_TABLE) $(CONFORMANCE_FLAGS)

conformance-table:
	$(GO) run ./test/conformance/cmd/conformance -table-only $(CONFORMANCE_TABLE)

# The tests of test/conformance/passing.txt, which must all pass: the step
# of .ci/run after make test (which built most of what e2e.test needs,
# with kube-apiserver).
conformance-ci: build kubectl e2e-test
	SPECD_BIN=$(CURDIR)/bin/specd KUBECTL=$(abspath $(KUBECTL_BIN)) E2E_TEST=$(abspath $(E2E_TEST_BIN)) $(GO) test -tags conformance -count=1 -timeout 30m -run TestPassing ./test/conformance/

# -timeout is per test binary: hack/release builds specd with the
# release's flags (CGO_ENABLED=0 -trimpath), which share no build cache with
# the rest, and on a cold cache beside the other packages that build alone
# took over 15 minutes on 2 cores.
test: build kubectl helm controller plugins kube vet
	SPECD_BIN=$(CURDIR)/bin/specd KUBECTL=$(CURDIR)/bin/kubectl HELM=$(CURDIR)/bin/helm CONTROLLER=$(CURDIR)/bin/controller PLUGINS_DIR=$(CURDIR)/bin/plugins \
	KUBE_APISERVER=$(CURDIR)/$(KUBE_APISERVER_BIN) KUBE_CONTROLLER_MANAGER=$(CURDIR)/$(KUBE_CONTROLLER_MANAGER_BIN) $(GO) test -count=1 -timeout 25m ./...
	cd test/controller && SPECD_BIN=$(CURDIR)/bin/specd $(GO) test -count=1 ./...
	$(MAKE) test-image
	$(MAKE) test-console
	$(MAKE) fuzz

# The console (server/console) in headless Chromium, Debian's chromium
# package (.ci/run installs it), driven by chromedp in test/console, a
# module of its own. Screenshots of each scenario go to
# bin/console-artifacts.
test-console: build plugins
	mkdir -p bin/console-artifacts
	cd test/console && SPECD_BIN=$(CURDIR)/bin/specd PLUGINS_DIR=$(CURDIR)/bin/plugins $(GO) test -count=1 -timeout 10m -artifacts -outputdir $(CURDIR)/bin/console-artifacts ./...

# FuzzWritePath for a bounded number of inputs (20-40 s on two cores);
# `make fuzz FUZZTIME=200000x` runs it longer. The budget is a count: with
# Go 1.26 a duration can fail with no failing input (golang/go#75804).
# A failure writes its input under engine/testdata/fuzz/, where plain
# `go test ./engine/` replays it.
FUZZTIME ?= 5000x
fuzz:
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzWritePath$$' -fuzztime $(FUZZTIME) ./engine/

# Unit tests only: no binaries, no acceptance tests.
test-unit:
	$(GO) test -count=1 -short ./schemas/... ./engine/... ./server/... ./converters/... ./loadtest/...

vet:
	$(GO) vet ./...
	cd tools/image && $(GO) vet ./...
	cd test/console && $(GO) vet ./...
	cd test/controller && $(GO) vet ./...

# The plugin protocol's Go code (plugins/proto/**/*.pb.go) from its .proto
# files, with buf and the protoc-gen-go(-grpc) plugins at pinned versions,
# built from the module proxy into bin/proto-tools and kept out of go.mod:
# no protoc is needed. proto-check regenerates into a scratch directory
# and fails if the committed code differs.
BUF_VERSION                := v1.55.1
PROTOC_GEN_GO_VERSION      := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
PROTO_TOOLS := $(CURDIR)/bin/proto-tools/buf-$(BUF_VERSION)_go-$(PROTOC_GEN_GO_VERSION)_grpc-$(PROTOC_GEN_GO_GRPC_VERSION)
PROTO_ENV   := PATH="$(PROTO_TOOLS):$$PATH"

proto-tools:
	@test -x $(PROTO_TOOLS)/buf || GOBIN=$(PROTO_TOOLS) $(GO) install github.com/bufbuild/buf/cmd/buf@$(BUF_VERSION)
	@test -x $(PROTO_TOOLS)/protoc-gen-go || GOBIN=$(PROTO_TOOLS) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	@test -x $(PROTO_TOOLS)/protoc-gen-go-grpc || GOBIN=$(PROTO_TOOLS) $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)

proto: proto-tools
	cd plugins/proto && $(PROTO_ENV) buf generate

proto-check: proto-tools
	rm -rf bin/proto-check && mkdir -p bin/proto-check
	cd plugins/proto && $(PROTO_ENV) buf generate -o $(CURDIR)/bin/proto-check
	cd plugins/proto && find . -name '*.pb.go' | sort > $(CURDIR)/bin/proto-check.committed
	cd bin/proto-check && find . -name '*.pb.go' | sort > $(CURDIR)/bin/proto-check.generated
	diff -u bin/proto-check.committed bin/proto-check.generated
	cd bin/proto-check && for f in $$(find . -name '*.pb.go'); do diff -u $$f $(CURDIR)/plugins/proto/$$f || exit 1; done
	@echo "proto-check: the generated code matches plugins/proto"

fmt:
	gofmt -w $$(git ls-files '*.go')

# verify fails when formatting or go.mod would change.
verify: vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) mod tidy -diff
	cd tools/image && $(GO) mod tidy -diff
	cd test/console && $(GO) mod tidy -diff

# The load tool against a fresh specd serving the benchmark schema; see
# docs/performance.md.
bench: build
	./hack/bench.sh

# Go benchmarks BENCH of package PKG at git ref BASE (main) against the
# work tree, in ROUNDS (4) alternating rounds, compared by benchstat:
#   make bench-compare PKG=./engine/rbac/ BENCH=BenchmarkAggregations BASE=main
# (make reads a $ in BENCH: write $$, or run hack/bench-compare.sh itself)
bench-compare:
	PKG="$(PKG)" BENCH="$(BENCH)" BASE="$(BASE)" ROUNDS="$(ROUNDS)" ./hack/bench-compare.sh

clean:
	rm -rf bin
