#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (CI smoke: `Fuzz/run-all.sh 10`).
#
#   Fuzz/run-all.sh SECONDS
#
# Builds the fuzz package once, then runs Fuzz/run.sh for each target in turn and prints its
# summary line (executions, exec/s, coverage, crashes). Exits 1 if any target found a crash,
# hang or out-of-memory, 2 if the build failed, 0 otherwise.
set -uo pipefail

# Everything runs inside main, so that editing this file while a run is in progress cannot
# change what that run executes (bash reads scripts as it goes).
main() {
    here="$(cd "$(dirname "$0")" && pwd)"
    if [ $# -ne 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
        echo "usage: $0 SECONDS" >&2
        exit 2
    fi
    "$here/build.sh" >&2 || exit 2

    failed=()
    for target in json sequence expression template manifest sync-response; do
        FUZZ_NO_BUILD=1 "$here/run.sh" "$target" "$1" || failed+=("$target")
    done
    if [ ${#failed[@]} -gt 0 ]; then
        echo "fuzzing found problems in: ${failed[*]} (artifacts in ${FUZZ_WORK_DIR:-$here/.work}/TARGET/artifacts)"
        exit 1
    fi
    echo "fuzzing: no crash in 6 targets"
}

main "$@"
