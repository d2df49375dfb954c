/* MLIR bytecode -> hlx IR: the StableHLO portable artifacts JAX serializes
 * (`jax.export`'s mlir_module_serialized, `stablehlo.serialize_portable_
 * artifact`): magic "ML\xefR", bytecode versions 0 to 6, VHLO operations of
 * every version since StableHLO 0.9 (2023), builtin attributes (module
 * attributes, dense, dense_resource with its blob), Shardy sharding rules.
 *
 * The module is the one the text parser (parser.h) builds for the same
 * program's text: VHLO ops become their StableHLO ops (vhlo.add_v1 ->
 * stablehlo.add, vhlo.call_v1 -> func.call, vhlo.return_v1 -> func.return
 * in a function body), attributes take their StableHLO form with defaults
 * left out, as StableHLO's VHLO -> StableHLO legalization does. Locations
 * are dropped (ops have line 0). Differences from the text form: a
 * dense_resource whose blob is in the file becomes DENSE data; `index`
 * element types are kept as i64.
 *
 * Corrupt or truncated input gives INVALID_ARGUMENT (UNIMPLEMENTED for
 * valid but unsupported constructs) whose message names the byte offset,
 * the part of the file and what was expected; no input makes the reader
 * crash, loop or allocate more than a small multiple of the input size. */
#ifndef HLX_GRAPH_STABLEHLO_BYTECODE_H_
#define HLX_GRAPH_STABLEHLO_BYTECODE_H_

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* graph/ir/ir.h has no C++ guards of its own: include it with C linkage. */
#include "graph/ir/ir.h"

/* True when data starts with the MLIR bytecode magic "ML\xefR". */
bool hlx_is_mlir_bytecode(const void* data, size_t len);

/* Parses one bytecode file. filename only labels messages (may be NULL).
 * On success *out owns a new module (hlx_module_destroy); on error *out is
 * NULL. data need not outlive the call. */
hlx_status_t hlx_parse_bytecode(const void* data, size_t len,
                                const char* filename, hlx_module_t** out);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_GRAPH_STABLEHLO_BYTECODE_H_ */
