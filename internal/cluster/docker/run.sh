#!/bin/bash
# Entrypoint of kafkabook/kafka images (`kafkabook image build`). Like the
# apache/kafka image's: the broker is configured from KAFKA_* environment
# variables (KAFKA_FOO_BAR=x becomes foo.bar=x; __ stands for _ and ___
# for -), storage is formatted once with CLUSTER_ID, and the broker runs in
# the foreground as the container's main process, so that docker kill,
# stop and pause act on the JVM itself.
set -euo pipefail

if [[ -z "${KAFKA_PROCESS_ROLES:-}" ]]; then
  # Nothing configured: one node alone, as apache/kafka starts it.
  export KAFKA_NODE_ID="${KAFKA_NODE_ID:-1}"
  export KAFKA_PROCESS_ROLES=broker,controller
  export KAFKA_LISTENER_SECURITY_PROTOCOL_MAP="${KAFKA_LISTENER_SECURITY_PROTOCOL_MAP:-CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PLAINTEXT_HOST:PLAINTEXT}"
  export KAFKA_LISTENERS="${KAFKA_LISTENERS:-PLAINTEXT://localhost:29092,CONTROLLER://localhost:29093,PLAINTEXT_HOST://0.0.0.0:9092}"
  export KAFKA_ADVERTISED_LISTENERS="${KAFKA_ADVERTISED_LISTENERS:-PLAINTEXT://localhost:29092,PLAINTEXT_HOST://localhost:9092}"
  export KAFKA_CONTROLLER_QUORUM_VOTERS="${KAFKA_CONTROLLER_QUORUM_VOTERS:-1@localhost:29093}"
  export KAFKA_INTER_BROKER_LISTENER_NAME="${KAFKA_INTER_BROKER_LISTENER_NAME:-PLAINTEXT}"
  export KAFKA_CONTROLLER_LISTENER_NAMES="${KAFKA_CONTROLLER_LISTENER_NAMES:-CONTROLLER}"
  export KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR="${KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR:-1}"
  export KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR="${KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR:-1}"
  export KAFKA_TRANSACTION_STATE_LOG_MIN_ISR="${KAFKA_TRANSACTION_STATE_LOG_MIN_ISR:-1}"
  export KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS="${KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS:-0}"
  export KAFKA_LOG_DIRS="${KAFKA_LOG_DIRS:-/tmp/kraft-combined-logs}"
fi
CLUSTER_ID="${CLUSTER_ID:-5L6g3nShT-eMCtK--X86sw}"
if [[ -z "${KAFKA_LISTENERS:-}" && -n "${KAFKA_ADVERTISED_LISTENERS:-}" ]]; then
  export KAFKA_LISTENERS
  KAFKA_LISTENERS=$(sed -e 's|://[^:]*:|://0.0.0.0:|g' <<<"$KAFKA_ADVERTISED_LISTENERS")
fi

conf=/opt/kafka/config/server.properties
{
  echo "# written by $0 from the KAFKA_* environment"
  while IFS= read -r -d '' kv; do
    name=${kv%%=*}
    case $name in
      KAFKA_VERSION|KAFKA_HOME|KAFKA_HEAP_OPTS|KAFKA_LOG4J_OPTS|KAFKA_OPTS|KAFKA_JMX_OPTS|KAFKA_JVM_PERFORMANCE_OPTS|KAFKA_GC_LOG_OPTS|KAFKA_LOG4J_ROOT_LOGLEVEL|KAFKA_LOG4J_LOGGERS|KAFKA_TOOLS_LOG4J_LOGLEVEL) continue ;;
      KAFKA_*) ;;
      *) continue ;;
    esac
    key=${name#KAFKA_}
    key=${key,,}
    key=${key//___/-}
    key=${key//__/$'\x01'}
    key=${key//_/.}
    key=${key//$'\x01'/_}
    printf '%s=%s\n' "$key" "${kv#*=}"
  done < <(env -0)
} >"$conf"

read -r -a heap <<<"${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G}"
read -r -a perf <<<"${KAFKA_JVM_PERFORMANCE_OPTS:--server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -Djava.awt.headless=true}"
read -r -a log4j <<<"${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=/etc/kafkabook/log4j2.properties}"
read -r -a opts <<<"${KAFKA_OPTS:-}"
jvm=("${heap[@]}" "${perf[@]}" "${log4j[@]}" "${opts[@]}" -cp '/opt/kafka/libs/*')

# A dynamic controller quorum (KIP-853): kafkabook names the initial
# voters, each with its directory id, or none for a controller that joins
# as an observer.
format=(--ignore-formatted -t "$CLUSTER_ID" -c "$conf")
if [[ -n "${KAFKABOOK_INITIAL_CONTROLLERS:-}" ]]; then
  format+=(--initial-controllers "$KAFKABOOK_INITIAL_CONTROLLERS")
elif [[ -n "${KAFKABOOK_NO_INITIAL_CONTROLLERS:-}" ]]; then
  format+=(--no-initial-controllers)
fi
java "${jvm[@]}" kafka.tools.StorageTool format "${format[@]}"
exec java "${jvm[@]}" kafka.Kafka "$conf"
