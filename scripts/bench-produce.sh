#!/usr/bin/env bash
# bench-produce.sh: what kafkabook costs next to Kafka, measured side by
# side on one healthy local 3-node cluster (needs root, java, mvn).
#
#   1. 100,000 messages of 100 bytes, acks=all, to a 1:2:3 topic: the wall
#      time of kafkabook's produce step (ledger written to events.jsonl)
#      against org.apache.kafka.tools.ProducerPerformance (kafka-tools of
#      the same Kafka version, same record size, same cluster, acks=all,
#      idempotence off like kafkabook's default).
#   2. Peak RSS of `kafkabook run` (report rendering included) for 100,000
#      and 1,000,000 messages, and the evidence's bytes per message.
#   3. `kafkabook render` of 100 runs x 10,000 messages, loading included.
#   4. Rate accuracy: --rate 2000/s --for 10s.
#
# Usage: sudo scripts/bench-produce.sh [KAFKA_VERSION]   (default 4.3.1)
# Writes its figures to stdout and keeps its files in $BENCH_DIR
# (default: a fresh temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${1:-4.3.1}
WORK=${BENCH_DIR:-$(mktemp -d /tmp/kb-bench.XXXXXX)}
mkdir -p "$WORK"
export KAFKABOOK_STATE="$WORK/state" # a private state directory: this script's own default cluster
BIN="$WORK/kafkabook"
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kafkabook
TOOLS="$CACHE/kafka-tools-$VERSION"
export GOFLAGS=${GOFLAGS:-}

command -v /usr/bin/time >/dev/null || { apt-get update -q && apt-get install -y -q time; }
go build -o "$BIN" ./cmd/kafkabook
echo "bench: work directory $WORK"

. scripts/bench-lib.sh

# runbook NAME BODY: a one-run runbook on this cluster.
runbook() {
	printf -- '---\ntitle: bench %s\nkafka: %s\nnodes: 3\nrepeat: 1\n---\n\n```kafka\n%s\n```\n' "$1" "$VERSION" "$2" >"$WORK/$1.md"
}
# run NAME: runs it with /usr/bin/time; prints the run directory. It also
# notes kafkabook's peak RSS when the run's summary appears, before the
# report is rendered (in $WORK/NAME.engine-hwm, kB).
run() {
	/usr/bin/time -v -o "$WORK/$1.time" "$BIN" run "$WORK/$1.md" --out "$WORK/out" --record-host=false >"$WORK/$1.log" 2>&1 &
	local tpid=$! kb="" hwm=""
	while kill -0 "$tpid" 2>/dev/null; do
		[ -n "$kb" ] || kb=$(pgrep -P "$tpid" || true)
		if [ -n "$kb" ] && [ -z "$hwm" ] && grep -q '^evidence:' "$WORK/$1.log"; then
			hwm=$(awk '/VmHWM/ {print $2}' "/proc/$kb/status" 2>/dev/null || true)
		fi
		sleep 0.02
	done
	echo "${hwm:-0}" >"$WORK/$1.engine-hwm"
	wait "$tpid" || {
		cat "$WORK/$1.log" >&2
		return 1
	}
	ls -d "$WORK/out/$1/kafka-$VERSION"/2* | tail -1
}
engine_mb() { awk '{printf "%.0f", $1/1024}' "$WORK/$1.engine-hwm"; }
rss_mb() { awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$WORK/$1.time"; }
# step_seconds DIR TEXT: wall time of the step whose text starts with TEXT.
step_seconds() {
	python3 - "$1" "$2" <<'EOF'
import json, sys, datetime
r = json.load(open(sys.argv[1] + "/results.json"))
def t(s):
    s = s.rstrip("Z")
    base, _, frac = s.partition(".")
    return datetime.datetime.fromisoformat(base).timestamp() + float("0." + (frac or "0"))
for st in r["runs"][0]["steps"]:
    if st["text"].startswith(sys.argv[2]):
        print("%.3f" % (t(st["end"]) - t(st["start"])))
        break
EOF
}
evidence_bytes() { du -cb "$1/results.json" "$1/events.jsonl" | tail -1 | cut -f1; }

echo
echo "== 1. 100,000 messages, 100 bytes, acks=all, topic 1:2:3 =="
runbook bench100k "topic create bench --replicas 1:2:3
produce bench --acks all --count 100000 --size 100"
D100=$(run bench100k)
KB_STEP=$(step_seconds "$D100" "produce bench")
grep -h 'acked 100000' "$WORK/bench100k.log" | head -1
java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --create --topic pp --replica-assignment 1:2:3 >/dev/null
PP_START=$(date +%s.%N)
java_tool org.apache.kafka.tools.ProducerPerformance --topic pp --num-records 100000 --record-size 100 --throughput -1 \
	--producer-props bootstrap.servers="$BOOT" acks=all enable.idempotence=false | tee "$WORK/pp.log" | tail -1
PP_END=$(date +%s.%N)
PP_WALL=$(python3 -c "print('%.3f' % ($PP_END - $PP_START))")
PP_SEND=$(awk '/records sent/ {gsub(/[(,]/, ""); print 100000 / $4}' "$WORK/pp.log" | tail -1)
# The same with the batching franz-go does by default (1 MB batches, no
# linger), to tell the client's batching from the tool's own cost.
java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --create --topic pp2 --replica-assignment 1:2:3 >/dev/null
PP2_START=$(date +%s.%N)
java_tool org.apache.kafka.tools.ProducerPerformance --topic pp2 --num-records 100000 --record-size 100 --throughput -1 \
	--producer-props bootstrap.servers="$BOOT" acks=all enable.idempotence=false batch.size=1048576 linger.ms=0 | tee "$WORK/pp2.log" | tail -1
PP2_END=$(date +%s.%N)
PP2_WALL=$(python3 -c "print('%.3f' % ($PP2_END - $PP2_START))")
PP2_SEND=$(awk '/records sent/ {gsub(/[(,]/, ""); print 100000 / $4}' "$WORK/pp2.log" | tail -1)
echo "kafkabook produce step:                  ${KB_STEP}s"
echo "ProducerPerformance, Kafka's defaults:   ${PP_WALL}s wall (JVM start included), $(printf '%.3f' "$PP_SEND")s by its own records/sec"
echo "ProducerPerformance, batch.size=1048576: ${PP2_WALL}s wall (JVM start included), $(printf '%.3f' "$PP2_SEND")s by its own records/sec"
python3 -c "print('ratio ProducerPerformance / kafkabook step: defaults %.2f wall, %.2f own count; 1 MB batches %.2f wall, %.2f own count' % ($PP_WALL / $KB_STEP, $PP_SEND / $KB_STEP, $PP2_WALL / $KB_STEP, $PP2_SEND / $KB_STEP))"

echo
echo "== 2. peak RSS and evidence size =="
echo "100,000 messages: peak RSS $(engine_mb bench100k) MB when the run ended, $(rss_mb bench100k) MB with the report rendered, evidence $(python3 -c "print('%.1f' % ($(evidence_bytes "$D100") / 100000))") bytes/message (results.json + events.jsonl)"
runbook bench1m "topic create bench --replicas 1:2:3
produce bench --acks all --count 1000000 --size 100"
D1M=$(run bench1m)
grep -h 'acked 1000000' "$WORK/bench1m.log" | head -1
echo "1,000,000 messages: peak RSS $(engine_mb bench1m) MB when the run ended, $(rss_mb bench1m) MB with the report rendered, step $(step_seconds "$D1M" "produce bench")s, evidence $(python3 -c "print('%.1f' % ($(evidence_bytes "$D1M") / 1000000))") bytes/message"
/usr/bin/time -v -o "$WORK/render1m.time" "$BIN" render "$WORK/out" >/dev/null 2>&1
echo "render of that run alone: peak RSS $(rss_mb render1m) MB"

echo
echo "== 3. render of 100 runs x 10,000 messages =="
go run ./cmd/genevidence -runs 100 -messages 10000 "$WORK/site/synthetic/kafka-$VERSION/20261130T060000Z"
/usr/bin/time -v -o "$WORK/render.time" "$BIN" render "$WORK/site" >/dev/null
awk -F': ' '/Elapsed \(wall clock\)/ {print "render: " $2 " wall"} /Maximum resident/ {printf "render: peak RSS %.0f MB\n", $2/1024}' "$WORK/render.time"

echo
echo "== 4. rate accuracy: --rate 2000/s --for 10s =="
runbook rate "topic create rate --replicas 1:2:3
produce rate --acks all --rate 2000/s --for 10s"
DR=$(run rate)
grep -h 'acked ' "$WORK/rate.log" | grep -v '…' | head -1
python3 - "$DR" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
l = r["runs"][0]["topics"][0]["ledger"]
def col(s, n):
    out = []
    for tok in s.split(","):
        v, _, k = tok.partition("*")
        out += [int(v)] * int(k or 1)
    assert len(out) == n
    return out
n = l["count"]
intended, acc = [], 0
for d in col(l["intended"], n):
    acc += d
    intended.append(acc)
acked = [a + i for a, i in zip(col(l["acked"], n), intended)]
status = col(l["status"], n)
t0 = min(intended)
within = sum(1 for a, s in zip(acked, status) if s == 0 and a - t0 <= 10e9)
total = sum(1 for s in status if s == 0)
print("acked %d in all, %d within 10 s of the start (%.1f%% of 20,000); sent over %.3f s" %
      (total, within, 100 * within / 20000, (max(intended) - t0) / 1e9))
EOF
echo
echo "bench: files in $WORK"
