# The two entry points of README.md. Both need root (network namespaces).
GO ?= go

.PHONY: example test deps build release lint-workflows

# ACTIONLINT checks the GitHub workflows; a pinned version through the Go
# module proxy, so a fresh machine needs nothing installed beforehand.
ACTIONLINT ?= $(GO) run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

# example runs the acks article's runbook end to end on a local three-node
# cluster and writes its evidence and report under output/.
example: deps build
	./kafkabook run examples/producer-acks.md

# test runs every test against real Kafka, then fuzzes the runbook parser
# briefly.
test: deps lint-workflows
	$(GO) vet ./...
	$(GO) run ./cmd/prosecheck -output output examples/*.md docs/adr/0001-acks-all-and-min-insync-replicas.md
	$(GO) test -p 1 -count=1 -timeout 60m ./...
	$(GO) test -run '^$$' -fuzz FuzzLoad -fuzztime 20s ./runbook/
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime 10s ./results/
	$(GO) test -run '^$$' -fuzz FuzzReplay -fuzztime 10s ./results/

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
