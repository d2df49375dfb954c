/* The HLO front end's entry points: detection of HLO text and parsing
 * (syntax tree, then import into a module). */
#include "graph/hlo/hlo_parser.h"

#include <string.h>

#include "graph/hlo/hlo_internal.h"

static bool has_entry_line(const char* text, size_t len) {
  const char* p = text;
  const char* end = text + len;
  while (p < end) {
    const char* q = p;
    while (q < end && (*q == ' ' || *q == '\t')) q++;
    if (end - q >= 6 && memcmp(q, "ENTRY", 5) == 0 &&
        (q[5] == ' ' || q[5] == '\t' || q[5] == '%'))
      return true;
    const char* nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) break;
    p = nl + 1;
  }
  return false;
}

bool hlx_text_is_hlo(const char* text, size_t len) {
  if (!text) return false;
  hlo_lexer_t lx;
  hlo_lx_init(&lx, text, len, 1, text);
  hlo_tok_t t = hlo_lx_next(&lx);
  if (t.kind != HT_NAME) return false;
  if (hlo_tok_is(t, "HloModule") || hlo_tok_is(t, "ENTRY")) return true;
  if (hlo_tok_is(t, "module") || hlo_tok_is(t, "func.func") ||
      hlo_tok_is(t, "func"))
    return false;
  if (has_entry_line(text, len)) return true;
  hlo_tok_t n = hlo_lx_next(&lx);
  return hlo_tok_punct(n, "{") || hlo_tok_punct(n, "(");
}

hlx_status_t hlx_parse_hlo_module(const char* text, size_t len,
                                  const char* filename, int first_line,
                                  hlx_module_t** out) {
  if (out) *out = NULL;
  if (!out || (!text && len > 0))
    return hlx_make_status(HLX_STATUS_INVALID_ARGUMENT,
                           "hlx_parse_hlo_module: NULL argument");
  hlo_err_t e = {filename, NULL};
  hlx_arena_t scratch;
  hlx_arena_init(&scratch);
  hlx_module_t* m = hlx_module_create();
  hlo_ast_t ast;
  bool ok =
      m &&
      hlo_parse_ast(text ? text : "", len, first_line, &scratch, &e, &ast) &&
      hlo_import_module(&ast, m, &e);
  hlx_arena_release(&scratch);
  if (!m) return hlx_status_oom();
  if (!ok || e.status) {
    hlx_module_destroy(m);
    return e.status ? e.status
                    : hlx_make_status(HLX_STATUS_INTERNAL, "HLO parse failed");
  }
  /* As the StableHLO parser does: wrong counts stop here, so nothing that
   * reads the module indexes past an op's operands, results or regions. */
  char why[96];
  const hlx_op_t* bad = hlx_module_first_bad_arity(m, why, sizeof why);
  if (bad) {
    hlx_status_t st = hlx_make_status(
        HLX_STATUS_INVALID_ARGUMENT, "%s:%d:%d: %s %s",
        filename ? filename : "<hlo>", bad->line, bad->col, bad->name, why);
    hlx_module_destroy(m);
    return st;
  }
  *out = m;
  return NULL;
}
