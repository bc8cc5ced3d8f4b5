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
