# dockerd.sh is sourced by .ci/run and scripts/kubernetes-up.sh: the one way
# they start a Docker daemon when none runs, and stop only the one they
# started. Its functions use bash; log goes to $DOCKERD_LOG.
#
#   dockerd_start   start dockerd unless one answers (overlay2 where the
#                   kernel and file system allow it, else vfs); sets
#                   DOCKERD_PID to the started daemon's pid, "" otherwise
#   dockerd_stop    stop the daemon dockerd_start started, if any
#
# A running dockerd sets the iptables FORWARD policy to DROP and loads
# br_netfilter; kafkabook's local backend exempts its own bridges.

DOCKERD_PID=""
DOCKERD_LOG=${DOCKERD_LOG:-${TMPDIR:-/tmp}/kafkabook-dockerd.log}

dockerd_start() {
	if docker info >/dev/null 2>&1; then
		return 0
	fi
	if pgrep -x dockerd >/dev/null 2>&1; then
		# One is starting (a package's install starts it): wait for it.
		local i
		for i in $(seq 60); do
			docker info >/dev/null 2>&1 && return 0
			sleep 0.5
		done
	fi
	_dockerd_try || _dockerd_try --storage-driver=vfs
}

# _dockerd_try starts dockerd with the given options and waits until it
# answers; on failure it stops it again and shows the end of its log.
_dockerd_try() {
	echo "dockerd: starting dockerd${*:+ $*} (log: $DOCKERD_LOG)"
	dockerd "$@" >"$DOCKERD_LOG" 2>&1 &
	DOCKERD_PID=$!
	local i
	for i in $(seq 60); do
		if docker info >/dev/null 2>&1; then return 0; fi
		kill -0 "$DOCKERD_PID" 2>/dev/null || break
		sleep 0.5
	done
	echo "dockerd: dockerd${*:+ $*} did not come up:"
	tail -5 "$DOCKERD_LOG"
	dockerd_stop
	return 1
}

dockerd_stop() {
	if [ -n "$DOCKERD_PID" ] && kill -0 "$DOCKERD_PID" 2>/dev/null; then
		echo "dockerd: stopping the dockerd started here (pid $DOCKERD_PID)"
		kill "$DOCKERD_PID" 2>/dev/null || true
		local i
		for i in $(seq 60); do
			kill -0 "$DOCKERD_PID" 2>/dev/null || break
			sleep 0.5
		done
		kill -9 "$DOCKERD_PID" 2>/dev/null || true
	fi
	DOCKERD_PID=""
}
