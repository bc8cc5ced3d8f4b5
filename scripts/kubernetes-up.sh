#!/bin/bash
# kubernetes-up.sh brings up a real single-node Kubernetes on this machine, for
# kafkabook's Kubernetes backend and its tests: no container registry is
# reachable here, so the components are built from the Go module proxy (and
# cached), the images come from local files or the local dockerd, and
# everything runs as host processes with their own containerd, etcd, bridge
# and directories, beside (never inside) a dockerd and its containerd.
#
# Usage: kubernetes-up.sh [--kafka VERSION]... [--image REF]... [--build-only]
#   --kafka VERSION  load kafkabook/kafka:VERSION, the image the Kubernetes
#                 backend runs for that Kafka release, building it with
#                 `kafkabook image build` when the local dockerd lacks it
#                 (starting a dockerd for the build when none runs, and
#                 stopping it after); repeatable. Without --kafka and
#                 --image, the default release's image is loaded.
#   --image REF   import the Docker image REF from the local dockerd into the
#                 cluster (pods then use it with imagePullPolicy: Never);
#                 repeatable; also works when the cluster is already up
#   --build-only  only build and cache the binaries and images
#
# The kubeconfig is written to /run/kafkabook-kubernetes/kubeconfig, where
# kafkabook finds it when neither --kubeconfig nor KUBECONFIG names one
# and ~/.kube/config does not exist: `kubernetes-up.sh` and then
# `kafkabook run --backend kubernetes RUNBOOK` is all a run needs.
# kubernetes-down.sh removes everything this made except the binary cache
# (${KAFKABOOK_CACHE:-~/.cache/kafkabook}/kubernetes). Run as root.
set -euo pipefail

PROG=kubernetes-up
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=kubernetes/common.sh
. "$HERE/kubernetes/common.sh"
# shellcheck source=kubernetes/build.sh
. "$HERE/kubernetes/build.sh"
# shellcheck source=kubernetes/images.sh
. "$HERE/kubernetes/images.sh"
# shellcheck source=dockerd.sh
. "$HERE/dockerd.sh"
TEMPLATES=$HERE/kubernetes

START=$(date +%s)
IMAGES=()
KAFKA_VERSIONS=()
BUILD_ONLY=false

# parse_args reads the options; anything else is a usage error.
parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--image)
			[ $# -ge 2 ] || die "--image needs an image reference, such as kafkabook/kafka:4.3.1"
			IMAGES+=("$2")
			shift 2
			;;
		--image=*)
			IMAGES+=("${1#--image=}")
			shift
			;;
		--kafka)
			[ $# -ge 2 ] || die "--kafka needs a Kafka release, such as 4.3.1"
			KAFKA_VERSIONS+=("$2")
			shift 2
			;;
		--kafka=*)
			KAFKA_VERSIONS+=("${1#--kafka=}")
			shift
			;;
		--build-only)
			BUILD_ONLY=true
			shift
			;;
		-h | --help)
			sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
			exit 0
			;;
		*) die "unknown argument $1 (usage: kubernetes-up.sh [--kafka VERSION]... [--image REF]... [--build-only])" ;;
		esac
	done
	if [ ${#KAFKA_VERSIONS[@]} -eq 0 ] && [ ${#IMAGES[@]} -eq 0 ]; then
		KAFKA_VERSIONS=("$DEFAULT_KAFKA")
	fi
}

# install_packages installs the Debian packages the cluster needs, and runs
# apt-get update only when one is missing (a warm start touches no network).
install_packages() {
	local need="" p
	for p in etcd-server containerd runc containernetworking-plugins conntrack nftables busybox-static openssl iproute2 iptables curl; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need="$need $p"
	done
	command -v go >/dev/null || die "Go is needed to build Kubernetes; install Go 1.24 or newer first"
	[ -n "$need" ] || return 0
	log "apt-get install$need"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 $need; then
		apt-get update -q -o DPkg::Lock::Timeout=300 || die "apt-get update failed"
		# shellcheck disable=SC2086
		apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 $need || die "apt-get install$need failed"
	fi
}

# node_ip picks the address of the interface that holds the default route:
# the node's InternalIP, where the API server and the kubelet listen.
node_ip() {
	local ip
	ip=$(ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p')
	[ -n "$ip" ] || ip=$(ip -4 -o addr show scope global | awk '{print $4}' | cut -d/ -f1 | grep -v '^172\.17\.' | head -1)
	[ -n "$ip" ] || die "found no IPv4 address for the node (no default route and no global address)"
	echo "$ip"
}

# already_up tells whether a cluster from an earlier run answers; a partial
# one (some process gone) is an error the teardown must clear first.
already_up() {
	local p alive=0 dead=""
	for p in $PROCESSES; do
		if pid_alive "$p"; then alive=$((alive + 1)); else dead="$dead $p"; fi
	done
	[ "$alive" -gt 0 ] || return 1
	[ -z "$dead" ] || die "a partial cluster is left from an earlier run (not running:$dead); run scripts/kubernetes-down.sh first"
	kctl get --raw /readyz >/dev/null 2>&1 || die "the cluster's processes run but the API server does not answer; see $LOG_DIR, or run scripts/kubernetes-down.sh"
}

# save_sysctls records, once per bring-up, the values the kubelet (and this
# script) change, so that the teardown can put them back.
save_sysctls() {
	local k
	[ -f "$SYSCTL_SAVE" ] && return 0
	for k in $SAVED_SYSCTLS; do
		if sysctl -n "$k" >/dev/null 2>&1; then echo "$k=$(sysctl -n "$k")"; fi
	done >"$SYSCTL_SAVE.tmp"
	mv "$SYSCTL_SAVE.tmp" "$SYSCTL_SAVE"
}

# note_host_dirs records which host directories the kubelet and libcni may
# create outside the cluster's own ones (the kubelet makes /var/lib/kubelet
# and /var/log/containers even with its own root dir), so that the teardown
# removes those it finds empty and the bring-up made.
note_host_dirs() {
	local d
	[ -f "$RUN_DIR/host-dirs" ] && return 0
	for d in $HOST_DIRS; do [ -e "$d" ] || echo "$d"; done >"$RUN_DIR/host-dirs"
}

# host_network prepares the host side: forwarding on, bridged traffic seen by
# netfilter (so pod -> Service -> pod on the same bridge is un-NATed
# correctly), and ACCEPT rules for the cluster's bridge in FORWARD. Docker may
# have set FORWARD's policy to DROP; the policy and Docker's rules are left
# as they are, and the rules added here carry a comment the teardown finds.
host_network() {
	sysctl -q -w net.ipv4.ip_forward=1
	[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ] && sysctl -q -w net.bridge.bridge-nf-call-iptables=1
	local dir
	for dir in -i -o; do
		iptables -C FORWARD "$dir" "$BRIDGE" -m comment --comment "$IPT_COMMENT" -j ACCEPT 2>/dev/null ||
			iptables -I FORWARD 1 "$dir" "$BRIDGE" -m comment --comment "$IPT_COMMENT" -j ACCEPT ||
			die "could not add the FORWARD rule for $BRIDGE"
	done
}

# make_pki makes, with openssl, a CA, the API server's serving certificate,
# one client certificate (system:masters) that every component and the admin
# use, and the service-account signing key. One client identity keeps a
# single-user test cluster simple; nothing here is exposed beyond this host.
make_pki() {
	local ip=$1 d=$PKI_DIR
	[ -f "$d/admin.crt" ] && return 0
	mkdir -p "$d"
	(
		cd "$d"
		openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 \
			-subj "/CN=kafkabook-kubernetes-ca" 2>/dev/null
		cat >apiserver.ext <<EXT
subjectAltName=DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,DNS:$NODE_NAME,IP:127.0.0.1,IP:$ip,IP:$APISERVER_SERVICE_IP
extendedKeyUsage=serverAuth
keyUsage=digitalSignature,keyEncipherment
EXT
		openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver" 2>/dev/null
		openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
			-extfile apiserver.ext -out apiserver.crt 2>/dev/null
		printf 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n' >client.ext
		openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr \
			-subj "/O=system:masters/CN=kubernetes-admin" 2>/dev/null
		openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
			-extfile client.ext -out admin.crt 2>/dev/null
		openssl genrsa -out sa.key 2048 2>/dev/null
		openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
		rm -f ./*.csr ./*.ext
		chmod 600 ./*.key
	) || die "making the certificates with openssl failed"
}

# write_kubeconfig writes the admin kubeconfig, which the components share.
write_kubeconfig() {
	local ip=$1
	cat >"$KUBECONFIG_PATH" <<KC
apiVersion: v1
kind: Config
clusters:
- name: kafkabook
  cluster:
    server: https://$ip:$APISERVER_PORT
    certificate-authority-data: $(base64 -w0 "$PKI_DIR/ca.crt")
users:
- name: admin
  user:
    client-certificate-data: $(base64 -w0 "$PKI_DIR/admin.crt")
    client-key-data: $(base64 -w0 "$PKI_DIR/admin.key")
contexts:
- name: kafkabook
  context: {cluster: kafkabook, user: admin}
current-context: kafkabook
KC
	chmod 600 "$KUBECONFIG_PATH"
}

# render copies a template from scripts/kubernetes, filling in @NAME@ from the
# variables of the same name.
render() {
	local src=$TEMPLATES/$1 dst=$2 v args=()
	for v in RUN_DIR STATE_DIR CONTAINERD_SOCK CNI_BIN_DIR CNI_NETWORK BRIDGE NODE_POD_SUBNET POD_GATEWAY \
		CLUSTER_RANGE POD_CIDR DNS_SERVICE_IP KUBECONFIG_PATH NODE_NAME PKI_DIR PAUSE_IMAGE COREDNS_IMAGE; do
		args+=(-e "s|@$v@|${!v}|g")
	done
	sed "${args[@]}" "$src" >"$dst"
	! grep -q '@[A-Z_]*@' "$dst" || die "template $1 has an unfilled placeholder: $(grep -o '@[A-Z_]*@' "$dst" | head -1)"
}

# start runs a component in the background, detached from this script, with
# its output in $LOG_DIR and its pid in $PID_DIR (the teardown stops by pid).
start() {
	local name=$1
	shift
	pid_alive "$name" && return 0
	# fd 9 holds the lock (see lock); the component must not keep it.
	setsid "$@" >>"$LOG_DIR/$name.log" 2>&1 </dev/null 9<&- &
	echo $! >"$PID_DIR/$name.pid"
}

# wait_for retries a check until it passes, or fails after $2 seconds naming
# the log to read.
wait_for() {
	local what=$1 timeout=$2 logname=$3 i=0
	shift 3
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -le $((timeout * 2)) ] || die "timed out after ${timeout}s waiting for $what; see $LOG_DIR/$logname.log"
		if [ -n "$logname" ] && ! pid_alive "$logname"; then
			tail -20 "$LOG_DIR/$logname.log" >&2 || true
			die "$logname exited while waiting for $what; see $LOG_DIR/$logname.log"
		fi
		sleep 0.5
	done
}

# start_containerd starts the cluster's own containerd: its socket, root,
# state and runc root are under this script's directories, so it never meets
# the system containerd that dockerd may use.
start_containerd() {
	render containerd.toml "$RUN_DIR/containerd.toml"
	render cni.conflist "$STATE_DIR/cni/net.d/10-$CNI_NETWORK.conflist"
	start containerd containerd --config "$RUN_DIR/containerd.toml"
	wait_for "containerd" 30 containerd ctr --address "$CONTAINERD_SOCK" version
}

# start_etcd starts etcd on loopback, on ports away from the defaults.
start_etcd() {
	start etcd etcd --name "$NODE_NAME" --data-dir "$STATE_DIR/etcd" \
		--listen-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" \
		--advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" \
		--listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
		--initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
		--initial-cluster "$NODE_NAME=http://127.0.0.1:$ETCD_PEER_PORT" \
		--initial-cluster-state new --snapshot-count 10000
	wait_for "etcd" 30 etcd curl -fsS "http://127.0.0.1:$ETCD_CLIENT_PORT/health"
}

# start_control_plane starts the API server, the controller manager and the
# scheduler. The API server reaches kubelets by InternalIP: this host's name
# may not resolve to its address.
start_control_plane() {
	local ip=$1
	start kube-apiserver "$BIN_DIR/kube-apiserver" \
		--etcd-servers "http://127.0.0.1:$ETCD_CLIENT_PORT" \
		--bind-address "$ip" --advertise-address "$ip" --secure-port "$APISERVER_PORT" \
		--service-cluster-ip-range "$SERVICE_CIDR" \
		--client-ca-file "$PKI_DIR/ca.crt" \
		--tls-cert-file "$PKI_DIR/apiserver.crt" --tls-private-key-file "$PKI_DIR/apiserver.key" \
		--kubelet-client-certificate "$PKI_DIR/admin.crt" --kubelet-client-key "$PKI_DIR/admin.key" \
		--kubelet-preferred-address-types InternalIP,Hostname \
		--service-account-issuer https://kubernetes.default.svc.cluster.local \
		--service-account-key-file "$PKI_DIR/sa.pub" \
		--service-account-signing-key-file "$PKI_DIR/sa.key" \
		--authorization-mode Node,RBAC --allow-privileged=true \
		--profiling=false --v=1
	wait_for "the API server" 90 kube-apiserver kctl get --raw /readyz
	start kube-controller-manager "$BIN_DIR/kube-controller-manager" \
		--kubeconfig "$KUBECONFIG_PATH" --authentication-kubeconfig "$KUBECONFIG_PATH" \
		--authorization-kubeconfig "$KUBECONFIG_PATH" \
		--bind-address 127.0.0.1 --leader-elect=false \
		--service-account-private-key-file "$PKI_DIR/sa.key" --root-ca-file "$PKI_DIR/ca.crt" \
		--cluster-cidr "$POD_CIDR" --service-cluster-ip-range "$SERVICE_CIDR" \
		--use-service-account-credentials=false --enable-hostpath-provisioner \
		--profiling=false --v=1
	start kube-scheduler "$BIN_DIR/kube-scheduler" \
		--kubeconfig "$KUBECONFIG_PATH" --authentication-kubeconfig "$KUBECONFIG_PATH" \
		--authorization-kubeconfig "$KUBECONFIG_PATH" \
		--bind-address 127.0.0.1 --leader-elect=false --profiling=false --v=1
}

# start_node starts the kubelet and kube-proxy (nftables mode: its own tables only).
start_node() {
	local ip=$1
	render kubelet.yaml "$RUN_DIR/kubelet.yaml"
	render kube-proxy.yaml "$RUN_DIR/kube-proxy.yaml"
	start kubelet "$BIN_DIR/kubelet" --config "$RUN_DIR/kubelet.yaml" \
		--kubeconfig "$KUBECONFIG_PATH" --root-dir "$STATE_DIR/kubelet" \
		--cert-dir "$STATE_DIR/kubelet/pki" --hostname-override "$NODE_NAME" --node-ip "$ip" --v=1
	start kube-proxy "$BIN_DIR/kube-proxy" --config "$RUN_DIR/kube-proxy.yaml" --v=1
	wait_for "node $NODE_NAME to be Ready" 120 kubelet \
		sh -c "'$BIN_DIR/kubectl' --kubeconfig '$KUBECONFIG_PATH' get node '$NODE_NAME' -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
}

# start_dns deploys CoreDNS as a pod behind the kube-dns Service at
# $DNS_SERVICE_IP (what the kubelet writes into pods' resolv.conf), then waits
# until it answers for the API server's Service name through kube-proxy.
start_dns() {
	render coredns.yaml "$RUN_DIR/coredns.yaml"
	kctl apply -f "$RUN_DIR/coredns.yaml" >/dev/null || die "creating CoreDNS failed"
	# On a timeout, "kubectl -n kube-system logs deploy/coredns" tells more than the kubelet's log.
	wait_for "CoreDNS to answer at $DNS_SERVICE_IP" 120 kubelet \
		sh -c "busybox nslookup kubernetes.default.svc.cluster.local $DNS_SERVICE_IP | grep -qx 'Address: *$APISERVER_SERVICE_IP'"
}

# start_storage makes the default StorageClass (storageclass.yaml): claims
# become directories on this host, which kube-controller-manager's
# host-path provisioner makes and removes.
start_storage() {
	kctl apply -f "$TEMPLATES/storageclass.yaml" >/dev/null || die "creating the default StorageClass failed"
}

# import_docker_images copies images from the local dockerd into the
# cluster's containerd (namespace k8s.io, where the kubelet looks).
import_docker_images() {
	local ref
	for ref in ${IMAGES[@]+"${IMAGES[@]}"}; do
		command -v docker >/dev/null || die "--image $ref needs the docker CLI and a running dockerd"
		docker image inspect "$ref" >/dev/null 2>&1 || die "dockerd has no image $ref (build it first, e.g. kafkabook image build)"
		log "importing $ref from dockerd"
		docker save "$ref" | ctr --address "$CONTAINERD_SOCK" -n k8s.io images import - >/dev/null ||
			die "importing $ref into the cluster's containerd failed"
	done
}

main() {
	parse_args "$@"
	[ "$(id -u)" -eq 0 ] || die "run as root (the cluster's processes need it)"
	lock
	trap dockerd_stop EXIT
	if [ "$BUILD_ONLY" = false ] && [ -d "$PID_DIR" ] && already_up; then
		log "already up (kubeconfig $KUBECONFIG_PATH); only importing images"
		kafka_images
		import_docker_images
		dockerd_stop
		return 0
	fi
	if [ "$BUILD_ONLY" = false ] && { [ -e "$RUN_DIR" ] || [ -e "$STATE_DIR" ]; }; then
		# Nothing runs, but an earlier run left files (a crash, a reboot that
		# emptied /run): start from a clean slate rather than from stale state.
		log "clearing leftovers of an earlier run with kubernetes-down.sh"
		"$HERE/kubernetes-down.sh" || die "kubernetes-down.sh could not clear the leftovers of an earlier run"
	fi
	install_packages
	build_kubernetes
	build_coredns
	build_images
	[ "$BUILD_ONLY" = false ] || {
		log "binaries in $BIN_DIR, images in $IMAGE_DIR ($(($(date +%s) - START))s)"
		return 0
	}
	local ip
	ip=$(node_ip)
	log "starting on $ip (node $NODE_NAME, pods $NODE_POD_SUBNET on $BRIDGE, Services $SERVICE_CIDR)"
	kafka_images # before anything starts: a failed image build leaves nothing to take down
	mkdir -p "$RUN_DIR" "$PID_DIR" "$STATE_DIR" "$LOG_DIR" "$STATE_DIR/cni/net.d" "$STATE_DIR/cni/ipam" "$STATE_DIR/pod-logs"
	save_sysctls
	note_host_dirs
	host_network
	make_pki "$ip"
	write_kubeconfig "$ip"
	log "containerd"
	start_containerd
	import_local_images
	import_docker_images
	dockerd_stop
	log "etcd"
	start_etcd
	log "kube-apiserver, kube-controller-manager, kube-scheduler"
	start_control_plane "$ip"
	log "kubelet, kube-proxy"
	start_node "$ip"
	log "CoreDNS"
	start_dns
	log "the default StorageClass"
	start_storage
	log "up in $(($(date +%s) - START))s; kubeconfig: $KUBECONFIG_PATH"
	log "  export KUBECONFIG=$KUBECONFIG_PATH; kubectl: $BIN_DIR/kubectl; logs: $LOG_DIR"
}

# One line, so that bash never reads on in a file edited while it runs.
main "$@"; exit
