#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time.
#
#   Fuzz/run.sh TARGET SECONDS [extra libFuzzer flags...]
#
# TARGET is json, sequence, expression, template, manifest or sync-response. Builds the target
# with build.sh (release, libFuzzer + AddressSanitizer) unless FUZZ_NO_BUILD=1, regenerates the
# seed corpus from Fixtures/ (seeds.py), then fuzzes for SECONDS with bounded memory and
# per-input time. The growing corpus and any crash artifacts live in Fuzz/.work/TARGET/
# (git-ignored). Prints one summary line:
#   TARGET: executions N, exec/s X, coverage C edges (F features), corpus K, crashes 0
# Exits 0 when no crash, hang or out-of-memory was found, 1 when one was (the artifact path is
# printed), 2 for bad usage or a build failure.
set -euo pipefail

# Everything runs inside main, so that editing this file while a run is in progress cannot
# change what that run executes (bash reads scripts as it goes).
main() {
    here="$(cd "$(dirname "$0")" && pwd)"
    targets="json sequence expression template manifest sync-response"
    if [ $# -lt 2 ] || ! [[ " $targets " == *" $1 "* ]] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
        echo "usage: $0 {${targets// /|}} SECONDS [libFuzzer flags...]" >&2
        exit 2
    fi
    target="$1"
    seconds="$2"
    shift 2

    build="${FUZZ_BUILD_DIR:-$here/.build}"
    work="${FUZZ_WORK_DIR:-$here/.work}/$target"
    if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
        "$here/build.sh" --product "fuzz-$target" >&2 || exit 2
    fi
    binary="$build/release/fuzz-$target"
    [ -x "$binary" ] || { echo "$binary is missing: build first" >&2; exit 2; }

    mkdir -p "$work/corpus" "$work/artifacts"
    rm -rf "$work/seeds"
    python3 "$here/seeds.py" "$target" "$work/seeds" >&2
    log="$work/last-run.log"
    before=$(find "$work/artifacts" -type f | wc -l)

    # Swift's own crash reporter would run inside the sanitized process and confuse ASan; libFuzzer
    # reports the crash and writes the input instead. Leak checking is off: the Swift runtime keeps
    # metadata caches that LeakSanitizer reports as leaks.
    status=0
    SWIFT_BACKTRACE=enable=no \
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=0:handle_abort=1}" \
        "$binary" "$work/corpus" "$work/seeds" \
        -dict="$here/dictionaries/$target.dict" \
        -max_total_time="$seconds" \
        -timeout="${FUZZ_TIMEOUT:-10}" \
        -rss_limit_mb="${FUZZ_RSS_LIMIT_MB:-2048}" \
        -malloc_limit_mb="${FUZZ_MALLOC_LIMIT_MB:-512}" \
        -max_len="${FUZZ_MAX_LEN:-16384}" \
        -artifact_prefix="$work/artifacts/" \
        -print_final_stats=1 \
        "$@" >"$log" 2>&1 || status=$?

    after=$(find "$work/artifacts" -type f | wc -l)
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | grep -E ' cov: ' | tail -1 || true)
    coverage=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    features=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corpus=$(find "$work/corpus" -type f | wc -l)
    crashes=$((after - before))
    if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi
    echo "$target: executions ${executions:-?}, exec/s ${rate:-?}, coverage ${coverage:-?} edges (${features:-?} features), corpus $corpus, crashes $crashes"
    if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
        echo "$target: FAILED (libFuzzer exit $status); log $log" >&2
        grep -E 'ERROR|Fatal error|fuzz invariant|SUMMARY|Test unit written|artifact' "$log" | head -20 >&2 || true
        exit 1
    fi
}

main "$@"
