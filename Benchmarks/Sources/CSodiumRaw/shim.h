#ifndef STEPWISE_BENCH_CSODIUM_RAW_H
#define STEPWISE_BENCH_CSODIUM_RAW_H
// libsodium called directly: the baseline the manifest-verification benchmark is measured against.
#include <sodium.h>
#endif
