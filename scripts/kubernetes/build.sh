# build.sh is sourced by kubernetes-up.sh. It builds the upstream Kubernetes
# components and a slim CoreDNS from the Go module proxy, because no container
# registry or release download is reachable from these machines, and caches
# the binaries so that a second bring-up starts in seconds.

# k8s_build_module writes, inside the cache, a Go module that requires
# k8s.io/kubernetes. The main module's go.mod points its k8s.io/* staging
# modules at ./staging/...; replace directives of a dependency are ignored,
# so this module repeats them, rewritten to the published v0.x tags.
k8s_build_module() {
	local dir=$1 mod
	mkdir -p "$dir"
	mod=$(cd "$dir" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$K8S_VERSION" |
		sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
	[ -n "$mod" ] && [ -f "$mod" ] || die "could not download k8s.io/kubernetes@$K8S_VERSION from the Go module proxy"
	{
		echo "module kafkabook.local/kubernetes-build"
		echo
		echo "go $(sed -n 's/^go //p' "$mod")"
		echo
		echo "require k8s.io/kubernetes $K8S_VERSION"
		echo
		echo "replace ("
		# "k8s.io/api => ./staging/src/k8s.io/api" becomes "k8s.io/api => k8s.io/api v0.34.4".
		sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/k8s\.io/[a-z0-9-]*$#\t\1 => \1 '"$K8S_STAGING_VERSION"'#p' "$mod"
		echo ")"
	} >"$dir/go.mod"
	grep -q '=>' "$dir/go.mod" || die "found no staging replace lines in $mod"
	cat >"$dir/tools.go" <<'GO'
//go:build tools

// Package tools pins the commands this module builds, so that go mod tidy keeps their dependencies.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
GO
	(cd "$dir" && GOFLAGS=-mod=mod go mod tidy) || die "go mod tidy failed in $dir"
}

# build_kubernetes builds the five components one at a time (each link peaks
# near 2 GB, and the machine is shared) into the cache's bin directory.
build_kubernetes() {
	local dir="$BUILD_DIR/kubernetes-$K8S_VERSION" c
	local missing=""
	for c in $K8S_COMPONENTS; do [ -x "$BIN_DIR/$c" ] || missing="$missing $c"; done
	[ -n "$missing" ] || return 0
	log "building Kubernetes $K8S_VERSION:$missing (several minutes on 2 cores)"
	[ -f "$dir/go.sum" ] || k8s_build_module "$dir"
	local ld="-s -w"
	ld="$ld -X k8s.io/component-base/version.gitVersion=$K8S_VERSION"
	ld="$ld -X k8s.io/component-base/version.gitMajor=${K8S_VERSION_MAJOR}"
	ld="$ld -X k8s.io/component-base/version.gitMinor=${K8S_VERSION_MINOR}"
	ld="$ld -X k8s.io/component-base/version.gitTreeState=clean"
	ld="$ld -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION"
	mkdir -p "$BIN_DIR"
	for c in $missing; do
		log "  go build $c"
		(cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "$ld" \
			-o "$BIN_DIR/$c.tmp" "k8s.io/kubernetes/cmd/$c") || die "building $c failed (see the go output above)"
		mv "$BIN_DIR/$c.tmp" "$BIN_DIR/$c"
	done
}

# build_coredns links CoreDNS with only the plugins the cluster's Corefile
# uses: CoreDNS is not packaged by Debian, and the full build is far larger.
build_coredns() {
	local dir="$BUILD_DIR/coredns-$COREDNS_VERSION" p
	[ -x "$BIN_DIR/coredns" ] && return 0
	log "building CoreDNS $COREDNS_VERSION"
	mkdir -p "$dir"
	{
		echo "// Command coredns is CoreDNS with only the plugins kafkabook's Kubernetes uses."
		echo "package main"
		echo
		echo "import ("
		echo '	"github.com/coredns/coredns/coremain"'
		echo '	_ "github.com/coredns/coredns/core/dnsserver"'
		for p in $COREDNS_PLUGINS; do echo "	_ \"github.com/coredns/coredns/plugin/$p\""; done
		echo ")"
		echo
		echo "func main() { coremain.Run() }"
	} >"$dir/main.go"
	printf 'module kafkabook.local/coredns-build\n\ngo 1.24\n\nrequire github.com/coredns/coredns %s\n' "$COREDNS_VERSION" >"$dir/go.mod"
	(cd "$dir" && GOFLAGS=-mod=mod go mod tidy) || die "go mod tidy failed in $dir"
	(cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$BIN_DIR/coredns.tmp" .) ||
		die "building CoreDNS failed (see the go output above)"
	mv "$BIN_DIR/coredns.tmp" "$BIN_DIR/coredns"
}
