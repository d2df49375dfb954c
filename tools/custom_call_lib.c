#include "tools/custom_call_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"

struct hlx_custom_call_libs_t {
  hlx_host_function_registry_t* registry;
  void** handles;
  int n;
};

/* Opens one library and calls its entry point. */
static hlx_status_t open_one(hlx_custom_call_libs_t* l, const char* path) {
  char local[4096];
  const char* file = path;
  if (!strchr(path, '/')) { /* dlopen would search the loader's path */
    snprintf(local, sizeof local, "./%s", path);
    file = local;
  }
  void* h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    return hlx_make_status(HLX_STATUS_NOT_FOUND,
                           "--custom-call-lib %s: cannot load it: %s", path,
                           why ? why : "unknown error");
  }
  l->handles[l->n++] = h;
  void* sym = dlsym(h, HLX_REGISTER_HOST_FUNCTIONS_SYMBOL);
  if (!sym)
    return hlx_make_status(HLX_STATUS_NOT_FOUND,
                           "--custom-call-lib %s: the library does not "
                           "export %s (extern \"C\" hlx_status_t %s("
                           "hlx_host_function_registry_t*), see api/hlx.h)",
                           path, HLX_REGISTER_HOST_FUNCTIONS_SYMBOL,
                           HLX_REGISTER_HOST_FUNCTIONS_SYMBOL);
  hlx_register_host_functions_fn reg;
  memcpy(&reg, &sym, sizeof reg); /* POSIX: dlsym gives functions too */
  hlx_status_t st = reg(l->registry);
  if (st)
    return hlx_status_annotate(st, "--custom-call-lib %s: %s failed", path,
                               HLX_REGISTER_HOST_FUNCTIONS_SYMBOL);
  return NULL;
}

hlx_status_t hlx_custom_call_libs_open(const char* const* paths, int n,
                                       hlx_custom_call_libs_t** out) {
  *out = NULL;
  hlx_custom_call_libs_t* l = calloc(1, sizeof *l);
  if (!l) return hlx_status_oom();
  l->handles = calloc((size_t)n + 1, sizeof(void*));
  hlx_status_t st = l->handles ? hlx_host_function_registry_create(&l->registry)
                               : hlx_status_oom();
  for (int i = 0; !st && i < n; i++) st = open_one(l, paths[i]);
  if (st) {
    hlx_custom_call_libs_close(l);
    return st;
  }
  *out = l;
  return NULL;
}

const hlx_host_function_v2_t* hlx_custom_call_libs_functions(
    const hlx_custom_call_libs_t* l, int32_t* out_count) {
  *out_count = 0;
  return l ? hlx_host_function_registry_functions(l->registry, out_count)
           : NULL;
}

void hlx_custom_call_libs_close(hlx_custom_call_libs_t* l) {
  if (!l) return;
  hlx_host_function_registry_destroy(l->registry);
  for (int i = l->n - 1; i >= 0; i--) dlclose(l->handles[i]);
  free(l->handles);
  free(l);
}
