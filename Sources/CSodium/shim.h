#ifndef STEPWISE_CSODIUM_SHIM_H
#define STEPWISE_CSODIUM_SHIM_H
#include <sodium.h>
#endif
