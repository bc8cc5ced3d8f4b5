#!/bin/sh
# install-deps.sh installs, on a fresh Debian machine, what kafkabook and its
# tests need beyond Go: Java 17+ and Maven (Kafka's jars come from Maven
# Central), iproute2 (network namespaces), npm (to fetch echarts) and
# Chromium (the report's browser test). It only installs what is missing,
# then fetches echarts. Run as root.
set -eu
need=""
command -v java >/dev/null 2>&1 || need="$need openjdk-17-jre-headless"
command -v mvn >/dev/null 2>&1 || need="$need maven"
command -v ip >/dev/null 2>&1 || need="$need iproute2"
command -v npm >/dev/null 2>&1 || need="$need npm"
command -v openssl >/dev/null 2>&1 || need="$need openssl"
[ -x /usr/bin/chromium ] || need="$need chromium"
if [ -n "$need" ]; then
	echo "install-deps: apt-get install$need"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends $need
fi
"$(dirname "$0")/fetch-echarts.sh"
