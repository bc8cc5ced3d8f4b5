# The two entry points of README.md. Both need root (network namespaces).
GO ?= go

.PHONY: example test test-full deps build release lint-workflows

# ACTIONLINT checks the GitHub workflows; a pinned version through the Go
# module proxy, so a fresh machine needs nothing installed beforehand.
ACTIONLINT ?= $(GO) run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

# example runs the acks article's runbook end to end on a local three-node
# cluster and writes its evidence and report under output/.
example: deps build
	./kafkabook run examples/producer-acks.md

# test is the tier every change runs, and CI: every package's unit tests
# first (two at a time, no cluster), then the tests that need a real Kafka
# cluster, Docker or Kubernetes (one package at a time), then brief
# fuzzing; it ends with each package's time. It proves every directive,
# every backend's fault table, every client's conformance, the checker
# against an independent reader, and producer-acks end to end; before the
# lanes, prosecheck checks the prose against the published evidence and
# recheck derives its tallies again from the stored reads.
test: deps lint-workflows
	@date -u +'== make test: vet, prosecheck, recheck and the lanes from %H:%M:%S UTC'
	$(GO) vet ./...
	$(GO) run ./cmd/prosecheck -lint -examples examples -output output examples/*.md docs/adr/0001-acks-all-and-min-insync-replicas.md README.md
	$(GO) run ./cmd/kafkabook recheck output
	GO=$(GO) ./scripts/test-go.sh fast

# test-full is what a release needs besides: every example end to end,
# more examples on Kubernetes and the external backend, the fault table on
# the power-loss layer, longer fuzzing and the benchmarks' smoke runs
# (KAFKABOOK_TEST_TIER=full). The nightly workflow runs it.
test-full: deps lint-workflows
	@date -u +'== make test-full: vet, prosecheck, recheck and the lanes from %H:%M:%S UTC'
	$(GO) vet ./...
	$(GO) run ./cmd/prosecheck -lint -examples examples -output output examples/*.md docs/adr/0001-acks-all-and-min-insync-replicas.md README.md
	$(GO) run ./cmd/kafkabook recheck output
	GO=$(GO) ./scripts/test-go.sh full

lint-workflows:
	$(ACTIONLINT)

deps:
	./scripts/install-deps.sh

build:
	$(GO) build -buildvcs=auto -o kafkabook ./cmd/kafkabook

# release builds a kafkabook with echarts embedded, for machines that cannot
# reach the npm registry; plain builds fetch it into the cache when needed.
release:
	./scripts/fetch-echarts.sh
	$(GO) build -tags embed_echarts -o kafkabook ./cmd/kafkabook
