#!/usr/bin/env bash
# bench-drivers.sh: what the client drivers (docs/driver-protocol.md) cost
# next to the clients themselves, on one healthy local 3-node cluster
# (needs root, java, javac, mvn, python3-venv).
#
#   1. 100,000 messages of 100 bytes, acks=all, to a 1:2:3 topic each:
#      Kafka's own org.apache.kafka.tools.ProducerPerformance (kafka-tools of
#      the cluster's version, the client's defaults otherwise), the java
#      driver (kafka-clients of the same version, same properties) through
#      `kafkabook client produce`, and the librdkafka driver beside them,
#      after one unreported run that warms the brokers up; ROUNDS rounds
#      (default 3) of the three in turn.
#   2. Driver start-up, warm: spawn to startup_complete, three times each.
#
# Usage: sudo scripts/bench-drivers.sh [KAFKA_VERSION]   (default 4.3.1)
# Writes its figures to stdout and keeps its files in $BENCH_DIR (default:
# a fresh temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${1:-4.3.1}
COUNT=${COUNT:-100000}
ROUNDS=${ROUNDS:-3}
WORK=${BENCH_DIR:-$(mktemp -d /tmp/kb-drivers.XXXXXX)}
mkdir -p "$WORK"
export KAFKABOOK_STATE="$WORK/state" # this script's own default cluster
BIN="$WORK/kafkabook"
CACHE=${KAFKABOOK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kafkabook}
TOOLS="$CACHE/kafka-tools-$VERSION"

go build -o "$BIN" ./cmd/kafkabook
echo "bench: work directory $WORK"
"$BIN" client install "java@$VERSION" librdkafka >"$WORK/install.log" 2>&1 || {
	cat "$WORK/install.log" >&2
	exit 1
}

. scripts/bench-lib.sh

topic() {
	java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --create --topic "$1" \
		--replica-assignment 1:2:3 >/dev/null
}

perf() {
	topic "$1"
	java_tool org.apache.kafka.tools.ProducerPerformance --topic "$1" --num-records "$COUNT" --record-size 100 \
		--throughput -1 --producer-props "bootstrap.servers=$BOOT" acks=all | tail -1
}
# The brokers of a fresh cluster are slow until their JIT has warmed up:
# a first ProducerPerformance run, not reported, pays for it. Then ROUNDS
# rounds, each client in turn, so that a busy machine's noise shows as the
# spread of one client's figures instead of favouring one client.
perf bench-warmup >/dev/null
echo "== $COUNT x 100 B, acks=all, one 1:2:3 partition each, $ROUNDS rounds"
for round in $(seq "$ROUNDS"); do
	perf "bench-pp-$round" | sed "s/^/round $round: ProducerPerformance: /"
	for client in "java@$VERSION" librdkafka; do
		t="bench-${client%%@*}-$round"
		topic "$t"
		"$BIN" client produce "$client" --bootstrap "$BOOT" --topic "$t" --count "$COUNT" --size 100 --acks all >"$WORK/$t.log"
		grep -E 'started in|sent:|latency' "$WORK/$t.log" | sed "s/^/round $round: /"
	done
done

echo "== driver start-up, warm (spawn to startup_complete)"
for client in "java@$VERSION" librdkafka; do
	for i in 1 2 3; do
		"$BIN" client produce "$client" --bootstrap "$BOOT" --topic bench-pp --count 0 | grep -o 'started in .*' | sed "s/^/$client: /"
	done
done
