#ifndef HANDOFF_CLDNS_SHIM_H
#define HANDOFF_CLDNS_SHIM_H

#include <ldns/ldns.h>

#endif
