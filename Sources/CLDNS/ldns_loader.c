// The ldns functions HandoffWideArea calls, each forwarding to libldns.so.3 loaded by
// handoff_ldns_load(). Each is defined hidden: the executable exports its symbols, and a
// default-visibility ldns_pkt_free here would capture libldns's calls to its own functions.
#include "cldns.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#define FORWARD(ret, name, params, args)                                                                      \
    static ret(*real_##name) params;                                                                          \
    __attribute__((visibility("hidden"))) ret name params { return real_##name args; }
#define FORWARD_VOID(name, params, args)                                                                      \
    static void(*real_##name) params;                                                                         \
    __attribute__((visibility("hidden"))) void name params { real_##name args; }

FORWARD(ldns_rdf *, ldns_dname_new_frm_str, (const char *str), (str))
FORWARD(const char *, ldns_get_errorstr_by_id, (ldns_status err), (err))
FORWARD_VOID(ldns_pkt_free, (ldns_pkt *packet), (packet))
FORWARD(ldns_pkt_rcode, ldns_pkt_get_rcode, (const ldns_pkt *p), (p))
FORWARD(ldns_rr_list *, ldns_pkt_rr_list_by_type, (const ldns_pkt *p, ldns_rr_type t, ldns_pkt_section s), (p, t, s))
FORWARD_VOID(ldns_pkt_set_random_id, (ldns_pkt *p), (p))
FORWARD(char *, ldns_rdf2str, (const ldns_rdf *rdf), (rdf))
FORWARD_VOID(ldns_rdf_deep_free, (ldns_rdf *rd), (rd))
FORWARD(ldns_rdf *, ldns_rdf_new_frm_str, (ldns_rdf_type type, const char *str), (type, str))
FORWARD_VOID(ldns_resolver_deep_free, (ldns_resolver *res), (res))
FORWARD(ldns_resolver *, ldns_resolver_new, (void), ())
FORWARD(ldns_status, ldns_resolver_push_nameserver, (ldns_resolver *r, const ldns_rdf *n), (r, n))
FORWARD(ldns_status, ldns_resolver_query_status,
        (ldns_pkt **pkt, ldns_resolver *r, const ldns_rdf *name, ldns_rr_type t, ldns_rr_class c, uint16_t flags),
        (pkt, r, name, t, c, flags))
FORWARD(ldns_status, ldns_resolver_send_pkt, (ldns_pkt **answer, ldns_resolver *r, ldns_pkt *query_pkt), (answer, r, query_pkt))
FORWARD_VOID(ldns_resolver_set_defnames, (ldns_resolver *r, bool b), (r, b))
FORWARD_VOID(ldns_resolver_set_dnsrch, (ldns_resolver *r, bool b), (r, b))
FORWARD_VOID(ldns_resolver_set_fallback, (ldns_resolver *r, bool fallback), (r, fallback))
FORWARD_VOID(ldns_resolver_set_port, (ldns_resolver *r, uint16_t p), (r, p))
FORWARD_VOID(ldns_resolver_set_recursive, (ldns_resolver *r, bool b), (r, b))
FORWARD_VOID(ldns_resolver_set_retrans, (ldns_resolver *r, uint8_t re), (r, re))
FORWARD_VOID(ldns_resolver_set_retry, (ldns_resolver *r, uint8_t re), (r, re))
FORWARD_VOID(ldns_resolver_set_timeout, (ldns_resolver *r, struct timeval timeout), (r, timeout))
FORWARD_VOID(ldns_resolver_set_tsig_keyname, (ldns_resolver *r, const char *name), (r, name))
FORWARD_VOID(ldns_resolver_set_tsig_algorithm, (ldns_resolver *r, const char *algorithm), (r, algorithm))
FORWARD_VOID(ldns_resolver_set_tsig_keydata, (ldns_resolver *r, const char *keydata), (r, keydata))
FORWARD_VOID(ldns_rr_list_deep_free, (ldns_rr_list *rr_list), (rr_list))
FORWARD(ldns_rr_list *, ldns_rr_list_new, (void), ())
FORWARD(bool, ldns_rr_list_push_rr, (ldns_rr_list *rr_list, const ldns_rr *rr), (rr_list, rr))
FORWARD(ldns_rr *, ldns_rr_list_rr, (const ldns_rr_list *rr_list, size_t nr), (rr_list, nr))
FORWARD(size_t, ldns_rr_list_rr_count, (const ldns_rr_list *rr_list), (rr_list))
FORWARD(ldns_rr *, ldns_rr_new, (void), ())
FORWARD(ldns_status, ldns_rr_new_frm_str, (ldns_rr **n, const char *str, uint32_t default_ttl, const ldns_rdf *origin, ldns_rdf **prev),
        (n, str, default_ttl, origin, prev))
FORWARD(size_t, ldns_rr_rd_count, (const ldns_rr *rr), (rr))
FORWARD(ldns_rdf *, ldns_rr_rdf, (const ldns_rr *rr, size_t nr), (rr, nr))
FORWARD_VOID(ldns_rr_set_class, (ldns_rr *rr, ldns_rr_class rr_class), (rr, rr_class))
FORWARD_VOID(ldns_rr_set_owner, (ldns_rr *rr, ldns_rdf *owner), (rr, owner))
FORWARD_VOID(ldns_rr_set_ttl, (ldns_rr *rr, uint32_t ttl), (rr, ttl))
FORWARD_VOID(ldns_rr_set_type, (ldns_rr *rr, ldns_rr_type rr_type), (rr, rr_type))
FORWARD(ldns_pkt *, ldns_update_pkt_new,
        (ldns_rdf *zone_rdf, ldns_rr_class clas, const ldns_rr_list *pr_rrlist, const ldns_rr_list *up_rrlist,
         const ldns_rr_list *ad_rrlist),
        (zone_rdf, clas, pr_rrlist, up_rrlist, ad_rrlist))
FORWARD(ldns_status, ldns_update_pkt_tsig_add, (ldns_pkt *p, const ldns_resolver *r), (p, r))

#define ENTRY(name) {#name, (void **)&real_##name}
static const struct {
    const char *name;
    void **slot;
} functions[] = {
    ENTRY(ldns_dname_new_frm_str), ENTRY(ldns_get_errorstr_by_id), ENTRY(ldns_pkt_free), ENTRY(ldns_pkt_get_rcode),
    ENTRY(ldns_pkt_rr_list_by_type), ENTRY(ldns_pkt_set_random_id), ENTRY(ldns_rdf2str), ENTRY(ldns_rdf_deep_free),
    ENTRY(ldns_rdf_new_frm_str), ENTRY(ldns_resolver_deep_free), ENTRY(ldns_resolver_new), ENTRY(ldns_resolver_push_nameserver),
    ENTRY(ldns_resolver_query_status), ENTRY(ldns_resolver_send_pkt), ENTRY(ldns_resolver_set_defnames),
    ENTRY(ldns_resolver_set_dnsrch), ENTRY(ldns_resolver_set_fallback), ENTRY(ldns_resolver_set_port),
    ENTRY(ldns_resolver_set_recursive), ENTRY(ldns_resolver_set_retrans), ENTRY(ldns_resolver_set_retry),
    ENTRY(ldns_resolver_set_timeout), ENTRY(ldns_resolver_set_tsig_keyname), ENTRY(ldns_resolver_set_tsig_algorithm),
    ENTRY(ldns_resolver_set_tsig_keydata), ENTRY(ldns_rr_list_deep_free), ENTRY(ldns_rr_list_new), ENTRY(ldns_rr_list_push_rr),
    ENTRY(ldns_rr_list_rr), ENTRY(ldns_rr_list_rr_count), ENTRY(ldns_rr_new), ENTRY(ldns_rr_new_frm_str), ENTRY(ldns_rr_rd_count),
    ENTRY(ldns_rr_rdf), ENTRY(ldns_rr_set_class), ENTRY(ldns_rr_set_owner), ENTRY(ldns_rr_set_ttl), ENTRY(ldns_rr_set_type),
    ENTRY(ldns_update_pkt_new), ENTRY(ldns_update_pkt_tsig_add),
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;
static const char *failure;

const char *handoff_ldns_load(void) {
    pthread_mutex_lock(&lock);
    if (!loaded) {
        // RTLD_LOCAL: nothing of libldns (or of the OpenSSL it brings) is seen by later lookups.
        void *handle = dlopen("libldns.so.3", RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            failure = dlerror();
        } else {
            failure = NULL;
            for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
                *functions[i].slot = dlsym(handle, functions[i].name);
                if (!*functions[i].slot) {
                    failure = dlerror();
                    break;
                }
            }
            loaded = failure == NULL;
        }
    }
    const char *result = loaded ? NULL : failure;
    pthread_mutex_unlock(&lock);
    return result;
}
