/* Shardy (sdy) attributes in MLIR bytecode. JAX attaches them as
 * discardable metadata (`sdy.sharding_rule` on custom calls); hlx keeps
 * them as their assembly text, which is what the text parser keeps, so the
 * sharding-rule family is printed back in Shardy's syntax:
 *   #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=4, ...}, custom>
 * Other sdy attributes become a placeholder text naming their code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/stablehlo/bytecode_internal.h"

enum { kDimMapping = 8, kTensorMapping = 9, kOpShardingRule = 10 };

typedef struct text_t {
  char* p;
  size_t n, cap;
  bool oom;
} text_t;

static void put(text_t* t, const char* s, size_t n) {
  if (t->oom) return;
  if (t->n + n + 1 > t->cap) {
    size_t nc = (t->n + n + 1) * 2;
    char* np = realloc(t->p, nc);
    if (!np) {
      t->oom = true;
      return;
    }
    t->p = np;
    t->cap = nc;
  }
  memcpy(t->p + t->n, s, n);
  t->n += n;
  t->p[t->n] = 0;
}

static void puts_(text_t* t, const char* s) { put(t, s, strlen(s)); }

/* Factors are named i, j, ..., z, then z_1, z_2, ... */
static void put_factor(text_t* t, int64_t f) {
  char buf[32];
  if (f >= 0 && f <= 'z' - 'i') snprintf(buf, sizeof buf, "%c", (char)('i' + f));
  else snprintf(buf, sizeof buf, "z_%lld", (long long)(f - ('z' - 'i')));
  puts_(t, buf);
}

static hlx_bc_attr_t* finish(hlx_bc_t* bc, text_t* t, hlx_bc_attr_kind_t kind) {
  hlx_bc_attr_t* a = NULL;
  if (t->oom) hlx_bc_oom(bc);
  else if ((a = hlx_bc_new_attr(bc, kind))) {
    a->str = hlx_arena_strndup(&bc->m->arena, t->p ? t->p : "", t->n);
    a->len = t->n;
    if (!a->str) {
      hlx_bc_oom(bc);
      a = NULL;
    }
  }
  free(t->p);
  return a;
}

/* A list of references to sdy attributes already printed as text. */
static bool text_list(hlx_bc_t* bc, hlx_bc_stream_t* s, text_t* t,
                      const char* open, const char* close) {
  hlx_bc_attr_t list;
  memset(&list, 0, sizeof list);
  if (!hlx_bc_attr_list(bc, s, &list)) return false;
  puts_(t, open);
  for (int32_t i = 0; i < list.n; i++) {
    if (list.items[i]->kind != HLX_BC_ATTR_SDY_PART)
      return hlx_bc_fail(bc, s, "expected an sdy factor mapping in the list");
    if (i) puts_(t, ", ");
    put(t, list.items[i]->str, list.items[i]->len);
  }
  puts_(t, close);
  return true;
}

static bool factor_set(hlx_bc_t* bc, hlx_bc_stream_t* s, text_t* t,
                       const char* name) {
  int64_t* f;
  int32_t n = 0;
  if (!hlx_bc_svarint_list(bc, s, &f, &n)) return false;
  if (n == 0) return true;
  puts_(t, " ");
  puts_(t, name);
  puts_(t, "={");
  for (int32_t i = 0; i < n; i++) {
    if (i) puts_(t, ", ");
    put_factor(t, f[i]);
  }
  puts_(t, "}");
  return true;
}

static bool sharding_rule(hlx_bc_t* bc, hlx_bc_stream_t* s, text_t* t) {
  int64_t* sizes;
  int32_t nsizes = 0;
  if (!hlx_bc_svarint_list(bc, s, &sizes, &nsizes)) return false;
  puts_(t, "#sdy.op_sharding_rule<");
  if (!text_list(bc, s, t, "(", ")->") || !text_list(bc, s, t, "(", ")"))
    return false;
  if (nsizes > 0) {
    puts_(t, " {");
    for (int32_t i = 0; i < nsizes; i++) {
      char buf[32];
      if (i) puts_(t, ", ");
      put_factor(t, i);
      snprintf(buf, sizeof buf, "=%lld", (long long)sizes[i]);
      puts_(t, buf);
    }
    puts_(t, "}");
  }
  if (!factor_set(bc, s, t, "reduction") ||
      !factor_set(bc, s, t, "need_replication") ||
      !factor_set(bc, s, t, "permutation"))
    return false;
  /* blocked_propagation was added after the first encoding */
  if (hlx_bc_left(s) > 1 && !factor_set(bc, s, t, "blocked_propagation"))
    return false;
  uint8_t custom = 0;
  if (!hlx_bc_byte(bc, s, &custom)) return false;
  if (custom) puts_(t, ", custom");
  puts_(t, ">");
  return true;
}

hlx_bc_attr_t* hlx_bc_decode_sdy_attr(hlx_bc_t* bc, hlx_bc_stream_t* s) {
  uint64_t code = 0;
  if (!hlx_bc_varint(bc, s, &code)) return NULL;
  text_t t = {NULL, 0, 0, false};
  bool ok = true;
  if (code == kDimMapping) {
    int64_t* f;
    int32_t n = 0;
    ok = hlx_bc_svarint_list(bc, s, &f, &n);
    for (int32_t i = 0; ok && i < n; i++) put_factor(&t, f[i]);
  } else if (code == kTensorMapping) {
    ok = text_list(bc, s, &t, "[", "]");
  } else if (code == kOpShardingRule) {
    ok = sharding_rule(bc, s, &t);
  } else {
    char buf[64];
    snprintf(buf, sizeof buf, "#sdy<bytecode attribute %llu>", (unsigned long long)code);
    puts_(&t, buf);
    s->p = s->end;
  }
  if (!ok) {
    free(t.p);
    return NULL;
  }
  return finish(bc, &t, code == kDimMapping || code == kTensorMapping
                            ? HLX_BC_ATTR_SDY_PART : HLX_BC_ATTR_TEXT);
}
