# bench-lib.sh is sourced by the benchmark scripts after they set VERSION,
# WORK, BIN and TOOLS: it resolves Kafka's own tools (kafka-tools and its
# dependencies, once into the cache, the way kafkabook fetches Kafka's jars),
# defines java_tool to run one of them, starts a three-node cluster that is
# taken down on exit, and sets BOOT to its bootstrap servers.
if [ ! -f "$TOOLS/complete" ]; then
	rm -rf "$TOOLS" && mkdir -p "$TOOLS"
	cat >"$TOOLS/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafkabook</groupId><artifactId>kafka-tools-libs</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$VERSION</version></dependency>
  </dependencies>
</project>
EOF
	mvn -B -q -f "$TOOLS/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$TOOLS/libs"
	touch "$TOOLS/complete"
fi
java_tool() { java -Xmx512m -cp "$TOOLS/libs/*" "$@" 2>&1 | grep -v '^SLF4J'; }

cleanup() { "$BIN" cluster down >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$BIN" cluster up --kafka "$VERSION" --nodes 3 >"$WORK/cluster-up.log" 2>&1
BOOT=$("$BIN" cluster status --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(",".join(n["address"] + ":" + str(s.get("port", 9092)) if ":" not in n["address"] else n["address"] for n in s["nodes"]))')
echo "bench: cluster up, bootstrap $BOOT"
