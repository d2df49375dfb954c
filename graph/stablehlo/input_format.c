/* Input classification for hlx_program_parse (see input_format.h). Binary
 * formats are told by their first bytes; text by its first word (HLO) or by
 * the dialect of its operations: an `mhlo.` or `vhlo.` name in operation
 * position (after `=`, or first on a line, optionally quoted) and not an
 * attribute (`mhlo.sharding = ...` is valid StableHLO metadata). */
#include "graph/stablehlo/input_format.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static bool starts(const char* d, size_t n, const char* magic, size_t m) {
  return n >= m && memcmp(d, magic, m) == 0;
}

static bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '-';
}

/* At d[i] starts "dialect." in operation position: `%0 = mhlo.add ...`,
 * `%0 = "mhlo.add"(...)`, or first on its line (terminators). */
static bool op_of_dialect(const char* d, size_t n, size_t i, const char* dialect) {
  size_t dl = strlen(dialect);
  if (i + dl >= n || memcmp(d + i, dialect, dl) != 0) return false;
  bool quoted = i > 0 && d[i - 1] == '"';
  size_t b = quoted ? i - 1 : i;
  if (b > 0 && is_ident(d[b - 1])) return false;
  size_t k = b;
  while (k > 0 && (d[k - 1] == ' ' || d[k - 1] == '\t')) k--;
  if (!(k == 0 || d[k - 1] == '\n' || d[k - 1] == '=')) return false;
  if (k > 1 && d[k - 1] == '=' && (d[k - 2] == '=' || d[k - 2] == '!')) return false;
  size_t e = i + dl;
  while (e < n && is_ident(d[e])) e++;
  if (quoted) {
    if (e >= n || d[e] != '"') return false;
    e++;
  }
  while (e < n && (d[e] == ' ' || d[e] == '\t')) e++;
  if (quoted) return e < n && d[e] == '('; /* a generic op, not a string */
  return e >= n || d[e] != '='; /* `mhlo.x = ...` is an attribute */
}

static hlx_input_kind_t text_kind(const char* d, size_t n) {
  size_t i = 0;
  while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r')) i++;
  if (starts(d + i, n - i, "HloModule ", 10)) return HLX_INPUT_HLO_TEXT;
  for (size_t k = 0; k + 5 < n; k++) {
    if (d[k] != 'm' && d[k] != 'v') continue;
    if (op_of_dialect(d, n, k, "mhlo.")) return HLX_INPUT_MHLO_TEXT;
    if (op_of_dialect(d, n, k, "vhlo.")) return HLX_INPUT_VHLO_TEXT;
  }
  return HLX_INPUT_STABLEHLO_TEXT;
}

/* A jax.export Exported flatbuffer embeds the StableHLO bytecode as a byte
 * vector: the magic appears inside, after a little-endian length. */
static bool embeds_bytecode(const char* d, size_t n) {
  for (size_t k = 4; k + 4 <= n; k++) {
    if (memcmp(d + k, "ML\xefR", 4) != 0) continue;
    uint32_t len = (uint32_t)(uint8_t)d[k - 4] | (uint32_t)(uint8_t)d[k - 3] << 8 |
                   (uint32_t)(uint8_t)d[k - 2] << 16 | (uint32_t)(uint8_t)d[k - 1] << 24;
    if (len >= 4 && len <= n - k) return true;
  }
  return false;
}

/* ONNX ModelProto: field 1 (ir_version, varint) then 2..8 (strings, graph,
 * opset_import); a text file never starts with 0x08. */
static bool looks_onnx(const char* d, size_t n) {
  const uint8_t* u = (const uint8_t*)d;
  return n >= 4 && u[0] == 0x08 && u[1] >= 1 && u[1] <= 30 &&
         (u[2] == 0x12 || u[2] == 0x1a || u[2] == 0x22 || u[2] == 0x2a ||
          u[2] == 0x32 || u[2] == 0x3a || u[2] == 0x42);
}

static bool binary(const char* d, size_t n) {
  size_t k = n < 4096 ? n : 4096;
  for (size_t i = 0; i < k; i++) {
    unsigned char c = (unsigned char)d[i];
    if (c == 0 || (c < 32 && c != '\n' && c != '\r' && c != '\t' && c != '\f')) return true;
  }
  return false;
}

static const char* const kHints[] = {
    [HLX_INPUT_MHLO_TEXT] =
        "MHLO text (mhlo.* operations), not StableHLO: convert it with "
        "`mlir-hlo-opt --hlo-legalize-to-stablehlo FILE`",
    [HLX_INPUT_VHLO_TEXT] =
        "VHLO text (versioned vhlo.*_vN operations), not StableHLO: give hlx the "
        "portable artifact's bytecode instead, or convert with "
        "`stablehlo-opt --vhlo-legalize-to-stablehlo FILE`",
    [HLX_INPUT_JAX_EXPORTED] =
        "a jax.export Exported.serialize() flatbuffer: hlx reads the StableHLO inside "
        "it; save jax.export.deserialize(blob).mlir_module_serialized (bytecode) or "
        ".mlir_module() (text) to a file and run that",
    [HLX_INPUT_ONNX] =
        "an ONNX model (protobuf), not a StableHLO program: export StableHLO from the "
        "framework instead (JAX: jax.jit(f).lower(*args).as_text(); PyTorch: "
        "torch.export + torch_xla.stablehlo.exported_program_to_stablehlo)",
    [HLX_INPUT_NPY] =
        "a NumPy .npy array, not a program: pass it as an input "
        "(hlx run PROGRAM --input FILE.npy)",
    [HLX_INPUT_ARCHIVE] =
        "a compressed archive (zip, .npz or gzip), not a program: extract the "
        "StableHLO program (.mlir text or .mlirbc bytecode) from it",
    [HLX_INPUT_BINARY] =
        "binary data that is neither StableHLO text nor MLIR bytecode (magic "
        "'ML\\xefR'): hlx reads StableHLO programs, as text or as bytecode",
};

hlx_input_kind_t hlx_input_detect(const char* data, size_t len, const char** hint) {
  hlx_input_kind_t k;
  if (!data) len = 0;
  if (starts(data, len, "ML\xefR", 4)) k = HLX_INPUT_MLIR_BYTECODE;
  else if (starts(data, len, "\x93NUMPY", 6)) k = HLX_INPUT_NPY;
  else if (starts(data, len, "PK\x03\x04", 4) || starts(data, len, "PK\x05\x06", 4) ||
           starts(data, len, "\x1f\x8b", 2))
    k = HLX_INPUT_ARCHIVE;
  else if (looks_onnx(data, len)) k = HLX_INPUT_ONNX;
  else if (binary(data, len)) k = embeds_bytecode(data, len) ? HLX_INPUT_JAX_EXPORTED
                                                             : HLX_INPUT_BINARY;
  else k = text_kind(data, len);
  if (hint) *hint = k >= HLX_INPUT_MHLO_TEXT && k != HLX_INPUT_HLO_TEXT ? kHints[k] : NULL;
  return k;
}
