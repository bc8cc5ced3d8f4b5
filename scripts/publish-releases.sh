#!/bin/sh
# publish-releases.sh runs every example runbook once on every Kafka
# release and publishes the evidence under output/, then renders the site:
# the index puts the releases side by side, flags every expectation whose
# verdict differs between them and links a comparison of each pair of
# consecutive releases. A run whose expectation failed is evidence too and
# is kept; the script goes on.
#
#   scripts/publish-releases.sh                       # every release, every example
#   RELEASES="4.0.0 4.4.0" scripts/publish-releases.sh examples/min-insync.md
#
# Needs what `make example` needs (root, Java, Maven); builds kafkabook from
# this checkout, which should be clean so that provenance names its commit.
set -eu
cd "$(dirname "$0")/.."
RELEASES=${RELEASES:-"4.0.0 4.0.1 4.0.2 4.1.0 4.1.1 4.1.2 4.2.0 4.2.1 4.2.2 4.3.0 4.3.1 4.4.0"}
REPEAT=${REPEAT:-1}
if [ $# -eq 0 ]; then set -- examples/*.md; fi
go build -buildvcs=true -o ./kafkabook ./cmd/kafkabook
for release in $RELEASES; do
	for runbook in "$@"; do
		echo "=== $runbook on Kafka $release"
		code=0
		./kafkabook run "$runbook" --kafka "$release" --repeat "$REPEAT" --record-host=false >/dev/null || code=$?
		case $code in
		0) echo "    every expectation held" ;;
		1) echo "    an expectation failed (kept: it is the finding)" ;;
		*) echo "    could not complete (exit $code); partial evidence kept" ;;
		esac
	done
done
./kafkabook render output
