/* Entry point of the MLIR bytecode reader: header and tables first, then
 * the IR section, which decodes the attributes and types it refers to. */
#include "graph/stablehlo/bytecode.h"

#include <string.h>

#include "graph/stablehlo/bytecode_internal.h"

bool hlx_is_mlir_bytecode(const void* data, size_t len) {
  return data && len >= 4 && memcmp(data, "ML\xefR", 4) == 0;
}

hlx_status_t hlx_parse_bytecode(const void* data, size_t len,
                                const char* filename, hlx_module_t** out) {
  if (out) *out = NULL;
  if (!out || (!data && len > 0))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_parse_bytecode: NULL argument");
  hlx_bc_t bc;
  memset(&bc, 0, sizeof bc);
  bc.data = data;
  bc.size = len;
  bc.filename = filename;
  bc.m = hlx_module_create();
  if (!bc.m) return hlx_status_oom();
  hlx_arena_init(&bc.scratch);
  bool ok = hlx_bc_read_header(&bc) && hlx_bc_read_tables(&bc) && hlx_bc_read_ir(&bc);
  hlx_arena_release(&bc.scratch);
  if (!ok || bc.err) {
    hlx_module_destroy(bc.m);
    return bc.err ? bc.err
                  : hlx_make_status(HLX_STATUS_INTERNAL, "%s: bytecode reader failed",
                                    filename ? filename : "<bytecode>");
  }
  *out = bc.m;
  return NULL;
}
