#include "library_loader.h"

#include <dlfcn.h>

const char *handoff_library_load(struct handoff_library *library) {
    pthread_mutex_lock(&library->lock);
    if (!library->loaded) {
        void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            library->failure = dlerror();
        } else {
            library->failure = NULL;
            for (size_t i = 0; i < library->count; i++) {
                *library->functions[i].slot = dlsym(handle, library->functions[i].name);
                if (!*library->functions[i].slot) {
                    library->failure = dlerror();
                    break;
                }
            }
            library->loaded = library->failure == NULL;
        }
    }
    const char *result = library->loaded ? NULL : library->failure;
    pthread_mutex_unlock(&library->lock);
    return result;
}
