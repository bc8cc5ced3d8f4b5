#!/usr/bin/env bash
# bench-produce.sh: what kafkabook costs next to Kafka and next to the
# clients it drives, measured side by side on one healthy local 3-node
# cluster in one run (needs root, java, javac, mvn, python3-venv).
#
#   1. The clients: 100,000 messages of 100 bytes, acks=all, to a 1:2:3
#      topic each, ROUNDS rounds (default 3) after one unreported run that
#      warms the brokers up, each round every producer in turn (so that a
#      busy machine's noise shows as the spread of one producer's figures):
#      Kafka's own org.apache.kafka.tools.ProducerPerformance (kafka-tools
#      of the cluster's version: kafka-clients' defaults, acks=all); a
#      `kafkabook run` produce step through the java driver (the same
#      kafka-clients, the same properties: the gap is kafkabook's own
#      cost, target >= 0.9x), through librdkafka and through franz-go; and
#      the two drivers alone, without the engine (`kafkabook client
#      produce`). A run's throughput is its acknowledged messages over the
#      span from the first intended send to the last ack in its ledger (the
#      driver's start-up excluded, as ProducerPerformance's own figure
#      excludes the JVM's); with it kafkabook's peak RSS (the kafkabook
#      process alone, not the driver's) when the run ended.
#   2. Driver start-up, warm: spawn to startup_complete, three times each
#      (target <= 1.5 s for the JVM).
#   3. kafkabook's peak RSS and evidence bytes per message for 100,000 and
#      1,000,000 messages through franz-go.
#   4. `kafkabook render` of 100 runs x 10,000 messages, loading included.
#   5. Rate accuracy: --rate 2000/s --for 10s.
#
# Usage: sudo scripts/bench-produce.sh [KAFKA_VERSION]   (default 4.3.1)
# ROUNDS, LIBRDKAFKA (a confluent-kafka release; default: the driver's
# default) and BENCH_DIR (default: a fresh temporary directory, where the
# files stay) may be set. Writes its figures to stdout, the table of part 1
# last, in Markdown.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${1:-4.3.1}
ROUNDS=${ROUNDS:-3}
COUNT=100000
WORK=${BENCH_DIR:-$(mktemp -d /tmp/kb-bench.XXXXXX)}
mkdir -p "$WORK"
export KAFKABOOK_STATE="$WORK/state" # a private state directory: this script's own default cluster
BIN="$WORK/kafkabook"
CACHE=${KAFKABOOK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kafkabook}
TOOLS="$CACHE/kafka-tools-$VERSION"
export GOFLAGS=${GOFLAGS:-}

command -v /usr/bin/time >/dev/null || { apt-get update -q && apt-get install -y -q time; }
go build -o "$BIN" ./cmd/kafkabook
echo "bench: work directory $WORK; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
JAVA="java@$VERSION"
RDK="librdkafka${LIBRDKAFKA:+@$LIBRDKAFKA}"
"$BIN" client install "$JAVA" "$RDK" >"$WORK/install.log" 2>&1 || {
	cat "$WORK/install.log" >&2
	exit 1
}

. scripts/bench-lib.sh

# runbook NAME BODY: a one-run runbook on this cluster.
runbook() {
	printf -- '---\ntitle: bench %s\nkafka: %s\nnodes: 3\nrepeat: 1\n---\n\n```kafka\n%s\n```\n' "$1" "$VERSION" "$2" >"$WORK/$1.md"
}
# run NAME [CLIENT]: runs it with /usr/bin/time; prints the run directory.
# It also notes kafkabook's peak RSS (VmHWM of the kafkabook process alone,
# not of a driver it runs) as of the run's summary, before the report is
# rendered, in $WORK/NAME.engine-hwm (kB): read every 20 ms until the
# summary appears, so that a run that ends between two reads still has
# its last one.
run() {
	local client=${2:-franz-go} dir="kafka-$VERSION"
	[ "$client" = franz-go ] || dir="kafka-$VERSION-${client/@/-}"
	/usr/bin/time -v -o "$WORK/$1.time" "$BIN" run "$WORK/$1.md" --client "$client" --out "$WORK/out" --record-host=false >"$WORK/$1.log" 2>&1 &
	local tpid=$! kb="" hwm="" now="" done=""
	while kill -0 "$tpid" 2>/dev/null; do
		[ -n "$kb" ] || kb=$(pgrep -P "$tpid" || true)
		if [ -n "$kb" ] && [ -z "$done" ]; then
			now=$(awk '/VmHWM/ {print $2}' "/proc/$kb/status" 2>/dev/null || true)
			[ -z "$now" ] || hwm=$now
			! grep -q '^evidence:' "$WORK/$1.log" || done=1
		fi
		sleep 0.02
	done
	echo "${hwm:-0}" >"$WORK/$1.engine-hwm"
	wait "$tpid" || {
		cat "$WORK/$1.log" >&2
		return 1
	}
	ls -d "$WORK/out/$1/$dir"/2* | tail -1
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
# evidence_bytes DIR: the bytes of the run's evidence as kept (results.json
# and the compressed events.jsonl.gz).
evidence_bytes() { du -cb "$1/results.json" "$1"/events.jsonl* | tail -1 | cut -f1; }
# ledger DIR [SECONDS]: the first topic's ledger of the run in DIR: its
# acknowledged messages and their throughput, from the first intended send
# to the last ack; with SECONDS, also how many were acknowledged within that
# long of the first intended send.
ledger() {
	python3 - "$@" <<'EOF'
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
status = col(l["status"], n)
acked = [a + i for a, i, s in zip(col(l["acked"], n), intended, status) if s == 0]
t0 = min(intended)
span = (max(acked) - t0) / 1e9
if len(sys.argv) > 2:
    within = sum(1 for a in acked if a - t0 <= float(sys.argv[2]) * 1e9)
    print("acked %d in all, %d within %s s of the start; sent over %.3f s" %
          (len(acked), within, sys.argv[2], (max(intended) - t0) / 1e9))
else:
    print("%d %.0f %.3f" % (len(acked), len(acked) / span, span))
EOF
}
topic() {
	java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --create --topic "$1" \
		--replica-assignment 1:2:3 >/dev/null
}
# FIGURES holds one line per measurement: round, producer, msgs/s, peak RSS
# of kafkabook in MB ("-" when kafkabook was not running).
FIGURES="$WORK/figures.tsv"
: >"$FIGURES"
figure() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$FIGURES"; }

# perf TOPIC: ProducerPerformance with kafka-clients' defaults and acks=all,
# the java driver's properties; prints its records/sec.
perf() {
	topic "$1"
	java_tool org.apache.kafka.tools.ProducerPerformance --topic "$1" --num-records "$COUNT" --record-size 100 \
		--throughput -1 --producer-props "bootstrap.servers=$BOOT" acks=all >"$WORK/$1.log"
	tail -1 "$WORK/$1.log" | awk '{gsub(/[(,]/, ""); print $4}'
}

echo
echo "== 1. $COUNT messages, 100 bytes, acks=all, one 1:2:3 topic each, $ROUNDS rounds =="
perf bench-warmup >/dev/null
for round in $(seq "$ROUNDS"); do
	pp=$(perf "pp-$round")
	figure "$round" "ProducerPerformance (kafka-clients $VERSION)" "$pp" -
	echo "round $round: ProducerPerformance: $pp msg/s"
	for client in "$JAVA" "$RDK" franz-go; do
		name="run-${client%%@*}-$round"
		runbook "$name" "topic create bench --replicas 1:2:3
produce bench --acks all --count $COUNT --size 100"
		d=$(run "$name" "$client")
		read -r acked rate span < <(ledger "$d")
		[ "$acked" = "$COUNT" ] || echo "round $round: $client: only $acked of $COUNT acknowledged" >&2
		figure "$round" "kafkabook run, $client" "$rate" "$(engine_mb "$name")"
		echo "round $round: kafkabook run through $client: $rate msg/s ($acked acked over ${span}s; step $(step_seconds "$d" "produce bench")s), kafkabook peak RSS $(engine_mb "$name") MB"
	done
	for client in "$JAVA" "$RDK"; do
		t="alone-${client%%@*}-$round"
		topic "$t"
		"$BIN" client produce "$client" --bootstrap "$BOOT" --topic "$t" --count "$COUNT" --size 100 --acks all >"$WORK/$t.log"
		rate=$(grep -o '([0-9]* msg/s)' "$WORK/$t.log" | tr -dc 0-9)
		figure "$round" "$client driver alone (client produce)" "$rate" -
		echo "round $round: $client driver alone: $(grep -E 'sent:' "$WORK/$t.log")"
	done
done

echo
echo "== 2. driver start-up, warm (spawn to startup_complete) =="
for client in "$JAVA" "$RDK"; do
	for i in 1 2 3; do
		"$BIN" client produce "$client" --bootstrap "$BOOT" --topic pp-1 --count 0 | grep -o 'started in .*' | sed "s/^/$client: /"
	done
done

echo
echo "== 3. peak RSS and evidence size, franz-go =="
D100=$(ls -d "$WORK/out/run-franz-go-1/kafka-$VERSION"/2* | tail -1)
echo "100,000 messages: peak RSS $(engine_mb run-franz-go-1) MB when the run ended, $(rss_mb run-franz-go-1) MB with the report rendered, evidence $(python3 -c "print('%.1f' % ($(evidence_bytes "$D100") / 100000))") bytes/message (results.json + events.jsonl.gz)"
runbook bench1m "topic create bench --replicas 1:2:3
produce bench --acks all --count 1000000 --size 100"
D1M=$(run bench1m)
grep -h 'acked 1000000' "$WORK/bench1m.log" | head -1
echo "1,000,000 messages: peak RSS $(engine_mb bench1m) MB when the run ended, $(rss_mb bench1m) MB with the report rendered, step $(step_seconds "$D1M" "produce bench")s, evidence $(python3 -c "print('%.1f' % ($(evidence_bytes "$D1M") / 1000000))") bytes/message"
mkdir -p "$WORK/out1m" && cp -r "$WORK/out/bench1m" "$WORK/out1m/"
/usr/bin/time -v -o "$WORK/render1m.time" "$BIN" render "$WORK/out1m" >/dev/null 2>&1
echo "render of that run alone: peak RSS $(rss_mb render1m) MB"

echo
echo "== 4. render of 100 runs x 10,000 messages =="
go run ./cmd/genevidence -runs 100 -messages 10000 "$WORK/site/synthetic/kafka-$VERSION/20261130T060000Z"
/usr/bin/time -v -o "$WORK/render.time" "$BIN" render "$WORK/site" >/dev/null
awk -F': ' '/Elapsed \(wall clock\)/ {print "render: " $2 " wall"} /Maximum resident/ {printf "render: peak RSS %.0f MB\n", $2/1024}' "$WORK/render.time"

echo
echo "== 5. rate accuracy: --rate 2000/s --for 10s =="
runbook rate "topic create rate --replicas 1:2:3
produce rate --acks all --rate 2000/s --for 10s"
DR=$(run rate)
ledger "$DR" 10

echo
echo "== the producers side by side: $COUNT x 100 B, acks=all, median of $ROUNDS rounds; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end =="
# The ratio to ProducerPerformance is taken within each round (a shared
# machine's load swings between rounds more than within one), then the
# median of the rounds'.
python3 - "$FIGURES" <<'EOF'
import statistics, sys
rows, pp = {}, {}
for line in open(sys.argv[1]):
    rnd, who, rate, rss = line.rstrip("\n").split("\t")
    r = rows.setdefault(who, ([], [], []))
    r[0].append(float(rate))
    r[1].append(rnd)
    if rss != "-":
        r[2].append(float(rss))
    if who.startswith("ProducerPerformance"):
        pp[rnd] = float(rate)
print("| producer | msg/s, median | each round | x ProducerPerformance, median (each round) | kafkabook peak RSS, MB |")
print("| --- | ---: | --- | ---: | ---: |")
for who, (rates, rnds, rss) in rows.items():
    ratios = [r / pp[n] for r, n in zip(rates, rnds)]
    print("| %s | %.0f | %s | %.2f (%s) | %s |" % (who, statistics.median(rates), ", ".join("%.0f" % r for r in rates),
          statistics.median(ratios), ", ".join("%.2f" % r for r in ratios), "%.0f" % max(rss) if rss else "-"))
EOF
echo
echo "bench: files in $WORK"
