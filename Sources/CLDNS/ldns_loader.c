// The ldns functions HandoffWideArea calls, each forwarding to libldns.so.3 loaded by
// handoff_ldns_load(). Each is defined hidden: the executable exports its symbols, and a
// default-visibility ldns_pkt_free here would capture libldns's calls to its own functions.
#include "cldns.h"

#include "library_loader.h"

HANDOFF_FORWARD(ldns_rdf *, ldns_dname_new_frm_str, (const char *str), (str))
HANDOFF_FORWARD(const char *, ldns_get_errorstr_by_id, (ldns_status err), (err))
HANDOFF_FORWARD_VOID(ldns_pkt_free, (ldns_pkt *packet), (packet))
HANDOFF_FORWARD(ldns_pkt_rcode, ldns_pkt_get_rcode, (const ldns_pkt *p), (p))
HANDOFF_FORWARD(ldns_rr_list *, ldns_pkt_rr_list_by_type, (const ldns_pkt *p, ldns_rr_type t, ldns_pkt_section s), (p, t, s))
HANDOFF_FORWARD_VOID(ldns_pkt_set_random_id, (ldns_pkt *p), (p))
HANDOFF_FORWARD(char *, ldns_rdf2str, (const ldns_rdf *rdf), (rdf))
HANDOFF_FORWARD_VOID(ldns_rdf_deep_free, (ldns_rdf *rd), (rd))
HANDOFF_FORWARD(ldns_rdf *, ldns_rdf_new_frm_str, (ldns_rdf_type type, const char *str), (type, str))
HANDOFF_FORWARD_VOID(ldns_resolver_deep_free, (ldns_resolver *res), (res))
HANDOFF_FORWARD(ldns_resolver *, ldns_resolver_new, (void), ())
HANDOFF_FORWARD(ldns_status, ldns_resolver_push_nameserver, (ldns_resolver *r, const ldns_rdf *n), (r, n))
HANDOFF_FORWARD(ldns_status, ldns_resolver_query_status,
        (ldns_pkt **pkt, ldns_resolver *r, const ldns_rdf *name, ldns_rr_type t, ldns_rr_class c, uint16_t flags),
        (pkt, r, name, t, c, flags))
HANDOFF_FORWARD(ldns_status, ldns_resolver_send_pkt, (ldns_pkt **answer, ldns_resolver *r, ldns_pkt *query_pkt), (answer, r, query_pkt))
HANDOFF_FORWARD_VOID(ldns_resolver_set_defnames, (ldns_resolver *r, bool b), (r, b))
HANDOFF_FORWARD_VOID(ldns_resolver_set_dnsrch, (ldns_resolver *r, bool b), (r, b))
HANDOFF_FORWARD_VOID(ldns_resolver_set_fallback, (ldns_resolver *r, bool fallback), (r, fallback))
HANDOFF_FORWARD_VOID(ldns_resolver_set_port, (ldns_resolver *r, uint16_t p), (r, p))
HANDOFF_FORWARD_VOID(ldns_resolver_set_recursive, (ldns_resolver *r, bool b), (r, b))
HANDOFF_FORWARD_VOID(ldns_resolver_set_retrans, (ldns_resolver *r, uint8_t re), (r, re))
HANDOFF_FORWARD_VOID(ldns_resolver_set_retry, (ldns_resolver *r, uint8_t re), (r, re))
HANDOFF_FORWARD_VOID(ldns_resolver_set_timeout, (ldns_resolver *r, struct timeval timeout), (r, timeout))
HANDOFF_FORWARD_VOID(ldns_resolver_set_tsig_keyname, (ldns_resolver *r, const char *name), (r, name))
HANDOFF_FORWARD_VOID(ldns_resolver_set_tsig_algorithm, (ldns_resolver *r, const char *algorithm), (r, algorithm))
HANDOFF_FORWARD_VOID(ldns_resolver_set_tsig_keydata, (ldns_resolver *r, const char *keydata), (r, keydata))
HANDOFF_FORWARD_VOID(ldns_rr_list_deep_free, (ldns_rr_list *rr_list), (rr_list))
HANDOFF_FORWARD(ldns_rr_list *, ldns_rr_list_new, (void), ())
HANDOFF_FORWARD(bool, ldns_rr_list_push_rr, (ldns_rr_list *rr_list, const ldns_rr *rr), (rr_list, rr))
HANDOFF_FORWARD(ldns_rr *, ldns_rr_list_rr, (const ldns_rr_list *rr_list, size_t nr), (rr_list, nr))
HANDOFF_FORWARD(size_t, ldns_rr_list_rr_count, (const ldns_rr_list *rr_list), (rr_list))
HANDOFF_FORWARD(ldns_rr *, ldns_rr_new, (void), ())
HANDOFF_FORWARD(ldns_status, ldns_rr_new_frm_str, (ldns_rr **n, const char *str, uint32_t default_ttl, const ldns_rdf *origin, ldns_rdf **prev),
        (n, str, default_ttl, origin, prev))
HANDOFF_FORWARD(size_t, ldns_rr_rd_count, (const ldns_rr *rr), (rr))
HANDOFF_FORWARD(ldns_rdf *, ldns_rr_rdf, (const ldns_rr *rr, size_t nr), (rr, nr))
HANDOFF_FORWARD_VOID(ldns_rr_set_class, (ldns_rr *rr, ldns_rr_class rr_class), (rr, rr_class))
HANDOFF_FORWARD_VOID(ldns_rr_set_owner, (ldns_rr *rr, ldns_rdf *owner), (rr, owner))
HANDOFF_FORWARD_VOID(ldns_rr_set_ttl, (ldns_rr *rr, uint32_t ttl), (rr, ttl))
HANDOFF_FORWARD_VOID(ldns_rr_set_type, (ldns_rr *rr, ldns_rr_type rr_type), (rr, rr_type))
HANDOFF_FORWARD(ldns_pkt *, ldns_update_pkt_new,
        (ldns_rdf *zone_rdf, ldns_rr_class clas, const ldns_rr_list *pr_rrlist, const ldns_rr_list *up_rrlist,
         const ldns_rr_list *ad_rrlist),
        (zone_rdf, clas, pr_rrlist, up_rrlist, ad_rrlist))
HANDOFF_FORWARD(ldns_status, ldns_update_pkt_tsig_add, (ldns_pkt *p, const ldns_resolver *r), (p, r))

static const struct handoff_library_function functions[] = {
    HANDOFF_ENTRY(ldns_dname_new_frm_str), HANDOFF_ENTRY(ldns_get_errorstr_by_id), HANDOFF_ENTRY(ldns_pkt_free), HANDOFF_ENTRY(ldns_pkt_get_rcode),
    HANDOFF_ENTRY(ldns_pkt_rr_list_by_type), HANDOFF_ENTRY(ldns_pkt_set_random_id), HANDOFF_ENTRY(ldns_rdf2str), HANDOFF_ENTRY(ldns_rdf_deep_free),
    HANDOFF_ENTRY(ldns_rdf_new_frm_str), HANDOFF_ENTRY(ldns_resolver_deep_free), HANDOFF_ENTRY(ldns_resolver_new), HANDOFF_ENTRY(ldns_resolver_push_nameserver),
    HANDOFF_ENTRY(ldns_resolver_query_status), HANDOFF_ENTRY(ldns_resolver_send_pkt), HANDOFF_ENTRY(ldns_resolver_set_defnames),
    HANDOFF_ENTRY(ldns_resolver_set_dnsrch), HANDOFF_ENTRY(ldns_resolver_set_fallback), HANDOFF_ENTRY(ldns_resolver_set_port),
    HANDOFF_ENTRY(ldns_resolver_set_recursive), HANDOFF_ENTRY(ldns_resolver_set_retrans), HANDOFF_ENTRY(ldns_resolver_set_retry),
    HANDOFF_ENTRY(ldns_resolver_set_timeout), HANDOFF_ENTRY(ldns_resolver_set_tsig_keyname), HANDOFF_ENTRY(ldns_resolver_set_tsig_algorithm),
    HANDOFF_ENTRY(ldns_resolver_set_tsig_keydata), HANDOFF_ENTRY(ldns_rr_list_deep_free), HANDOFF_ENTRY(ldns_rr_list_new), HANDOFF_ENTRY(ldns_rr_list_push_rr),
    HANDOFF_ENTRY(ldns_rr_list_rr), HANDOFF_ENTRY(ldns_rr_list_rr_count), HANDOFF_ENTRY(ldns_rr_new), HANDOFF_ENTRY(ldns_rr_new_frm_str), HANDOFF_ENTRY(ldns_rr_rd_count),
    HANDOFF_ENTRY(ldns_rr_rdf), HANDOFF_ENTRY(ldns_rr_set_class), HANDOFF_ENTRY(ldns_rr_set_owner), HANDOFF_ENTRY(ldns_rr_set_ttl), HANDOFF_ENTRY(ldns_rr_set_type),
    HANDOFF_ENTRY(ldns_update_pkt_new), HANDOFF_ENTRY(ldns_update_pkt_tsig_add),
};

static struct handoff_library library = HANDOFF_LIBRARY("libldns.so.3", functions);

const char *handoff_ldns_load(void) { return handoff_library_load(&library); }
