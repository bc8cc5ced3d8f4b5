#!/bin/sh
# install-deps.sh installs, on a fresh Debian machine, what kafkabook and its
# tests need beyond Go: Java 17+ and Maven (Kafka's jars come from Maven
# Central), iproute2 and iptables (network namespaces and their rules),
# fuse3 (fusermount3, for the power-loss layer under each node's data),
# faketime (libfaketime, preloaded into the brokers of a runbook that steps
# their clocks, and the wrapper that says its release) and Chromium (the report's browser tests). It only installs what is missing.
# The chart library is not installed here: kafkabook fetches it into its
# cache the first time it renders a report. Run as root. KAFKABOOK_DEPS=run
# leaves out Chromium: running runbooks does not need it (CI's matrix cells).
set -eu
need=""
command -v java >/dev/null 2>&1 || need="$need openjdk-17-jre-headless"
command -v mvn >/dev/null 2>&1 || need="$need maven"
# The client drivers (docs/driver-protocol.md): javac compiles the java
# driver; python3-venv holds confluent-kafka for the librdkafka driver.
command -v javac >/dev/null 2>&1 || need="$need openjdk-17-jdk-headless"
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need="$need python3-venv"
command -v ip >/dev/null 2>&1 || need="$need iproute2"
command -v iptables >/dev/null 2>&1 || need="$need iptables"
command -v fusermount3 >/dev/null 2>&1 || need="$need fuse3"
command -v faketime >/dev/null 2>&1 || need="$need faketime"
[ "${KAFKABOOK_DEPS:-}" = run ] || [ -x /usr/bin/chromium ] || need="$need chromium"
if [ -n "$need" ]; then
	echo "install-deps: apt-get install$need"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends $need
fi
