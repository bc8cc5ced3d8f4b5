#!/bin/sh
# fetch-echarts.sh prepares a release build that embeds Apache ECharts: it
# puts the pinned echarts (dist/echarts.min.js, LICENSE, NOTICE) into
# internal/echarts/embed/, then
#
#   go build -tags embed_echarts ./cmd/kafkabook
#
# compiles them in. A plain `go build` or `go install` needs none of this: it
# fetches the same files into the cache ($KAFKABOOK_CACHE, default
# ~/.cache/kafkabook/echarts-<version>/) when it first renders a report.
#
# The version and its sha512 are pinned in one place, internal/echarts
# (Version, Integrity); the download goes through the same Go code as at run
# time (npm registry tarball, integrity checked before extraction;
# KAFKABOOK_NPM_REGISTRY names a mirror). It needs only Go.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go run ./cmd/fetch-echarts internal/echarts/embed
