# images.sh is sourced by kubernetes-up.sh. With no registry to pull from,
# the cluster's own images are written as docker-save tarballs from small
# root file systems (static busybox, the CoreDNS binary), cached beside the
# binaries, and imported into the cluster's containerd at every bring-up.

# The sandbox image the kubelet and containerd use for every pod.
PAUSE_IMAGE=registry.k8s.io/pause:3.10
COREDNS_IMAGE=kafkabook.local/coredns:$COREDNS_VERSION
# BUSYBOX_IMAGE is for tests: a shell with nslookup, ping, nc and wget.
BUSYBOX_IMAGE=kafkabook.local/busybox:latest

# image_tarball writes $1 (a docker-save tarball) holding one layer made of
# the directory $3, tagged $2, with the entrypoint $4 (a JSON array).
image_tarball() {
	local out=$1 ref=$2 rootfs=$3 entrypoint=$4 work layer cfg
	work=$(mktemp -d)
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$rootfs" -cf "$work/layer.tar" .
	layer=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
	mkdir "$work/$layer"
	mv "$work/layer.tar" "$work/$layer/layer.tar"
	printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":%s,"Env":["PATH=/bin:/usr/bin:/sbin"],"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
		"$entrypoint" "$layer" >"$work/config.json"
	cfg=$(sha256sum "$work/config.json" | cut -d' ' -f1)
	mv "$work/config.json" "$work/$cfg.json"
	printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' "$cfg" "$ref" "$layer" >"$work/manifest.json"
	tar -C "$work" -cf "$out.tmp" manifest.json "$cfg.json" "$layer"
	mv "$out.tmp" "$out"
	rm -rf "$work"
}

# build_images makes the pause, busybox and CoreDNS image tarballs once.
build_images() {
	local root
	mkdir -p "$IMAGE_DIR"
	if [ ! -f "$IMAGE_DIR/pause.tar" ]; then
		# Any static program that sleeps until killed serves as the sandbox.
		root=$(mktemp -d)
		cp /bin/busybox "$root/busybox"
		image_tarball "$IMAGE_DIR/pause.tar" "$PAUSE_IMAGE" "$root" '["/busybox","sleep","infinity"]'
		rm -rf "$root"
	fi
	if [ ! -f "$IMAGE_DIR/busybox.tar" ]; then
		root=$(mktemp -d)
		mkdir -p "$root/bin" "$root/etc" "$root/tmp"
		cp /bin/busybox "$root/bin/busybox"
		local a
		for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -s busybox "$root/bin/$a"; done
		printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$root/etc/passwd"
		printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
		chmod 1777 "$root/tmp"
		image_tarball "$IMAGE_DIR/busybox.tar" "$BUSYBOX_IMAGE" "$root" '["/bin/sh"]'
		rm -rf "$root"
	fi
	if [ ! -f "$IMAGE_DIR/coredns.tar" ]; then
		root=$(mktemp -d)
		cp "$BIN_DIR/coredns" "$root/coredns"
		image_tarball "$IMAGE_DIR/coredns.tar" "$COREDNS_IMAGE" "$root" '["/coredns"]'
		rm -rf "$root"
	fi
}

# import_local_images loads the cached tarballs into the cluster's containerd.
import_local_images() {
	local t
	for t in pause busybox coredns; do
		ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$IMAGE_DIR/$t.tar" >/dev/null ||
			die "importing $IMAGE_DIR/$t.tar into the cluster's containerd failed"
	done
}

# DEFAULT_KAFKA is the Kafka release whose image a bring-up loads when it is
# given no --image and no --kafka: kafkabook's default release
# (kafkadist.Default; a test checks the two agree).
DEFAULT_KAFKA=4.3.1

# kafka_images makes sure the Kafka image of each release in KAFKA_VERSIONS
# (kafkabook/kafka:VERSION, what the Kubernetes backend's pods run) is in
# the local dockerd, to be imported with the --image ones: one missing is
# built with `kafkabook image build`, from this checkout, on a dockerd
# started for it when none runs (dockerd_stop stops it once the images are
# imported). A cluster that already has an image skips it: nothing is built.
kafka_images() {
	local v ref need=()
	for v in ${KAFKA_VERSIONS[@]+"${KAFKA_VERSIONS[@]}"}; do
		ref=kafkabook/kafka:$v
		if [ -S "$CONTAINERD_SOCK" ] && ctr --address "$CONTAINERD_SOCK" -n k8s.io images ls -q 2>/dev/null | grep -qx "docker.io/$ref"; then
			continue
		fi
		need+=("$v")
	done
	[ ${#need[@]} -gt 0 ] || return 0
	if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
		log "apt-get install docker.io debootstrap (to build the Kafka image)"
		local before=""
		before=$(pgrep -xo dockerd || true)
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 docker.io debootstrap ||
			die "installing docker.io and debootstrap failed (run apt-get update first?)"
		# A package's install may start the daemon: then it is ours to stop.
		[ -n "$before" ] || DOCKERD_PID=$(pgrep -xo dockerd || true)
	fi
	dockerd_start >&2 || die "no Docker daemon to build the Kafka image with (see $DOCKERD_LOG)"
	for v in "${need[@]}"; do
		ref=kafkabook/kafka:$v
		if ! docker image inspect "$ref" >/dev/null 2>&1; then
			log "building $ref with kafkabook image build (once per Docker host; minutes the first time)"
			KAFKABOOK_DEPS=run "$HERE/install-deps.sh" || die "install-deps.sh failed"
			local bin
			bin=$(mktemp -d)
			(cd "$HERE/.." && go build -o "$bin/kafkabook" ./cmd/kafkabook) || die "building kafkabook failed"
			"$bin/kafkabook" image build --kafka "$v" || {
				rm -rf "$bin"
				die "kafkabook image build --kafka $v failed"
			}
			rm -rf "$bin"
		fi
		IMAGES+=("$ref")
	done
}
