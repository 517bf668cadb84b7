#!/usr/bin/env bash
# Timing-sensitive tests must pass on a busy machine (issue 35): runs `pnpm test:fast` twice with
# a CPU hog (`yes > /dev/null`) per core beside it, and fails when a run fails. Each run prints its
# wall time and the CPU time of the tests (user and system, workers included) with the load
# average before and after. Arguments go to vitest, e.g. one folder:
#
#   scripts/test-under-load.sh packages/server/src/mcp
#
# TEST_UNDER_LOAD_RUNS (default 2) and TEST_UNDER_LOAD_HOGS (default: the number of cores) change
# how many runs and how many hogs.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${TEST_UNDER_LOAD_RUNS:-2}
hog_count=${TEST_UNDER_LOAD_HOGS:-$(nproc)}

hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_hogs EXIT
for _ in $(seq 1 "$hog_count"); do
  yes >/dev/null &
  hogs+=("$!")
done

TIMEFORMAT='%R s wall, %U s user + %S s system CPU'
failed=0
for run in $(seq 1 "$runs"); do
  echo "test-under-load: run $run of $runs beside $hog_count CPU hog(s);$(uptime | sed 's/.*,  *load/ load/')"
  status=0
  time pnpm test:fast "$@" || status=$?
  echo "test-under-load: run $run exited $status;$(uptime | sed 's/.*,  *load/ load/')"
  [ "$status" -eq 0 ] || failed=1
done
exit "$failed"
