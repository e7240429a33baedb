/* The declarations are in include/fuzz_driver.h; the code is libFuzzer's. */
