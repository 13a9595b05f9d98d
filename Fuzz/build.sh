#!/usr/bin/env bash
# Builds the fuzz targets: release, libFuzzer coverage instrumentation and AddressSanitizer.
#
#   Fuzz/build.sh [--product fuzz-TARGET]
#
# Why these flags: SwiftPM's `--sanitize=fuzzer --sanitize=address` hands the compiler two
# separate `-sanitize=` options, and only one of them takes effect (which one varies between
# runs), so a build can silently lose its coverage instrumentation. The combined
# `-Xswiftc -sanitize=fuzzer,address` instruments every module; `--sanitize=fuzzer` is still
# needed so that SwiftPM leaves `main` to libFuzzer instead of aliasing it to the target's own
# (empty) entry point.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec swift build -c release --package-path "$here" --scratch-path "${FUZZ_BUILD_DIR:-$here/.build}" \
    --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address "$@"
