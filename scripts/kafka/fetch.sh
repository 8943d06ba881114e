#!/usr/bin/env bash
# Populate .cache/kafka/<version>/libs with the jars of an Apache Kafka broker,
# resolved from Maven Central through scripts/kafka/pom.xml.
#
# Idempotent: once the folder is complete (marker file .complete and the
# kafka_2.13 jar present) it does nothing. Safe to run concurrently: a lock
# serialises runs and the jars are copied into a temporary folder that is
# renamed into place only when Maven succeeded.
#
# Usage (from anywhere):   bash scripts/kafka/fetch.sh
# Environment:
#   KAFKA_VERSION     Kafka version to fetch (default: kafka.version in pom.xml)
#   KAFKA_CACHE_DIR   cache root (default: <repo>/.cache/kafka)
#   MVN               Maven executable (default: mvn)
#   MAVEN_ARGS_EXTRA  extra arguments for mvn, e.g. -Dmaven.repo.local=/path
#
# Messages go to stderr; the only line on stdout is the absolute libs path.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
pom="$here/pom.xml"

log() { printf 'kafka-fetch: %s\n' "$*" >&2; }

if [[ -z "${KAFKA_VERSION:-}" ]]; then
  KAFKA_VERSION="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom" | head -n1)"
fi
if [[ -z "$KAFKA_VERSION" ]]; then
  log "cannot read <kafka.version> from $pom"
  exit 2
fi

cache_root="${KAFKA_CACHE_DIR:-$repo_root/.cache/kafka}"
version_dir="$cache_root/$KAFKA_VERSION"
libs="$version_dir/libs"
marker="$libs/.complete"

is_complete() {
  [[ -f "$marker" ]] && compgen -G "$libs/kafka_2.13-$KAFKA_VERSION.jar" >/dev/null
}

if is_complete; then
  log "Kafka $KAFKA_VERSION jars already in $libs; nothing to do"
  printf '%s\n' "$libs"
  exit 0
fi

mkdir -p "$version_dir"

# Serialise concurrent fetches (e.g. parallel test workers) when flock exists.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$version_dir/.fetch.lock"
  log "waiting for lock $version_dir/.fetch.lock"
  flock 9
  if is_complete; then
    log "Kafka $KAFKA_VERSION jars were fetched by another run; nothing to do"
    printf '%s\n' "$libs"
    exit 0
  fi
fi

mvn_bin="${MVN:-mvn}"
if ! command -v "$mvn_bin" >/dev/null 2>&1; then
  log "Maven ('$mvn_bin') not found; install it (e.g. apt-get install maven) or set MVN"
  exit 127
fi
if ! command -v java >/dev/null 2>&1; then
  log "warning: 'java' not on PATH; the broker will need a JDK 17+ to run"
fi

tmp="$version_dir/libs.tmp.$$"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT

log "resolving Kafka $KAFKA_VERSION from Maven Central into $libs"
start=$SECONDS
# shellcheck disable=SC2086  # MAVEN_ARGS_EXTRA is meant to be word-split
if ! "$mvn_bin" -B -q -Dstyle.color=never -f "$pom" \
  -Dkafka.version="$KAFKA_VERSION" \
  ${MAVEN_ARGS_EXTRA:-} \
  dependency:copy-dependencies \
  -DincludeScope=runtime \
  -DoutputDirectory="$tmp" >&2; then
  log "Maven could not resolve Kafka $KAFKA_VERSION (see its errors above); is Maven Central reachable?"
  exit 1
fi

if ! compgen -G "$tmp/kafka_2.13-$KAFKA_VERSION.jar" >/dev/null; then
  log "Maven finished but kafka_2.13-$KAFKA_VERSION.jar is missing from $tmp"
  exit 1
fi

rm -rf "$libs"
mv "$tmp" "$libs"
count="$(find "$libs" -maxdepth 1 -name '*.jar' | wc -l)"
printf 'Kafka %s: %s jars, fetched %s\n' "$KAFKA_VERSION" "$count" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$marker"
log "done: $count jars in $libs ($((SECONDS - start)) s)"
printf '%s\n' "$libs"
