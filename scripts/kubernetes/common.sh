# common.sh is sourced by kubernetes-up.sh and kubernetes-down.sh: the one
# place that names the cluster's versions, paths, ports and address ranges, so
# that the teardown removes exactly what the bring-up made.

K8S_VERSION=v1.34.4
K8S_STAGING_VERSION=v0.34.4 # the published k8s.io/* staging modules of that release
K8S_VERSION_MAJOR=1
K8S_VERSION_MINOR=34
K8S_COMPONENTS="kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl"
# CoreDNS 1.12.1 is what kubeadm deploys with Kubernetes 1.34.
COREDNS_VERSION=v1.12.1
COREDNS_PLUGINS="kubernetes cache errors health ready reload loop hosts template log loadbalance"

CACHE_ROOT=${KAFKABOOK_CACHE:-$HOME/.cache/kafkabook}
CACHE_DIR=$CACHE_ROOT/kubernetes
BIN_DIR=$CACHE_DIR/$K8S_VERSION/bin
IMAGE_DIR=$CACHE_DIR/$K8S_VERSION/images
BUILD_DIR=$CACHE_DIR/build

# RUN_DIR holds what dies with the machine (sockets, pid files, the
# kubeconfig, containerd's state); STATE_DIR holds data (etcd, containerd's
# images, the kubelet's pods and logs). Both are removed by the teardown.
RUN_DIR=/run/kafkabook-kubernetes
STATE_DIR=/var/lib/kafkabook-kubernetes
PID_DIR=$RUN_DIR/pids
LOG_DIR=$STATE_DIR/logs
PKI_DIR=$STATE_DIR/pki
KUBECONFIG_PATH=$RUN_DIR/kubeconfig
CONTAINERD_SOCK=$RUN_DIR/containerd.sock
SYSCTL_SAVE=$RUN_DIR/sysctl.saved

NODE_NAME=kafkabook-node
# Ports away from the defaults (etcd 2379/2380, API 6443) so that a system
# etcd or another cluster on the host does not clash.
ETCD_CLIENT_PORT=12379
ETCD_PEER_PORT=12380
APISERVER_PORT=16443

# One /16 for the whole cluster, clear of Docker (172.17/16) and of
# kafkabook's own networks (10.213/16, 10.214/16): pods in the lower half
# (this node's bridge takes 10.215.0.0/24), Services in the upper half.
CLUSTER_RANGE=10.215.0.0/16
POD_CIDR=10.215.0.0/17
NODE_POD_SUBNET=10.215.0.0/24
POD_GATEWAY=10.215.0.1
SERVICE_CIDR=10.215.128.0/17
APISERVER_SERVICE_IP=10.215.128.1
DNS_SERVICE_IP=10.215.128.10
BRIDGE=kbk8s0
CNI_NETWORK=kafkabook-k8s
CNI_BIN_DIR=/usr/lib/cni
# The comment on every iptables rule the bring-up adds; the teardown deletes by it.
IPT_COMMENT=kafkabook-kubernetes
# The sysctls the kubelet (and the bring-up) may change; saved at bring-up, restored at teardown.
SAVED_SYSCTLS="vm.overcommit_memory kernel.panic kernel.panic_on_oops net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables"

# kube-controller-manager's host-path provisioner (storageclass.yaml) makes
# each claim's volume a directory under this fixed path.
HOSTPATH_PV_DIR=/tmp/hostpath_pv
# Host directories the kubelet, libcni and the provisioner create outside
# the cluster's own. Listed children first: the teardown removes each (if
# empty; the provisioner's with what is in it) in this order.
HOST_DIRS="$HOSTPATH_PV_DIR /var/lib/kubelet/device-plugins /var/lib/kubelet /var/log/containers /var/lib/cni/results /var/lib/cni /run/containerd/s /run/containerd"

# Order matters: the teardown stops them in reverse.
PROCESSES="containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy"

# log prints a progress line with the UTC time.
log() { printf '%s %s: %s\n' "$(date -u +%H:%M:%S)" "$PROG" "$*"; }

# die stops the script with a message that says what was wrong.
die() {
	printf '%s: error: %s\n' "$PROG" "$*" >&2
	exit 1
}

# kctl runs kubectl against this cluster (the cached one built with the
# components, so that client and server versions match).
kctl() { "$BIN_DIR/kubectl" --kubeconfig "$KUBECONFIG_PATH" "$@"; }

# pid_alive tells whether the pid file of process $1 names a live process
# running the expected program (a stale file may name a reused pid).
pid_alive() {
	local f=$PID_DIR/$1.pid pid
	[ -f "$f" ] || return 1
	pid=$(cat "$f")
	[ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$1"
}

# lock keeps a bring-up and a teardown from running at the same time. It
# locks this file (nothing is left on the host); a teardown run by the
# bring-up inherits the lock through KAFKABOOK_K8S_LOCKED.
lock() {
	[ -z "${KAFKABOOK_K8S_LOCKED:-}" ] || return 0
	exec 9<"${BASH_SOURCE[0]}"
	flock -w 600 9 || die "another kubernetes-up.sh or kubernetes-down.sh still runs after 10 minutes"
	export KAFKABOOK_K8S_LOCKED=1
}
