#!/bin/sh
# fetch-echarts.sh puts a pinned echarts build into templates/assets/echarts/,
# where go:embed picks it up. The repository holds only what its own
# developers wrote, so echarts (Apache-2.0) is fetched, not committed; the
# directory is git-ignored except for its placeholder.
#
# It downloads the npm package with `npm pack`, checks the tarball against the
# sha512 pinned below (the registry's dist.integrity), and extracts
# dist/echarts.min.js, LICENSE and NOTICE. Run it from anywhere; it does
# nothing when the files are already there and the version matches.
set -eu

VERSION=5.6.0
INTEGRITY=sha512-oTbVTsXfKuEhxftHqL5xprgLoc0k7uScAwtryCgWF6hPYFLRwOUHiFmHGCBKP5NPFNkDVopOieyUqYGH8Fa3kA==

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/templates/assets/echarts"

if [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$VERSION" ] &&
	[ -f "$dest/echarts.min.js" ] && [ -f "$dest/LICENSE" ] && [ -f "$dest/NOTICE" ]; then
	echo "echarts $VERSION already in $dest"
	exit 0
fi

command -v npm >/dev/null 2>&1 || { echo "fetch-echarts: npm is needed (Debian: apt-get install npm)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "echarts@$VERSION" >/dev/null)
tgz="$tmp/echarts-$VERSION.tgz"
[ -f "$tgz" ] || { echo "fetch-echarts: npm pack did not produce $tgz" >&2; exit 1; }

got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then
	echo "fetch-echarts: integrity mismatch for echarts@$VERSION" >&2
	echo "  want $INTEGRITY" >&2
	echo "  got  $got" >&2
	exit 1
fi

tar -xzf "$tgz" -C "$tmp" package/dist/echarts.min.js package/LICENSE package/NOTICE
mkdir -p "$dest"
cp "$tmp/package/dist/echarts.min.js" "$tmp/package/LICENSE" "$tmp/package/NOTICE" "$dest/"
printf '%s\n' "$VERSION" >"$dest/VERSION"
echo "echarts $VERSION -> $dest"
