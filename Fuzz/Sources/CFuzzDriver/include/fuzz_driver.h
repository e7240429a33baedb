#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/* libFuzzer's driver (compiler-rt). SwiftPM gives each executable a main of its own, so the
   targets call the driver from it instead of linking libFuzzer's main. */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
