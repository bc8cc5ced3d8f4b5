#!/bin/sh
# test-go.sh runs the Go tests of a tier (`make test`: fast, the default;
# `make test-full`: full) in two lanes, and ends with what each package
# cost, so that a growing suite shows in every CI log.
#
#   unit lane     every package with -short: nothing that needs a Kafka
#                 cluster, Docker or Kubernetes (testcluster skips those
#                 under -short); two packages at a time, so a unit failure
#                 is reported within minutes.
#   cluster lane  the packages whose tests import internal/testcluster,
#                 one at a time: clusters, timing-sensitive tests
#                 (latency expectations) and the drivers' JVMs never run
#                 beside each other on two cores.
#   fuzz          each fuzz target for a while (longer in the full tier).
#
# A lane's failure does not stop the next: a CI run reports everything it
# can. The exit status is 1 when anything failed.
set -u
tier=${1:-fast}
case "$tier" in
fast) fuzztime=5s ;;
full)
	fuzztime=2m
	export KAFKABOOK_TEST_TIER=full
	;;
*)
	echo "usage: $0 [fast|full]" >&2
	exit 2
	;;
esac
GO=${GO:-go}
log=$(mktemp "${TMPDIR:-/tmp}/kafkabook-test.XXXXXX")
trap 'rm -f "$log" "$log.lane"' EXIT
failed=0
begin=$(date +%s)

# lane NAME COMMAND...: runs a go test command, its output to the terminal
# and, tagged with the lane, to the log the table is made from.
lane() {
	name=$1
	shift
	start=$(date +%s)
	echo "== $name lane, from $(date -u +%H:%M:%S) UTC: $*"
	{
		"$@" 2>&1
		echo "lane-exit $?"
	} | tee "$log.lane" | grep --line-buffered -v '^lane-exit '
	grep -q '^lane-exit 0$' "$log.lane" || failed=1
	sed "s/^/$name /" "$log.lane" >>"$log"
	echo "$name-wall $(($(date +%s) - start))" >>"$log"
}

lane unit "$GO" test -short -p 2 -count=1 -timeout 20m ./...

# What must be ready before the cluster lane and could be made ready
# beside the unit lane (CI brings its Kubernetes up meanwhile): a shell
# command, whose failure fails the run.
if [ -n "${KAFKABOOK_BEFORE_CLUSTER_LANE:-}" ]; then
	sh -c "$KAFKABOOK_BEFORE_CLUSTER_LANE" || failed=1
fi

# The packages whose tests start clusters: those importing testcluster.
pkgs=$("$GO" list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... |
	awk '/internal\/testcluster( |$)/ && $1 !~ /internal\/testcluster$/ {print $1}')
# shellcheck disable=SC2086 # one argument per package
lane cluster "$GO" test -p 1 -count=1 -timeout 75m $pkgs

# fuzz DIR TARGET fuzzes one target. Go's fuzzing engine can end a run
# that found nothing with "context deadline exceeded" when its time runs
# out while a worker still minimizes a new input: that run, and only
# that, is tried once more.
fuzz() {
	out=$("$GO" test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "./$1/" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && printf '%s\n' "$out" | grep -qx '    context deadline exceeded' &&
		! printf '%s\n' "$out" | grep -q 'Failing input written'; then
		# Indented, so that the cost table does not count this try.
		printf '%s\n' "$out" | sed 's/^/  first try: /'
		echo "fuzz: $2 ended on the fuzzing engine's own deadline with no failing input; once more"
		"$GO" test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "./$1/"
		return
	fi
	printf '%s\n' "$out"
	return "$rc"
}
for target in "runbook FuzzLoad" "results FuzzDecode" "results FuzzReplay" "internal/driver/wire FuzzDecodeAgrees"; do
	set -- $target
	lane fuzz fuzz "$1" "$2"
done
if [ "$tier" = full ]; then
	# The benchmarks' smoke runs: each once, so a benchmark that no longer
	# builds or runs is caught before anyone measures with it.
	lane bench "$GO" test -run '^$' -bench . -benchtime 1x -count=1 ./...
fi

total=$(($(date +%s) - begin))
echo "== lanes done at $(date -u +%H:%M:%S) UTC"
# The cost table: every package's time per lane (go test's own figure),
# the lanes' wall times, and the whole run's.
awk -v total="$total" -v tier="$tier" '
($2 == "ok" || $2 == "FAIL") && NF == 4 && $4 ~ /^[0-9.]+s$/ {
	key = $1 " " $3
	if (!(key in t)) order[++n] = key
	t[key] += substr($4, 1, length($4) - 1)
	if ($2 == "FAIL") st[key] = "FAIL"; else if (!(key in st)) st[key] = "ok"
}
$1 ~ /-wall$/ {
	l = substr($1, 1, length($1) - 5)
	if (!(l in wall)) lanes[++m] = l
	wall[l] += $2
}
END {
	printf "\n== cost of the %s tier, seconds (go test'"'"'s time per package and lane)\n", tier
	for (i = 1; i <= n; i++) {
		split(order[i], k, " ")
		printf "%-8s %-56s %7.1f  %s\n", k[1], k[2], t[order[i]], st[order[i]]
	}
	for (i = 1; i <= m; i++) printf "%-8s %-56s %7d\n", lanes[i], "(lane, wall)", wall[lanes[i]]
	printf "%-8s %-56s %7d\n", "all", "(every lane, wall)", total
}' "$log"
exit $failed
