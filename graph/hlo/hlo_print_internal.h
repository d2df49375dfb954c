/* Shared by the HLO printer's files (hlo_print*.c). Not a public header.
 *
 * The printer writes each function reached from the entry, and each region,
 * as an HLO computation; computations are appended to the module text as
 * they finish, so a computation always precedes its users. Ops the
 * importer builds from one HLO instruction (a multi-result op and the
 * stablehlo.tuple ops regrouping its results, rng's shape constant,
 * outfeed's get_tuple_element of a tuple operand) are printed back as that
 * one instruction, so importing the print gives the same IR. */
#ifndef HLX_GRAPH_HLO_HLO_PRINT_INTERNAL_H_
#define HLX_GRAPH_HLO_HLO_PRINT_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "graph/hlo/hlo_internal.h"
#include "graph/ir/ir.h"

typedef struct pbuf_t {
  char* s;
  size_t n, cap;
  bool oom;
} pbuf_t;

void pb_put(pbuf_t* b, const char* s, size_t n);
void pb_puts(pbuf_t* b, const char* s);
void pb_printf(pbuf_t* b, const char* fmt, ...) HLX_PRINTF(2, 3);
/* "..." with C escapes. */
void pb_string(pbuf_t* b, const char* s, size_t n);

typedef struct hp_t {
  pbuf_t out; /* the module text */
  const hlx_module_t* m;
  hlx_status_t err;           /* first error */
  int32_t regions;            /* counter for region computation names */
  const hlx_func_t** printed; /* functions already printed (or being) */
  int32_t nprinted, capprinted;
  int32_t* uses; /* value id -> uses, for the function being printed */
  const hlx_func_t* uses_of;
  char** strs; /* strings owned until the print ends */
  int32_t nstrs, capstrs;
} hp_t;

/* A copy of s owned by hp (NULL on out of memory, with hp->err set). */
const char* hp_keep(hp_t* hp, const char* s);
/* Uses of value id v in the function being printed (incl. regions). */
int32_t hp_uses(hp_t* hp, const hlx_func_t* f, const hlx_value_t* v);

/* How a block's arguments become parameters. */
typedef enum hp_params_t {
  HP_ARGS,       /* parameter(i) per block argument */
  HP_TUPLE_ARGS, /* one tuple parameter, arguments taken out of it */
  HP_CAPTURES,   /* no block arguments: the values the region reads from
                    outside come in as parameter(0) (a tuple when several) */
} hp_params_t;

/* One computation being printed. */
typedef struct hc_t {
  hp_t* hp;
  const hlx_func_t* func;
  pbuf_t body;
  char** names;            /* value id -> name in this computation */
  size_t* line_at;         /* value id -> offset of its defining line + 1 */
  uint8_t* skip;           /* value id of an op's first result -> not printed */
  const hlx_value_t** top; /* op's first result id -> the tuple it prints as */
  const hlx_op_t** user;   /* value id -> its user in this block */
  int32_t nvals;
  char** taken; /* names used (open addressing) */
  uint32_t ntaken, used;
  int32_t counter;
} hc_t;

bool hp_fail(hp_t* hp, hlx_status_code_t code, const char* fmt, ...)
    HLX_PRINTF(3, 4);
/* A unique instruction name from base (sanitized), owned by hc. */
const char* hc_new_name(hc_t* hc, const char* base);
/* `%name` of v in hc; fails when v is not visible there. */
const char* hc_ref(hc_t* hc, const hlx_value_t* v);
/* Starts the line defining v (records where, for ROOT). */
void hc_begin_line(hc_t* hc, const hlx_value_t* v, const char* name);

/* Types and literals (hlo_print_literal.c). */
bool hp_type(hp_t* hp, pbuf_t* b, const hlx_type_t* t);
bool hp_literal(hp_t* hp, pbuf_t* b, const hlx_attr_t* v);

/* Computations (hlo_print.c). */
typedef struct hp_region_t {
  const hlx_region_t* r;
  hp_params_t params;
  const hlx_value_t* const* captures; /* HP_CAPTURES */
  int32_t ncaptures;
  const hlx_type_t*
      dummy;       /* HP_CAPTURES without captures: the operand's type */
  bool tuple_root; /* several returned values become a tuple root */
} hp_region_t;

/* Prints region spec as a new computation; its name in *name (owned by
 * hp's arena-free string list: valid until hlx_print_hlo_module returns). */
bool hp_region(hp_t* hp, const hlx_func_t* f, const hp_region_t* spec,
               const char** name);
/* Prints function f (once) as a computation named after it. */
bool hp_func(hp_t* hp, const hlx_func_t* f);
/* The values region r reads from outside it, in first-use order
 * (malloc'd; free it). */
bool hp_captures(hp_t* hp, const hlx_region_t* r, const hlx_value_t*** out,
                 int32_t* n);

/* Ops (hlo_print_ops.c): prints op (one or more instruction lines). */
bool hp_op(hc_t* hc, const hlx_op_t* op);
/* Marks ops printed as part of another instruction (see top comment). */
void hp_mark_absorbed(hc_t* hc, const hlx_block_t* blk);

/* Attributes by spec (hlo_print_attrs.c): `, name=value` for each. */
bool hp_attrs(hc_t* hc, const hlx_op_t* op, const hlo_op_t* spec);

#endif /* HLX_GRAPH_HLO_HLO_PRINT_INTERNAL_H_ */
