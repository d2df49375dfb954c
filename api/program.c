/* hlx_program_t: a parsed StableHLO module (or XLA HLO text, detected by
 * its content). */
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "graph/hlo/hlo_parser.h"
#include "graph/hlo/hlo_printer.h"
#include "graph/ops/verify.h"
#include "graph/stablehlo/bytecode.h"
#include "graph/stablehlo/input_format.h"
#include "graph/stablehlo/parser.h"
#include "graph/stablehlo/printer.h"

hlx_status_t hlx_program_parse(const char* text, size_t len,
                               const char* filename, int first_line,
                               hlx_program_t** out_program) {
  *out_program = NULL;
  const char* name = filename ? filename : "<text>";
  /* XLA HLO text first: its own detector knows every header-less form. */
  bool hlo = hlx_text_is_hlo(text, len);
  const char* hint = NULL;
  hlx_input_kind_t kind =
      hlo ? HLX_INPUT_HLO_TEXT : hlx_input_detect(text, len, &hint);
  if (hint)
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT, "%s: %s", name, hint);
  hlx_program_t* p = calloc(1, sizeof(*p));
  if (!p) return hlx_status_oom();
  hlx_status_t st =
      hlo ? hlx_parse_hlo_module(text, len, name, first_line, &p->module)
      : kind == HLX_INPUT_MLIR_BYTECODE
          ? hlx_parse_bytecode(text, len, filename ? filename : "<bytecode>",
                               &p->module)
          : hlx_parse_module(text, len, name, first_line, &p->module);
  /* The spec's rules are checked here, before anything is compiled: a
   * program that breaks one is refused by hlx_program_parse itself. */
  if (!st) st = hlx_verify_module(p->module);
  if (st) {
    hlx_module_destroy(p->module);
    free(p);
    return st;
  }
  *out_program = p;
  return NULL;
}

void hlx_program_destroy(hlx_program_t* p) {
  if (!p) return;
  hlx_module_destroy(p->module);
  free(p);
}

hlx_status_t hlx_program_print(const hlx_program_t* p, char** out_text,
                               size_t* out_len) {
  return hlx_print_module(p->module, out_text, out_len);
}

hlx_status_t hlx_program_print_hlo(const hlx_program_t* p, char** out_text,
                                   size_t* out_len) {
  return hlx_print_hlo_module(p->module, out_text, out_len);
}

int32_t hlx_program_num_functions(const hlx_program_t* p) {
  return p->module->num_funcs;
}

static const hlx_func_t* func_at(const hlx_program_t* p, int32_t i) {
  return (i >= 0 && i < p->module->num_funcs) ? p->module->funcs[i] : NULL;
}

const char* hlx_program_function_name(const hlx_program_t* p, int32_t i) {
  const hlx_func_t* f = func_at(p, i);
  return f ? f->name : NULL;
}

int32_t hlx_program_function_num_args(const hlx_program_t* p, int32_t i) {
  const hlx_func_t* f = func_at(p, i);
  return f ? f->num_args : -1;
}

bool hlx_program_function_is_public(const hlx_program_t* p, int32_t i) {
  const hlx_func_t* f = func_at(p, i);
  return f && f->is_public;
}

/* Whether any op in region r (recursively) refers to @name. */
static bool region_calls(const hlx_region_t* r, const char* name);

static bool attr_refers(const hlx_attr_t* a, const char* name) {
  if (!a) return false;
  if (a->kind == HLX_ATTR_SYMBOL) return strcmp(a->str, name) == 0;
  if (a->kind == HLX_ATTR_ARRAY)
    for (int32_t i = 0; i < a->count; i++)
      if (attr_refers(a->items[i], name)) return true;
  if (a->kind == HLX_ATTR_DICT || a->kind == HLX_ATTR_STRUCT)
    for (int32_t i = 0; i < a->count; i++)
      if (attr_refers(a->dict[i].value, name)) return true;
  return false;
}

static bool region_calls(const hlx_region_t* r, const char* name) {
  for (int32_t b = 0; b < r->num_blocks; b++) {
    const hlx_block_t* blk = r->blocks[b];
    for (int32_t o = 0; o < blk->num_ops; o++) {
      const hlx_op_t* op = blk->ops[o];
      for (int32_t i = 0; i < op->num_attrs; i++)
        if (attr_refers(op->attrs[i].value, name)) return true;
      for (int32_t i = 0; i < op->num_regions; i++)
        if (region_calls(op->regions[i], name)) return true;
    }
  }
  return false;
}

bool hlx_program_function_is_called(const hlx_program_t* p, int32_t i) {
  const hlx_func_t* f = func_at(p, i);
  if (!f) return false;
  for (int32_t j = 0; j < p->module->num_funcs; j++)
    if (j != i && region_calls(p->module->funcs[j]->body, f->name)) return true;
  return false;
}

const char* hlx_program_entry(const hlx_program_t* p) {
  const hlx_func_t* f = hlx_module_entry(p->module);
  return f ? f->name : NULL;
}
