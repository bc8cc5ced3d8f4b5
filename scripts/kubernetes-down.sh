#!/bin/bash
# kubernetes-down.sh removes the single-node Kubernetes that kubernetes-up.sh
# brought up: its pods, processes, containers, mounts, bridge and veths,
# kube-proxy's nftables tables, the iptables rules the bring-up added, the
# sysctls the kubelet changed (put back as they were), and its directories.
# The binary cache is kept, so the next bring-up is fast. It succeeds when
# nothing is up, and checks at the end that nothing of the cluster remains.
#
# Usage: kubernetes-down.sh      (run as root)
set -euo pipefail

PROG=kubernetes-down
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=kubernetes/common.sh
. "$HERE/kubernetes/common.sh"

START=$(date +%s)

# delete_pods deletes every pod while the kubelet still runs, so that it
# stops the containers and calls CNI DEL for each (releasing veths and IPs).
# The controllers stop first: they would only recreate the pods.
delete_pods() {
	pid_alive kube-apiserver && pid_alive kubelet || return 0
	kctl get --raw /readyz >/dev/null 2>&1 || return 0
	stop_process kube-controller-manager
	stop_process kube-scheduler
	log "deleting pods"
	# A one-second grace, not a forced delete: the pod objects stay until the
	# kubelet has stopped their containers and torn down their network.
	kctl delete pods --all --all-namespaces --grace-period=1 --wait=false >/dev/null 2>&1 || true
	for _ in $(seq 1 60); do
		if [ -z "$(kctl get pods --all-namespaces -o name 2>/dev/null)" ] &&
			[ -z "$(timeout 5 ctr --address "$CONTAINERD_SOCK" -n k8s.io tasks ls -q 2>/dev/null || echo unanswered)" ]; then
			return 0
		fi
		sleep 1
	done
	log "some containers still run after 60s; killing them"
}

# stop_process stops one component by its pid file: SIGTERM, then SIGKILL
# after 15 seconds.
stop_process() {
	local name=$1 pid
	[ -f "$PID_DIR/$name.pid" ] || return 0
	if pid_alive "$name"; then
		pid=$(cat "$PID_DIR/$name.pid")
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 1 30); do
			[ -d "/proc/$pid" ] || break
			sleep 0.5
		done
		if [ -d "/proc/$pid" ]; then
			log "$name ($pid) ignored SIGTERM; killing it"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	rm -f "$PID_DIR/$name.pid"
}

# cluster_pids prints the pids of the cluster's programs (components and
# containerd shims) whose command line names the cluster's directories or
# containerd socket: a shim is found by the socket it reports to, and a
# system containerd, a dockerd or someone's shell is never matched.
cluster_pids() {
	local d pid cmd
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		cmd=$( { tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null) || continue
		case ${cmd%% *} in
		*/containerd | containerd | */containerd-shim* | containerd-shim* | */etcd | etcd | */kube-* | kube-* | */kubelet | kubelet) ;;
		*) continue ;;
		esac
		case $cmd in *"$RUN_DIR"* | *"$STATE_DIR"*) echo "$pid" ;; esac
	done
}

# kubepods_pids prints the pids in the kubelet's pod cgroups (containers).
kubepods_pids() {
	find /sys/fs/cgroup/*/kubepods* -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u || true
}

# kill_leftovers kills the containers and shims that survived their pods:
# containers first (found by their cgroups), then the shims (found by the
# socket of the cluster's containerd on their command line).
kill_leftovers() {
	local pids
	pids=$(kubepods_pids)
	if [ -n "$pids" ]; then
		log "killing leftover containers: $(echo "$pids" | tr '\n' ' ')"
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null || true
	fi
	pids=$(cluster_pids)
	if [ -n "$pids" ]; then
		log "killing leftover processes: $(echo "$pids" | tr '\n' ' ')"
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null || true
	fi
	sleep 0.5
}

# remove_shim_sockets removes the sockets of the cluster's containerd shims:
# containerd 1.6 puts them in /run/containerd/s whatever its own state dir
# is, and a killed shim leaves its socket behind. Each task's bundle names
# its shim's socket in its address file. Run after the shims are gone.
remove_shim_sockets() {
	local f a
	for f in "$RUN_DIR"/containerd/io.containerd.runtime.v2.task/*/*/address; do
		[ -f "$f" ] || continue
		a=$(cat "$f")
		a=${a#unix://}
		case $a in /run/containerd/s/*) rm -f "$a" ;; esac
	done
}

# remove_cgroups removes the kubelet's (now empty) cgroup directories,
# deepest first.
remove_cgroups() {
	find /sys/fs/cgroup/*/kubepods* -depth -type d -exec rmdir {} + 2>/dev/null || true
}

# unmount_all unmounts, deepest first, everything mounted under the
# cluster's directories (pod volumes, netns files, overlay root file systems,
# containerd's shm mounts).
unmount_all() {
	local m
	for _ in 1 2 3; do
		m=$(awk -v a="$RUN_DIR" -v b="$STATE_DIR" 'index($5, a) == 1 || index($5, b) == 1 {print $5}' /proc/self/mountinfo | sort -r)
		[ -n "$m" ] || return 0
		while read -r m; do
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
		done <<<"$m"
	done
}

# remove_network deletes the bridge and any veth still attached to it,
# kube-proxy's nftables tables, the bring-up's FORWARD rules (by comment;
# the policy and Docker's rules are not touched) and conntrack entries of
# the cluster's range.
remove_network() {
	local v
	if ip link show "$BRIDGE" >/dev/null 2>&1; then
		for v in $(ip -o link show master "$BRIDGE" | awk -F': ' '{print $2}' | cut -d@ -f1); do
			ip link del "$v" 2>/dev/null || true
		done
		ip link del "$BRIDGE" || die "could not delete the bridge $BRIDGE"
	fi
	local fam
	for fam in ip ip6 inet; do
		if nft list table "$fam" kube-proxy >/dev/null 2>&1; then
			nft delete table "$fam" kube-proxy || die "could not delete nftables table $fam kube-proxy"
		fi
	done
	local rule
	while rule=$(iptables -S FORWARD 2>/dev/null | grep -m1 -- "--comment $IPT_COMMENT"); do
		# shellcheck disable=SC2086
		eval "iptables ${rule/-A FORWARD/-D FORWARD}" || die "could not delete the iptables rule: $rule"
	done
	if command -v conntrack >/dev/null; then
		conntrack -D -s "$CLUSTER_RANGE" >/dev/null 2>&1 || true
		conntrack -D -d "$CLUSTER_RANGE" >/dev/null 2>&1 || true
	fi
	# libcni caches results in /var/lib/cni/results by network and sandbox id
	# (CNI DEL removes them; a killed pod leaves them behind).
	rm -f /var/lib/cni/results/"$CNI_NETWORK"-* 2>/dev/null || true
	local d
	for d in "$STATE_DIR"/containerd/io.containerd.grpc.v1.cri/sandboxes/*; do
		[ -d "$d" ] || continue
		rm -f /var/lib/cni/results/*-"${d##*/}"-* 2>/dev/null || true
	done
}

# restore_sysctls puts back the values saved at bring-up.
restore_sysctls() {
	local line
	[ -f "$SYSCTL_SAVE" ] || return 0
	while read -r line; do
		[ -n "$line" ] || continue
		[ "$(sysctl -n "${line%%=*}")" = "${line#*=}" ] || sysctl -q -w "$line" || die "could not restore sysctl $line"
	done <"$SYSCTL_SAVE"
	rm -f "$SYSCTL_SAVE"
}

# remove_files removes the runtime and state directories and the kubelet's
# symlinks to pod logs in /var/log/containers.
remove_files() {
	local l
	for l in /var/log/containers/*.log; do
		[ -L "$l" ] || continue
		case $(readlink "$l") in "$STATE_DIR"/*) rm -f "$l" ;; esac
	done
	if [ -f "$RUN_DIR/host-dirs" ]; then
		while read -r l; do
			[ -n "$l" ] || continue
			# The kubelet's device manager keeps its socket at a fixed path.
			[ "$l" != /var/lib/kubelet/device-plugins ] || rm -f "$l/kubelet.sock"
			# The claims' volumes: this cluster's only, as up made the path.
			[ "$l" != "$HOSTPATH_PV_DIR" ] || rm -rf "${l:?}"/*
			rmdir "$l" 2>/dev/null || true
		done <"$RUN_DIR/host-dirs"
	fi
	rm -rf "$RUN_DIR" "$STATE_DIR" || die "could not remove $RUN_DIR and $STATE_DIR (a mount left under them?)"
}

# check_clean fails if anything of the cluster remains.
check_clean() {
	local bad=""
	[ -z "$(cluster_pids)" ] || bad="$bad processes($(cluster_pids | tr '\n' ' '))"
	! grep -qE " ($RUN_DIR|$STATE_DIR)" /proc/self/mountinfo || bad="$bad mounts"
	! ip link show "$BRIDGE" >/dev/null 2>&1 || bad="$bad bridge"
	! nft list tables 2>/dev/null | grep -q kube-proxy || bad="$bad nftables"
	! iptables -S FORWARD 2>/dev/null | grep -q -- "$IPT_COMMENT" || bad="$bad iptables"
	[ ! -e "$RUN_DIR" ] && [ ! -e "$STATE_DIR" ] || bad="$bad directories"
	[ -z "$bad" ] || die "left behind:$bad"
}

main() {
	[ "$(id -u)" -eq 0 ] || die "run as root"
	lock
	if [ ! -e "$RUN_DIR" ] && [ ! -e "$STATE_DIR" ] && ! ip link show "$BRIDGE" >/dev/null 2>&1 &&
		! nft list tables 2>/dev/null | grep -q kube-proxy && [ -z "$(cluster_pids)" ]; then
		log "nothing is up"
		return 0
	fi
	delete_pods
	local p
	for p in $(echo "$PROCESSES" | tr ' ' '\n' | tac); do
		stop_process "$p"
	done
	kill_leftovers
	remove_shim_sockets
	remove_cgroups
	unmount_all
	remove_network
	restore_sysctls
	remove_files
	check_clean
	log "down in $(($(date +%s) - START))s (binaries kept in $BIN_DIR)"
}

# One line, so that bash never reads on in a file edited while it runs.
main "$@"; exit
