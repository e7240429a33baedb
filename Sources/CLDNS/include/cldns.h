#ifndef HANDOFF_CLDNS_H
#define HANDOFF_CLDNS_H

// ldns (NLnet Labs), seen only by HandoffWideArea. The library is loaded when wide_area is
// configured (handoff_ldns_load), not at every start: it brings libssl and libcrypto, which cost
// each handoffd about 1.6 MiB of memory and a third of the loader's symbol relocations.
#include <ldns/ldns.h>

// Loads libldns.so.3 and finds every function handoffd calls. NULL when it is ready; else what
// went wrong (dlerror's text, kept until the next call). Safe to call more than once.
const char *handoff_ldns_load(void);

#endif
