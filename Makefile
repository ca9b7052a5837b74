# specd: the two commands a new machine needs are `make run` and `make test`.
GO      ?= go
VERSION ?= v0.1.0-dev
LDFLAGS := -X main.specdVersion=$(VERSION)

.PHONY: build run test test-unit kubectl bench vet fmt verify clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/specd ./cmd/specd

# Embedded etcd (data in ./data), the example schemas, on 127.0.0.1:8080.
run: build
	bin/specd serve --schemas examples/schemas --data-dir data --listen 127.0.0.1:8080

# kubectl for the acceptance tests, built from k8s.io/kubectl at the version
# pinned in test/kubectl/go.mod, so the tests never depend on what the
# machine has installed.
kubectl:
	cd test/kubectl && $(GO) build -o ../../bin/kubectl .

test: build kubectl vet
	SPECD_BIN=$(CURDIR)/bin/specd KUBECTL=$(CURDIR)/bin/kubectl $(GO) test -count=1 -timeout 15m ./...

# Unit tests only: no binaries, no acceptance tests.
test-unit:
	$(GO) test -count=1 -short ./schemas/... ./engine/... ./server/... ./converters/... ./loadtest/...

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

# verify fails when formatting or go.mod would change.
verify: vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) mod tidy -diff

# The load tool against a fresh specd serving the benchmark schema; see
# docs/performance.md.
bench: build
	./hack/bench.sh

clean:
	rm -rf bin
