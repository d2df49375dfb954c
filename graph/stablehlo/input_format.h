/* What kind of file a program given to hlx is: StableHLO text or MLIR
 * bytecode (which hlx reads), or something else people pass by mistake:
 * MHLO or VHLO text, a jax.export flatbuffer, an ONNX model,
 * a NumPy array, an archive. For those the answer is one line saying what
 * the input is and how to get StableHLO out of it. */
#ifndef HLX_GRAPH_STABLEHLO_INPUT_FORMAT_H_
#define HLX_GRAPH_STABLEHLO_INPUT_FORMAT_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_input_kind_t {
  HLX_INPUT_STABLEHLO_TEXT, /* or any text the StableHLO parser should judge */
  HLX_INPUT_MLIR_BYTECODE,
  HLX_INPUT_MHLO_TEXT,
  HLX_INPUT_VHLO_TEXT,
  HLX_INPUT_HLO_TEXT,
  HLX_INPUT_JAX_EXPORTED, /* jax.export's Exported.serialize() flatbuffer */
  HLX_INPUT_ONNX,
  HLX_INPUT_NPY,
  HLX_INPUT_ARCHIVE,      /* zip (.npz, .zip) or gzip */
  HLX_INPUT_BINARY,       /* some other binary data */
} hlx_input_kind_t;

/* Classifies data (cheaply: magic bytes, then a scan for op names). For
 * every kind but the first two and HLO text (read by graph/hlo), *hint (when hint is not NULL) is a static
 * one-line description and conversion advice, e.g. "MHLO text (mhlo.*
 * operations), not StableHLO: convert it with `mlir-hlo-opt
 * --hlo-legalize-to-stablehlo`"; otherwise *hint is NULL. */
hlx_input_kind_t hlx_input_detect(const char* data, size_t len,
                                  const char** hint);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* HLX_GRAPH_STABLEHLO_INPUT_FORMAT_H_ */
