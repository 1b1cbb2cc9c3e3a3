#!/usr/bin/env bash
# First-run latency of `partita run GRAPH --iterations 1`, four ways in alternating rounds:
#   cold       no persistent store, no startup cache
#   store      persistent store already filled by an earlier process (engines cpu;gpu)
#   aot        startup cache recorded by `partita train-startup GRAPH`
#   aot+store  both
# Prints per run: first-iteration ms, the sum of the partition compile times, and the process wall ms.
# Usage (repository root, after ./mvnj -q install -DskipTests):
#   tools/startup/first-run.sh GRAPH ROUNDS [run options]
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 GRAPH ROUNDS [run options]" >&2
  exit 2
fi
G=$1; R=$2; shift 2; EXTRA=("$@")
P=distribution/target/partita/bin/partita
[ -x "$P" ] || { echo "$0: no launcher at $P (run ./mvnj -q install -DskipTests first)" >&2; exit 2; }
W=$(mktemp -d); chmod 700 "$W"; trap 'rm -rf "$W"' EXIT
export PARTITA_STARTUP_CACHE_DIR=$W/startup
store=(PARTITA_PERSISTENT_CACHE_DIR=$W/store PARTITA_PERSISTENT_CACHE_CAPACITY=256 "PARTITA_PERSISTENT_CACHE_ENGINES=cpu;gpu")
env "${store[@]}" PARTITA_STARTUP_CACHE=off $P run "$G" --iterations 1 "${EXTRA[@]}" >/dev/null 2>&1   # fills the store
$P train-startup "$G" --iterations 3 "${EXTRA[@]}" >/dev/null || { echo "$0: train-startup failed" >&2; exit 4; }
one() {
  local t0 t1 out first comp
  t0=$(date +%s%N)
  case $1 in
    cold) out=$(PARTITA_STARTUP_CACHE=off $P run "$G" --iterations 1 "${EXTRA[@]}" 2>&1);;
    store) out=$(env "${store[@]}" PARTITA_STARTUP_CACHE=off $P run "$G" --iterations 1 "${EXTRA[@]}" 2>&1);;
    aot) out=$($P run "$G" --iterations 1 "${EXTRA[@]}" 2>&1);;
    aot+store) out=$(env "${store[@]}" $P run "$G" --iterations 1 "${EXTRA[@]}" 2>&1);;
  esac
  t1=$(date +%s%N)
  first=$(grep -o "first iteration: [0-9.]* m\?s" <<<"$out" | awk '{v=$3; if ($4=="s") v*=1000; print v}')
  comp=$(grep -E "^ +[0-9]+  [a-z]+ " <<<"$out" | awk '{for(i=1;i<=NF;i++) if ($i=="ms"||$i=="us"||$i=="s") {v=$(i-1); if($i=="us") v/=1000; if($i=="s") v*=1000; s+=v; break}} END{printf "%.1f", s}')
  echo "$1 first_ms=$first compile_sum_ms=$comp wall_ms=$(( (t1-t0)/1000000 ))"
}
for r in $(seq 1 "$R"); do for m in cold store aot aot+store; do one $m; done; done
