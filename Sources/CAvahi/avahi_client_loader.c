// The libavahi-client functions HandoffAvahi calls, each forwarding to libavahi-client.so.3 loaded
// by handoff_avahi_client_load() (cavahi.h: why). Each is defined hidden, so that the library's
// calls to its own functions are never captured by ours (as in CLDNS and CSystemdBus).
#include "cavahi.h"

#include "library_loader.h"

HANDOFF_FORWARD(AvahiClient *, avahi_client_new,
        (const AvahiPoll *poll_api, AvahiClientFlags flags, AvahiClientCallback callback, void *userdata, int *error),
        (poll_api, flags, callback, userdata, error))
HANDOFF_FORWARD_VOID(avahi_client_free, (AvahiClient *client), (client))
HANDOFF_FORWARD(int, avahi_client_errno, (AvahiClient *client), (client))
HANDOFF_FORWARD(const char *, avahi_client_get_version_string, (AvahiClient *client), (client))
HANDOFF_FORWARD(AvahiEntryGroup *, avahi_entry_group_new, (AvahiClient *c, AvahiEntryGroupCallback callback, void *userdata),
        (c, callback, userdata))
HANDOFF_FORWARD(int, avahi_entry_group_free, (AvahiEntryGroup *group), (group))
HANDOFF_FORWARD(int, avahi_entry_group_commit, (AvahiEntryGroup *group), (group))
HANDOFF_FORWARD(int, avahi_entry_group_reset, (AvahiEntryGroup *group), (group))
HANDOFF_FORWARD(int, avahi_entry_group_add_service_strlst,
        (AvahiEntryGroup *group, AvahiIfIndex interface, AvahiProtocol protocol, AvahiPublishFlags flags, const char *name,
         const char *type, const char *domain, const char *host, uint16_t port, AvahiStringList *txt),
        (group, interface, protocol, flags, name, type, domain, host, port, txt))
HANDOFF_FORWARD(int, avahi_entry_group_update_service_txt_strlst,
        (AvahiEntryGroup *group, AvahiIfIndex interface, AvahiProtocol protocol, AvahiPublishFlags flags, const char *name,
         const char *type, const char *domain, AvahiStringList *strlst),
        (group, interface, protocol, flags, name, type, domain, strlst))
HANDOFF_FORWARD(int, avahi_entry_group_add_address,
        (AvahiEntryGroup *group, AvahiIfIndex interface, AvahiProtocol protocol, AvahiPublishFlags flags, const char *name,
         const AvahiAddress *a),
        (group, interface, protocol, flags, name, a))
HANDOFF_FORWARD(AvahiServiceBrowser *, avahi_service_browser_new,
        (AvahiClient *client, AvahiIfIndex interface, AvahiProtocol protocol, const char *type, const char *domain,
         AvahiLookupFlags flags, AvahiServiceBrowserCallback callback, void *userdata),
        (client, interface, protocol, type, domain, flags, callback, userdata))
HANDOFF_FORWARD(int, avahi_service_browser_free, (AvahiServiceBrowser *browser), (browser))
HANDOFF_FORWARD(AvahiServiceResolver *, avahi_service_resolver_new,
        (AvahiClient *client, AvahiIfIndex interface, AvahiProtocol protocol, const char *name, const char *type,
         const char *domain, AvahiProtocol aprotocol, AvahiLookupFlags flags, AvahiServiceResolverCallback callback,
         void *userdata),
        (client, interface, protocol, name, type, domain, aprotocol, flags, callback, userdata))
HANDOFF_FORWARD(int, avahi_service_resolver_free, (AvahiServiceResolver *resolver), (resolver))
HANDOFF_FORWARD(AvahiRecordBrowser *, avahi_record_browser_new,
        (AvahiClient *client, AvahiIfIndex interface, AvahiProtocol protocol, const char *name, uint16_t clazz,
         uint16_t type, AvahiLookupFlags flags, AvahiRecordBrowserCallback callback, void *userdata),
        (client, interface, protocol, name, clazz, type, flags, callback, userdata))
HANDOFF_FORWARD(int, avahi_record_browser_free, (AvahiRecordBrowser *browser), (browser))

static const struct handoff_library_function functions[] = {
    HANDOFF_ENTRY(avahi_client_new), HANDOFF_ENTRY(avahi_client_free), HANDOFF_ENTRY(avahi_client_errno),
    HANDOFF_ENTRY(avahi_client_get_version_string), HANDOFF_ENTRY(avahi_entry_group_new), HANDOFF_ENTRY(avahi_entry_group_free),
    HANDOFF_ENTRY(avahi_entry_group_commit), HANDOFF_ENTRY(avahi_entry_group_reset),
    HANDOFF_ENTRY(avahi_entry_group_add_service_strlst), HANDOFF_ENTRY(avahi_entry_group_update_service_txt_strlst),
    HANDOFF_ENTRY(avahi_entry_group_add_address), HANDOFF_ENTRY(avahi_service_browser_new), HANDOFF_ENTRY(avahi_service_browser_free),
    HANDOFF_ENTRY(avahi_service_resolver_new), HANDOFF_ENTRY(avahi_service_resolver_free), HANDOFF_ENTRY(avahi_record_browser_new),
    HANDOFF_ENTRY(avahi_record_browser_free),
};

static struct handoff_library library = HANDOFF_LIBRARY("libavahi-client.so.3", functions);

const char *handoff_avahi_client_load(void) { return handoff_library_load(&library); }
