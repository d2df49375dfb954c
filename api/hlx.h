/* hlx: run XLA / StableHLO programs on CPUs. The public C API.
 *
 * Conventions: every fallible call returns hlx_status_t (NULL = ok; free a
 * non-NULL status with hlx_status_free). Out-parameters come last and are
 * set to NULL/0 on entry. hlx_X_create/hlx_X_destroy pair up; "borrowed"
 * results stay valid as long as the object they came from. The library
 * never aborts, prints or exits on bad input.
 *
 * Tuples: executables see parameters and results flattened into their
 * tensor leaves, in order. */
#ifndef HLX_API_HLX_H_
#define HLX_API_HLX_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status -------------------------------------------------------------- */
typedef struct hlx_status_payload_t* hlx_status_t;
int hlx_status_get_code(hlx_status_t s); /* an hlx_status_code_t, 0 = ok */
const char* hlx_status_get_message(hlx_status_t s); /* borrowed; "" if ok */
void hlx_status_release(hlx_status_t s);
/* A new status with code (an hlx_status_code_t, not 0) and message
 * (copied), for host functions and feeds to report errors. */
hlx_status_t hlx_status_create(int code, const char* message);

/* Element types: the values of base/dtype.h's hlx_dtype_t (HLX_DTYPE_F32,
 * ...); use hlx_element_type_name / _from_name to go between names. */
typedef int32_t hlx_element_type_t;
const char* hlx_element_type_name(hlx_element_type_t t); /* "f32", "ui8" */
hlx_element_type_t hlx_element_type_from_name(const char* name); /* 0 if unknown */
size_t hlx_element_type_size(hlx_element_type_t t); /* bytes per element */

#define HLX_MAX_DIMS 16
typedef struct hlx_tensor_desc_t {
  hlx_element_type_t element_type;
  int32_t rank;
  int64_t dims[HLX_MAX_DIMS];
} hlx_tensor_desc_t;

/* ---- programs ------------------------------------------------------------ */
typedef struct hlx_program_t hlx_program_t;

/* Parses a program: StableHLO text (one module, or functions at top
 * level), MLIR bytecode (a StableHLO portable artifact, magic "ML\xefR",
 * as jax.export serializes it; text points at the bytes and len is their
 * count) or XLA HLO text (what XLA_FLAGS=--xla_dump_to writes: detected by
 * an `HloModule` header, an `ENTRY` computation, or a leading `name {`
 * computation; see graph/hlo/hlo_parser.h). filename and first_line only
 * label error messages ("file:line:col: ..."; bytecode errors name a byte
 * offset). Other inputs (MHLO/VHLO text, a jax.export flatbuffer, ONNX,
 * .npy, archives) fail with one line saying what they are and how to
 * convert them. */
hlx_status_t hlx_program_parse(const char* text, size_t len,
                               const char* filename, int first_line,
                               hlx_program_t** out_program);
void hlx_program_destroy(hlx_program_t* p);
/* Prints the program as StableHLO text (generic op form). *out_text is
 * malloc'd; the caller frees it. */
hlx_status_t hlx_program_print(const hlx_program_t* p, char** out_text,
                               size_t* out_len);
/* Prints the program as XLA HLO text (the entry function as ENTRY, called
 * functions and regions as computations); parsing it back gives the same
 * program when it was parsed from HLO. Ops HLO cannot spell give
 * UNIMPLEMENTED. Same ownership as hlx_program_print. */
hlx_status_t hlx_program_print_hlo(const hlx_program_t* p, char** out_text,
                                   size_t* out_len);
int32_t hlx_program_num_functions(const hlx_program_t* p);
const char* hlx_program_function_name(const hlx_program_t* p, int32_t i);
int32_t hlx_program_function_num_args(const hlx_program_t* p, int32_t i);
bool hlx_program_function_is_public(const hlx_program_t* p, int32_t i);
/* Whether function i is called by another function of the program. */
bool hlx_program_function_is_called(const hlx_program_t* p, int32_t i);
/* The default entry: @main, else the only public function, else the first. */
const char* hlx_program_entry(const hlx_program_t* p);

/* Shape-polymorphic programs (JAX exports with symbolic dimensions: `?`
 * dims, scalar integer dimension-variable arguments, dynamic_* ops) are not
 * compiled as they are: specialise them to concrete inputs first.
 * hlx_program_function_is_dynamic: whether function fn (NULL = the entry)
 * or a function it calls has a `?` dim. */
typedef struct hlx_buffer_t hlx_buffer_t; /* below */
bool hlx_program_function_is_dynamic(const hlx_program_t* p, const char* fn);
/* Argument `arg` of fn (NULL = the entry) as declared; a `?` dim is -1. */
hlx_status_t hlx_program_function_arg_desc(const hlx_program_t* p,
                                           const char* fn, int32_t arg,
                                           hlx_tensor_desc_t* desc);
/* A new, fully static program: fn (NULL = the entry) specialised to the
 * shapes of args (one buffer per argument, as a run would pass them) and
 * the values of its integer arguments of up to 256 elements (the dimension
 * variables; also e.g. slice starts a symbolic size is computed from): the
 * result is valid for those shapes and those values only.
 * Shapes are propagated op by op through calls (a function called with
 * several argument shapes gets a private copy per shape), shape
 * computations are folded, and dynamic_broadcast_in_dim, dynamic_iota,
 * dynamic_reshape, real_dynamic_slice, dynamic_pad, dynamic_gather,
 * dynamic_conv, get_dimension_size and the custom calls
 * stablehlo.dynamic_top_k / stablehlo.dynamic_rng_bit_generator /
 * stablehlo.dynamic_approx_top_k become their static forms. Inconsistent shapes (a dimension value that
 * disagrees with an input's dim) or a shape that cannot be computed fail
 * with INVALID_ARGUMENT naming the op and the rule; p is unchanged. Compile
 * the result with hlx_executable_create and run it on the same arguments;
 * the caller destroys it. */
hlx_status_t hlx_program_specialize(const hlx_program_t* p, const char* fn,
                                    const hlx_buffer_t* const* args,
                                    int32_t num_args, hlx_program_t** out);

/* ---- executables --------------------------------------------------------- */
/* ---- clients: the thread pool executables run on ------------------------
 *
 * A client owns one thread pool (one worker per core of the allowed
 * cpuset, bound to its core with hwloc) shared by every executable created
 * with it. Executables created without a client share a process-wide pool
 * made on first use (HLX_NUM_THREADS threads if set, else one per core).
 *
 * Determinism: a run gives the same results as a sequential run of the
 * same executable; collectives reduce in rank order, so results do not
 * depend on thread timing or count. */
typedef struct hlx_client_t hlx_client_t;
typedef struct hlx_client_options_t {
  size_t struct_size; /* set by hlx_client_options_init */
  /* Threads including the caller: 0 = HLX_NUM_THREADS if set, else one
   * per core. More threads than cores only when asked here or there. */
  int32_t num_threads;
  bool pin_threads; /* default true; failing to pin is a warning only */
  /* Logical cpus (OS numbering) to pin workers to, e.g. "0,2-3" (copied);
   * NULL = the HLX_CPUS environment variable if set, else one worker per
   * core. Without num_threads the pool has one thread per listed cpu. A
   * malformed list or a cpu outside the allowed set fails
   * hlx_client_create with INVALID_ARGUMENT. */
  const char* cpus;
} hlx_client_options_t;
void hlx_client_options_init(hlx_client_options_t* o);
hlx_status_t hlx_client_create(const hlx_client_options_t* options,
                               hlx_client_t** out_client);
/* Destroy after every executable created with the client. */
void hlx_client_destroy(hlx_client_t* c);
int32_t hlx_client_num_threads(const hlx_client_t* c);
/* Why workers are not pinned to cores ("" if they are); borrowed. */
const char* hlx_client_warning(const hlx_client_t* c);
/* One line: threads, pinning, cores, NUMA nodes and their cpus (hwloc);
 * borrowed, lives with the client. */
const char* hlx_client_topology(const hlx_client_t* c);

/* A host function for stablehlo.custom_call: it receives the call's
 * operand and result buffers (row-major, tuples flattened, in order) and
 * the op's backend_config string ("" if none), and returns NULL or a
 * status (hlx_status_create) that fails the run. Called from a worker
 * thread; must be thread-safe if the executable runs concurrently. */
typedef hlx_status_t (*hlx_host_function_fn)(void* user,
                                             const void* const* inputs,
                                             int32_t num_inputs,
                                             void* const* outputs,
                                             int32_t num_outputs,
                                             const char* backend_config);
typedef struct hlx_host_function_t {
  const char* name; /* the custom_call's call_target_name */
  hlx_host_function_fn fn;
  void* user;
} hlx_host_function_t;

/* ---- host functions, version 2 (in the manner of XLA's FFI) -------------
 *
 * A version-2 host function gets one call frame, hlx_host_call_t, and
 * reads from it what it needs: each operand's and result's description
 * and layout, and the op's attributes as typed values (hlx_attrs_t below).
 * So a JAX-style FFI call (api_version = 4, `mhlo.backend_config = {mode =
 * 86 : ui8, ...}`, column-major operand_layouts) can be written in C.
 * Everything the frame hands out is borrowed: the buffers during the call,
 * the descriptions, names and attribute values while the executable
 * lives. Called from a worker thread; must be thread-safe if the
 * executable runs concurrently. Return NULL or a status
 * (hlx_status_create) that fails the run; the attribute getters' errors
 * name the target and the attribute and can be returned as they are.
 *
 * Buffers are in the layouts the op declares: operand i's as
 * operand_layouts[i] says, result i's as result_layouts[i] (XLA's
 * minor_to_major; JAX's CPU calls pass matrices column-major, {0, 1});
 * without those attributes, row-major. hlx converts its row-major values
 * into those layouts before the call and the results back after it.
 * Tuple operands and results are flattened into their leaves, in order
 * (they cannot have layouts); a token is an empty pred[0] without data.
 * Result buffers start with unspecified contents: write them whole. */
typedef struct hlx_host_call_t hlx_host_call_t;
typedef hlx_status_t (*hlx_host_function_v2_fn)(void* user,
                                                const hlx_host_call_t* call);
typedef struct hlx_host_function_v2_t {
  const char* name; /* the custom_call's call_target_name */
  hlx_host_function_v2_fn fn;
  void* user;
} hlx_host_function_v2_t;

/* One operand or result (leaf) of a call. */
typedef struct hlx_host_buffer_t {
  hlx_tensor_desc_t desc; /* element type, rank, dims */
  /* desc.rank entries: the layout of `data` (row-major: rank-1, ..., 0) */
  int32_t minor_to_major[HLX_MAX_DIMS];
  void* data;   /* operands: read only; NULL when bytes is 0 */
  size_t bytes; /* size of data */
} hlx_host_buffer_t;

/* The custom_call's call_target_name ("" if call is NULL). */
const char* hlx_host_call_target(const hlx_host_call_t* call);
int32_t hlx_host_call_num_operands(const hlx_host_call_t* call);
int32_t hlx_host_call_num_results(const hlx_host_call_t* call);
/* Operand / result leaf i into *out; an index out of range fails with
 * OUT_OF_RANGE naming the target. */
hlx_status_t hlx_host_call_operand(const hlx_host_call_t* call, int32_t i,
                                   hlx_host_buffer_t* out);
hlx_status_t hlx_host_call_result(const hlx_host_call_t* call, int32_t i,
                                  hlx_host_buffer_t* out);

/* Attributes: a read-only dictionary of typed values (borrowed, lives
 * with the executable). */
typedef struct hlx_attrs_t hlx_attrs_t;
/* The FFI attributes of the call: the dictionary of `mhlo.backend_config`
 * (api_version 4, as JAX writes it) or of a dictionary `backend_config`;
 * empty when the call has a string backend_config or none. */
const hlx_attrs_t* hlx_host_call_attrs(const hlx_host_call_t* call);
/* Every attribute of the op as written (call_target_name,
 * operand_layouts, mhlo.frontend_attributes, ...), plus StableHLO's
 * defaults for those it leaves out: backend_config (a string, "" if
 * absent; older calls keep their configuration there, FFI calls may have
 * a dictionary), api_version (int, 1), has_side_effect (bool, false) and
 * called_computations (string array of function names without '@'). */
const hlx_attrs_t* hlx_host_call_op_attrs(const hlx_host_call_t* call);

/* The type of an entry (stable values). */
typedef enum hlx_attrs_type_t {
  HLX_ATTRS_ABSENT = 0,       /* no entry of that name */
  HLX_ATTRS_BOOL = 1,         /* true / false; a unit attribute is true */
  HLX_ATTRS_INT = 2,          /* 76 : ui8, 5 (i64) */
  HLX_ATTRS_FLOAT = 3,        /* 2.5 : f32 */
  HLX_ATTRS_STRING = 4,       /* "abc"; a symbol @f gives "f" */
  HLX_ATTRS_INT_ARRAY = 5,    /* array<i32: 1, 2>, [1, 2], dense<...> of
                                 integers or i1 (flattened row-major) */
  HLX_ATTRS_FLOAT_ARRAY = 6,  /* array<f32: 0.5>, [0.5], dense<...> */
  HLX_ATTRS_STRING_ARRAY = 7, /* ["a", "b"], [@f, @g] */
  HLX_ATTRS_DICT = 8,         /* {a = 1, ...}: hlx_attrs_get_dict */
  HLX_ATTRS_OTHER = 9,        /* anything else (types, enums, nested
                                 arrays, complex values): name only */
} hlx_attrs_type_t;
/* Entries in the order the op writes them; name_at is NULL for an index
 * out of range. */
int32_t hlx_attrs_count(const hlx_attrs_t* attrs);
const char* hlx_attrs_name_at(const hlx_attrs_t* attrs, int32_t i);
hlx_attrs_type_t hlx_attrs_type(const hlx_attrs_t* attrs, const char* name);
/* The element type an INT, FLOAT or array entry declares (ui8 for `76 :
 * ui8`; i64 / f64 when it declares none; pred for BOOL), else 0. */
hlx_element_type_t hlx_attrs_element_type(const hlx_attrs_t* attrs,
                                          const char* name);
/* Typed getters: NULL and the value, or a status naming the target and
 * the attribute: NOT_FOUND when there is no entry `name` (listing those
 * there are), INVALID_ARGUMENT when it has another type. No conversions
 * between types: an INT entry is not a float (read hlx_attrs_type first
 * when a value may come in several forms). INT values of any integer type
 * are widened to int64 (ui64 above INT64_MAX wraps); FLOAT values of any
 * float type to double. Arrays and strings are borrowed (strings are
 * NUL-terminated, *out_len counts their bytes and may be NULL); an empty
 * array `[]` reads as an empty array of every kind. */
hlx_status_t hlx_attrs_get_bool(const hlx_attrs_t* attrs, const char* name,
                                bool* out_value);
hlx_status_t hlx_attrs_get_int(const hlx_attrs_t* attrs, const char* name,
                               int64_t* out_value);
hlx_status_t hlx_attrs_get_float(const hlx_attrs_t* attrs, const char* name,
                                 double* out_value);
hlx_status_t hlx_attrs_get_string(const hlx_attrs_t* attrs, const char* name,
                                  const char** out_value, size_t* out_len);
hlx_status_t hlx_attrs_get_int_array(const hlx_attrs_t* attrs,
                                     const char* name,
                                     const int64_t** out_values,
                                     int64_t* out_count);
hlx_status_t hlx_attrs_get_float_array(const hlx_attrs_t* attrs,
                                       const char* name,
                                       const double** out_values,
                                       int64_t* out_count);
hlx_status_t hlx_attrs_get_string_array(const hlx_attrs_t* attrs,
                                        const char* name,
                                        const char* const** out_values,
                                        int64_t* out_count);
hlx_status_t hlx_attrs_get_dict(const hlx_attrs_t* attrs, const char* name,
                                const hlx_attrs_t** out_dict);

/* A registry of version-2 host functions, for code that collects them
 * before compiling, such as `hlx run --custom-call-lib lib.so`. */
typedef struct hlx_host_function_registry_t hlx_host_function_registry_t;
hlx_status_t hlx_host_function_registry_create(
    hlx_host_function_registry_t** out_registry);
void hlx_host_function_registry_destroy(hlx_host_function_registry_t* r);
/* Adds *f (name copied, fn not NULL); a name already in the registry
 * fails with INVALID_ARGUMENT naming it. */
hlx_status_t hlx_host_function_registry_add(hlx_host_function_registry_t* r,
                                            const hlx_host_function_v2_t* f);
/* The functions added, in order, as hlx_compile_options_t's
 * host_functions_v2 takes them (borrowed until the next add or destroy;
 * *out_count entries). */
const hlx_host_function_v2_t* hlx_host_function_registry_functions(
    const hlx_host_function_registry_t* r, int32_t* out_count);

/* The registration entry point of a shared library of host functions
 * (`hlx run --custom-call-lib lib.so`, `hlx check --custom-call-lib`):
 * the library exports, with C linkage,
 *
 *   hlx_status_t hlx_register_host_functions(
 *       hlx_host_function_registry_t* registry);
 *
 * which adds its functions with hlx_host_function_registry_add and
 * returns NULL or an error status (its message is reported). The library
 * calls hlx_* functions (registry, call frame, attributes, status) that
 * the loading program provides: link it without -lhlx (the hlx tool
 * exports its public API to the libraries it loads) or against
 * libhlx.so for programs that use libhlx.so. */
#define HLX_REGISTER_HOST_FUNCTIONS_SYMBOL "hlx_register_host_functions"
typedef hlx_status_t (*hlx_register_host_functions_fn)(
    hlx_host_function_registry_t* registry);

typedef struct hlx_compile_options_t {
  size_t struct_size; /* set by hlx_compile_options_init */
  const char* entry;  /* function to run; NULL = hlx_program_entry */
  bool fill_elided;   /* random data for dense_resource<__elided__> */
  /* Pool to run on (borrowed, must outlive the executable). NULL: the
   * process-wide default pool, or a private one if num_threads > 1. */
  hlx_client_t* client;
  /* 0 = the client's/default pool; 1 = every run stays on the calling
   * thread; N > 1 without a client = a private pool of N threads. */
  int32_t num_threads;
  /* SPMD: every run executes num_replicas x num_partitions processes of
   * the entry function as a thread group meeting at collectives. 0 = the
   * module's mhlo.num_replicas / mhlo.num_partitions attribute (as JAX
   * exports them), or 1 without one. The collectives' replica_groups and
   * source_target_pairs are checked against these counts here (ids below
   * them, groups naming every replica once, result shapes that follow
   * from the group size): a mismatch fails hlx_executable_create naming
   * the op and the spec rule. */
  int32_t num_replicas;
  int32_t num_partitions;
  /* How long a collective waits for its peers before failing with
   * DEADLINE_EXCEEDED (0: HLX_COLLECTIVE_TIMEOUT_MS or 10 s). */
  int64_t collective_timeout_ms;
  /* Host functions that stablehlo.custom_call can name by
   * call_target_name (copied at hlx_executable_create). A target not in
   * this list is an error naming it. */
  const struct hlx_host_function_t* host_functions;
  int32_t num_host_functions;
  /* Fuse chains of elementwise ops (with their broadcasts) into one tiled
   * task each (true after hlx_compile_options_init). false, or the
   * environment variable HLX_NO_FUSION=1: one task per op (A/B checks). */
  bool fuse_elementwise;
  /* Result buffers' layouts: NULL, or num_result_layouts (= the number of
   * results) pointers, each NULL (row-major) or a minor_to_major
   * permutation of that result's rank (copied at hlx_executable_create).
   * Kernels always see row-major; a run writes each result in its layout. */
  const int32_t* const* result_layouts;
  int32_t num_result_layouts;
  /* Allocates the result buffers of runs (copied; NULL = the default
   * 64-byte-aligned heap). */
  const struct hlx_allocator_t* allocator;
  /* Result buffers' padded dimensions (as hlx_buffer_options_t's): NULL,
   * or num_result_padded_dimensions (= the number of results) pointers,
   * each NULL (no padding) or that result's rank entries, each >= the
   * dimension's size (copied at hlx_executable_create). A run writes each
   * result padded, padding zeroed, in its result_layouts order. */
  const int64_t* const* result_padded_dimensions;
  int32_t num_result_padded_dimensions;
  /* Highest instruction set this executable's kernels use: "reference"
   * (the portable C kernels), "avx2", "avx512" ("neon" on AArch64); NULL
   * or "" = no cap. It lowers the process level (the CPU's best, capped
   * by HLX_MAX_ISA), never raises it, and applies to this executable only,
   * also when executables with other caps run at once. Covers hlx's own
   * kernels; oneDNN/libxsmm (dot, convolution) keep their own dispatch
   * (ONEDNN_MAX_CPU_ISA). An unknown name fails hlx_executable_create
   * with INVALID_ARGUMENT. */
  const char* max_isa;
  /* Parameters (indices into the entry's parameters, counted as
   * hlx_executable_param_desc counts them) whose buffers the caller keeps
   * unchanged from run to run, such as model weights: the executable may
   * keep data derived from them across runs (oneDNN's packed convolution
   * weights) and makes it again whenever a run passes a different buffer
   * for that parameter. Writing into such a buffer between runs, or
   * passing a new buffer that happens to reuse a freed one's address,
   * gives stale results. Copied at hlx_executable_create; NULL = none; an
   * index out of range fails with INVALID_ARGUMENT. */
  const int32_t* reusable_params;
  int32_t num_reusable_params;
  /* 3x3 stride-1 f32 convolutions may use oneDNN's Winograd kernels
   * (F(4x4,3x3): ~2.25x fewer multiplications; the rounding differs from
   * a direct convolution, ~1e-6 of the output's magnitude on ResNet-50,
   * a relu fused into such a convolution gives 0 for NaN, and the
   * transformed weights take more memory). false by default;
   * HLX_CONV_WINOGRAD=1 turns it on for every executable. */
  bool conv_winograd;
  /* Spend less time compiling, at some cost in run time: FFT plans use
   * FFTW_ESTIMATE instead of measuring (FFTW_MEASURE, whose wisdom is kept
   * in a file, kernels/libs/fftw.h). HLX_FFTW_ESTIMATE=1 does the same for
   * every executable. false by default. */
  bool fast_compile;
  /* Version-2 host functions (hlx_host_function_v2_t: descriptions,
   * layouts, typed attributes), beside the version-1 host_functions
   * (copied at hlx_executable_create). A name registered twice across
   * both lists fails with INVALID_ARGUMENT. */
  const hlx_host_function_v2_t* host_functions_v2;
  int32_t num_host_functions_v2;
} hlx_compile_options_t;
void hlx_compile_options_init(hlx_compile_options_t* o);

typedef struct hlx_executable_t hlx_executable_t;
/* The program must outlive the executable. */
hlx_status_t hlx_executable_create(const hlx_program_t* p,
                                   const hlx_compile_options_t* options,
                                   hlx_executable_t** out_executable);
void hlx_executable_destroy(hlx_executable_t* e);
int32_t hlx_executable_num_params(const hlx_executable_t* e);
int32_t hlx_executable_num_results(const hlx_executable_t* e);
hlx_status_t hlx_executable_param_desc(const hlx_executable_t* e, int32_t i,
                                       hlx_tensor_desc_t* out_desc);
hlx_status_t hlx_executable_result_desc(const hlx_executable_t* e, int32_t i,
                                        hlx_tensor_desc_t* out_desc);
/* Tasks of the top-level plan (what on_task reports). */
int32_t hlx_executable_num_tasks(const hlx_executable_t* e);
/* Run memory after buffer assignment: the bytes of the buffer arenas one
 * run uses at its peak (the top-level plan's plus one per nested plan:
 * loop bodies, branches), and the sum of all those intermediates' sizes
 * without reuse, for comparison. 0 on OOM. */
size_t hlx_executable_arena_bytes(const hlx_executable_t* e);
size_t hlx_executable_intermediate_bytes(const hlx_executable_t* e);
/* The largest set of intermediates live at once in program order (summed
 * likewise): the least any assignment without in-place reuse can use. */
size_t hlx_executable_live_bytes(const hlx_executable_t* e);

/* ---- buffers ------------------------------------------------------------- */
typedef struct hlx_buffer_t hlx_buffer_t;
/* Copies `data` (row-major, desc's type; may be NULL for zeros). */
hlx_status_t hlx_buffer_create(const hlx_tensor_desc_t* desc, const void* data,
                               hlx_buffer_t** out_buffer);
void hlx_buffer_destroy(hlx_buffer_t* b);
const hlx_tensor_desc_t* hlx_buffer_desc(const hlx_buffer_t* b); /* borrowed */
const void* hlx_buffer_data(const hlx_buffer_t* b);              /* borrowed */
size_t hlx_buffer_bytes(const hlx_buffer_t* b);

/* Allocator hook for the memory of buffers the library allocates
 * (hlx_buffer_create_with_options, run results via the compile options).
 * alloc returns `bytes` (> 0, a multiple of alignment) aligned to
 * `alignment` (64), or NULL on failure (the call then fails with
 * RESOURCE_EXHAUSTED); free gets each pointer alloc returned exactly
 * once, when its buffer is destroyed. Both may be called from any thread. */
typedef struct hlx_allocator_t {
  size_t struct_size; /* set by hlx_allocator_init */
  void* (*alloc)(void* user, size_t bytes, size_t alignment);
  void (*free)(void* user, void* ptr);
  void* user;
} hlx_allocator_t;
void hlx_allocator_init(hlx_allocator_t* a); /* zeroes: the default heap */

/* Layouts: a buffer's minor_to_major lists its dimensions from the
 * fastest-varying in memory to the slowest (XLA's layout): row-major rank 3
 * is {2,1,0}, column-major {0,1,2}. It must be a permutation of 0..rank-1.
 * A layout may also pad dimensions (padded_dimensions below).
 * hlx_buffer_data gives the bytes in the buffer's own layout. Executables
 * convert at their boundary (parameters in, results out), so any layout
 * can be passed to any parameter. */
typedef struct hlx_buffer_options_t {
  size_t struct_size; /* set by hlx_buffer_options_init */
  /* desc->rank entries (copied); NULL = row-major. */
  const int32_t* minor_to_major;
  /* Where the memory comes from (copied; NULL = the default heap). Not
   * used by hlx_buffer_create_zero_copy. */
  const hlx_allocator_t* allocator;
  /* XLA's padded_dimensions: desc->rank entries (copied), entry i >=
   * desc->dims[i], the width dimension i is padded to in memory; NULL =
   * no padding. The memory holds the padded array in minor_to_major
   * order (hlx_buffer_bytes is its size); the logical elements are those
   * with every index below the dimension's size, the rest is padding
   * (the library fills padding it writes with zeros and never reads it).
   * Example: f32[2,3], minor_to_major {0,1}, padded {3,5}: memory is
   * a d 0 b e 0 c f 0 0 0 0 0 0 0 for [[a,b,c],[d,e,f]]. */
  const int64_t* padded_dimensions;
} hlx_buffer_options_t;
void hlx_buffer_options_init(hlx_buffer_options_t* o);

/* hlx_buffer_create with options: copies `data` (hlx_buffer_bytes bytes
 * in the options' layout, padding included; NULL = zeros) into memory
 * from the options' allocator. */
hlx_status_t hlx_buffer_create_with_options(const hlx_tensor_desc_t* desc,
                                            const void* data,
                                            const hlx_buffer_options_t* options,
                                            hlx_buffer_t** out_buffer);

/* Zero-copy: a buffer over the caller's memory, which is not copied.
 * Ownership: on success the buffer uses `data` until hlx_buffer_destroy,
 * which then calls deleter(deleter_user, data) exactly once (deleter may
 * be NULL when the caller frees data itself after destroying the buffer).
 * The library only reads data (runs never write parameters); the caller
 * must not change it while a run uses the buffer. On failure the buffer is
 * not made, the deleter is not called and data stays the caller's.
 * Rules: data is aligned to the element size (64 is best for speed) and
 * holds hlx_buffer_bytes bytes in the options' layout; data may be NULL
 * only when that size is 0. options: NULL or minor_to_major and
 * padded_dimensions used. */
typedef void (*hlx_buffer_deleter_fn)(void* user, void* data);
hlx_status_t hlx_buffer_create_zero_copy(const hlx_tensor_desc_t* desc,
                                         void* data,
                                         hlx_buffer_deleter_fn deleter,
                                         void* deleter_user,
                                         const hlx_buffer_options_t* options,
                                         hlx_buffer_t** out_buffer);
/* The buffer's layout: writes desc->rank entries to out_minor_to_major. */
void hlx_buffer_minor_to_major(const hlx_buffer_t* b,
                               int32_t* out_minor_to_major);
/* The buffer's padded dimensions: writes desc->rank entries (the dims
 * themselves when it has no padding). */
void hlx_buffer_padded_dimensions(const hlx_buffer_t* b,
                                  int64_t* out_padded_dimensions);

/* Runs the executable once. params: num_params buffers matching the
 * parameter descriptions. On success out_results[i] (num_results entries,
 * caller-provided array) receive new buffers the caller destroys. */
hlx_status_t hlx_executable_run(const hlx_executable_t* e,
                                hlx_buffer_t* const* params,
                                int32_t num_params, hlx_buffer_t** out_results,
                                int32_t num_results);

/* Per-run host I/O: stablehlo.infeed takes its values from `infeed`
 * (fill the n buffers of the given byte sizes with the next queued
 * values), stablehlo.outfeed hands its values to `outfeed`. `config` is
 * the op's infeed_config / outfeed_config ("" if none). Without them those
 * ops fail the run with a clear status. */
typedef struct hlx_run_options_t {
  size_t struct_size; /* set by hlx_run_options_init */
  hlx_status_t (*infeed)(void* user, const char* config, void* const* buffers,
                         const size_t* bytes, int32_t n);
  hlx_status_t (*outfeed)(void* user, const char* config,
                          const void* const* buffers, const size_t* bytes,
                          int32_t n);
  void* user;
  /* interpreter.print ops hand their value here (borrowed during the
   * call; value_name is the SSA name). NULL: such ops print nothing. */
  void (*print)(void* user, const char* value_name,
                const hlx_tensor_desc_t* desc, const void* data);
  /* Profiling: called after each task of the program's top-level plan
   * with the task's index (0 .. hlx_executable_num_tasks - 1), its name
   * ("stablehlo.add at 12:5"; a fused task names its members; valid while
   * the executable lives), the thread that ran it (a small number per OS
   * thread, stable for the process) and its start/end times in ns
   * (CLOCK_MONOTONIC). Called from several threads at once on a
   * multi-threaded run. NULL: no events, no cost. */
  void (*on_task)(void* user, int32_t task, const char* name, int32_t thread,
                  uint64_t start_ns, uint64_t end_ns);
  void* on_task_user;
  /* true: out_results[] already hold the caller's buffers, one per result
   * (any layout, each matching its result description, sharing no memory
   * with a parameter or another result), and the run writes the results
   * into them instead of creating new buffers: no allocation per run.
   * They stay the caller's; after a failed run their contents are
   * unspecified. false (default): new buffers as described above. */
  bool results_provided;
} hlx_run_options_t;
void hlx_run_options_init(hlx_run_options_t* o);

/* hlx_executable_run with run options (NULL = defaults). */
hlx_status_t hlx_executable_run_with_options(const hlx_executable_t* e,
                                             hlx_buffer_t* const* params,
                                             int32_t num_params,
                                             hlx_buffer_t** out_results,
                                             int32_t num_results,
                                             const hlx_run_options_t* options);

/* Runs every process of an executable compiled with num_replicas x
 * num_partitions > 1: params holds num_processes * num_params buffers,
 * process-major (process id = replica * num_partitions + partition), and
 * out_results receives num_processes * num_results new buffers likewise.
 * (hlx_executable_run on such an executable feeds every process the same
 * parameters and returns process 0's results.) */
int32_t hlx_executable_num_processes(const hlx_executable_t* e);
/* The grid the executable runs on (compile options, else the module's
 * attributes, else 1). */
int32_t hlx_executable_num_replicas(const hlx_executable_t* e);
int32_t hlx_executable_num_partitions(const hlx_executable_t* e);
hlx_status_t hlx_executable_run_replicated(const hlx_executable_t* e,
                                           hlx_buffer_t* const* params,
                                           int32_t num_params,
                                           hlx_buffer_t** out_results,
                                           int32_t num_results);
/* hlx_executable_run_replicated with run options (NULL = defaults);
 * on_task and the host callbacks are called from every process. */
hlx_status_t hlx_executable_run_replicated_with_options(
    const hlx_executable_t* e, hlx_buffer_t* const* params,
    int32_t num_params, hlx_buffer_t** out_results, int32_t num_results,
    const hlx_run_options_t* options);

/* Asynchronous run. Starts hlx_executable_run(e, params, ...) on a thread
 * of its own and returns at once; params and out_results (caller-owned
 * array of num_results) must stay valid until the run completes. When it
 * does, callback (if any) is called on that thread with the run's status
 * (borrowed: valid during the call only) and out_results filled as for
 * hlx_executable_run. hlx_run_wait blocks until completion, returns the
 * status (owned by the caller) and frees the handle; every handle must be
 * waited for exactly once. */
typedef struct hlx_run_handle_t hlx_run_handle_t;
typedef void (*hlx_run_callback_t)(void* user, hlx_status_t status);
hlx_status_t hlx_executable_run_async(const hlx_executable_t* e,
                                      hlx_buffer_t* const* params,
                                      int32_t num_params,
                                      hlx_buffer_t** out_results,
                                      int32_t num_results,
                                      hlx_run_callback_t callback, void* user,
                                      hlx_run_handle_t** out_handle);
hlx_status_t hlx_run_wait(hlx_run_handle_t* h);

/* The code check ops use when a check does not hold. */
#define HLX_STATUS_CODE_CHECK_FAILED 7
/* True when s is a failed check.* op (not an error of the program). */
bool hlx_status_is_check_failure(hlx_status_t s);

/* ==== graph builder (XlaBuilder-style) ===================================
 *
 * A builder makes a computation op by op. Every op call returns a status
 * and writes the new value's id (a uint32_t local to that builder) to its
 * last argument; on error it writes HLX_BUILDER_NO_VALUE there.
 *
 * Errors are latched as in XlaBuilder: the first failing call records its
 * error ("<op>: <rule that was broken>"); every later op call does nothing
 * and returns a copy of that error, and hlx_builder_build returns it too,
 * so a caller may check statuses only at the end. Every returned status is
 * owned by the caller (hlx_status_release).
 *
 * Shapes are inferred and checked at each call (XLA's operation
 * semantics); element types are hlx_element_type_t values (HLX dtypes).
 * Elementwise unary and binary ops use one entry point each, with an op
 * enum (stable values: new ops are appended), rather than one function per
 * op, which keeps the exported symbol list short.
 *
 * A built program is an hlx_program_t like a parsed one: compile it with
 * hlx_executable_create, print it with hlx_program_print (StableHLO
 * generic form, which hlx_program_parse reads back to the same program).
 * Ops are emitted as StableHLO: XLA's implicit broadcasts become explicit
 * stablehlo.broadcast_in_dim ops, Dot becomes stablehlo.dot_general. */
typedef struct hlx_builder_t hlx_builder_t;
/* A sub-computation (reduce combiner, ...), made by a builder; immutable. */
typedef struct hlx_computation_t hlx_computation_t;

#define HLX_BUILDER_NO_VALUE UINT32_MAX

/* name: the function's name in the built program (copied; NULL or "" =
 * "main"). *out_builder is owned by the caller (hlx_builder_destroy). */
hlx_status_t hlx_builder_create(const char* name, hlx_builder_t** out_builder);
void hlx_builder_destroy(hlx_builder_t* b); /* NULL is fine */

/* The latched error: NULL if none, else a copy owned by the caller. */
hlx_status_t hlx_builder_first_error(const hlx_builder_t* b);
/* Shape of a value (tuples: error). */
hlx_status_t hlx_builder_get_desc(const hlx_builder_t* b, uint32_t value,
                                  hlx_tensor_desc_t* out_desc);

/* Finishes the builder. roots (num_roots >= 1 ids) become the function's
 * results in order (a tuple root is returned as one tuple-typed result;
 * executables see its leaves). Parameters must be numbered 0..n-1 without
 * gaps. On success *out_program is owned by the caller
 * (hlx_program_destroy) and the builder is spent: later calls fail; only
 * hlx_builder_destroy remains. On error nothing is consumed. */
hlx_status_t hlx_builder_build(hlx_builder_t* b, const uint32_t* roots,
                               int32_t num_roots, hlx_program_t** out_program);
/* Same, for a sub-computation: its parameters become the region's block
 * arguments, roots the values the region returns. *out_computation is
 * owned by the caller (hlx_computation_destroy); ops that take it copy
 * it, so it may be used many times and destroyed at any time after. */
hlx_status_t hlx_builder_build_computation(
    hlx_builder_t* b, const uint32_t* roots, int32_t num_roots,
    hlx_computation_t** out_computation);
void hlx_computation_destroy(hlx_computation_t* c); /* NULL is fine */

/* Parameter `index` (>= 0, each index once) of shape *desc (copied).
 * name: optional label (copied, may be NULL), kept as the argument's SSA
 * name. */
hlx_status_t hlx_builder_parameter(hlx_builder_t* b, int32_t index,
                                   const hlx_tensor_desc_t* desc,
                                   const char* name, uint32_t* out_value);
/* A constant of shape *desc from row-major host data (copied; may be NULL
 * only when the shape has no elements). One byte per element for pred and
 * sub-byte types; complex as (re, im) pairs. */
hlx_status_t hlx_builder_constant(hlx_builder_t* b,
                                  const hlx_tensor_desc_t* desc,
                                  const void* data, uint32_t* out_value);
/* Convenience: a rank-0 constant of type t from a double (converted to t;
 * complex types get imaginary part 0). */
hlx_status_t hlx_builder_constant_scalar(hlx_builder_t* b,
                                         hlx_element_type_t t, double value,
                                         uint32_t* out_value);

typedef enum hlx_unary_op_t {
  HLX_UNARY_ABS = 0,
  HLX_UNARY_CEIL = 1,
  HLX_UNARY_COS = 2,
  HLX_UNARY_EXP = 3,
  HLX_UNARY_EXPM1 = 4,
  HLX_UNARY_FLOOR = 5,
  HLX_UNARY_IMAG = 6,
  HLX_UNARY_IS_FINITE = 7,
  HLX_UNARY_LOG = 8,
  HLX_UNARY_LOG1P = 9,
  HLX_UNARY_LOGISTIC = 10,
  HLX_UNARY_NOT = 11,
  HLX_UNARY_POPCNT = 12,
  HLX_UNARY_NEG = 13,
  HLX_UNARY_REAL = 14,
  HLX_UNARY_RSQRT = 15,
  HLX_UNARY_SIGN = 16,
  HLX_UNARY_SIN = 17,
  HLX_UNARY_SQRT = 18,
  HLX_UNARY_CBRT = 19,
  HLX_UNARY_TAN = 20,
  HLX_UNARY_TANH = 21,
  HLX_UNARY_ROUND = 22, /* ties away from zero */
  HLX_UNARY_ROUND_NEAREST_EVEN = 23,
  HLX_UNARY_CLZ = 24,
} hlx_unary_op_t;
hlx_status_t hlx_builder_unary(hlx_builder_t* b, hlx_unary_op_t op,
                               uint32_t operand, uint32_t* out_value);

typedef enum hlx_binary_op_t {
  HLX_BINARY_ADD = 0,
  HLX_BINARY_SUB = 1,
  HLX_BINARY_MUL = 2,
  HLX_BINARY_DIV = 3,
  HLX_BINARY_REM = 4,
  HLX_BINARY_MAX = 5,
  HLX_BINARY_MIN = 6,
  HLX_BINARY_POW = 7,
  HLX_BINARY_ATAN2 = 8,
  HLX_BINARY_AND = 9,
  HLX_BINARY_OR = 10,
  HLX_BINARY_XOR = 11,
  HLX_BINARY_SHIFT_LEFT = 12,
  HLX_BINARY_SHIFT_RIGHT_ARITHMETIC = 13,
  HLX_BINARY_SHIFT_RIGHT_LOGICAL = 14,
  HLX_BINARY_COMPLEX = 15, /* (re, im) -> complex */
} hlx_binary_op_t;
/* XLA broadcasting: operands of equal rank broadcast size-1 dimensions;
 * a rank-0 operand broadcasts to the other's shape; otherwise
 * broadcast_dimensions (num_broadcast_dims = the lower rank, strictly
 * increasing) maps the lower-rank operand's dimensions to the higher-rank
 * one's, and size-1 dimensions broadcast. broadcast_dimensions is
 * borrowed for the call; NULL/0 when not needed. */
hlx_status_t hlx_builder_binary(hlx_builder_t* b, hlx_binary_op_t op,
                                uint32_t lhs, uint32_t rhs,
                                const int64_t* broadcast_dimensions,
                                int32_t num_broadcast_dims,
                                uint32_t* out_value);

typedef enum hlx_comparison_direction_t {
  HLX_COMPARE_EQ = 0,
  HLX_COMPARE_NE = 1,
  HLX_COMPARE_GE = 2,
  HLX_COMPARE_GT = 3,
  HLX_COMPARE_LE = 4,
  HLX_COMPARE_LT = 5,
} hlx_comparison_direction_t;
/* Result: pred of the broadcast shape (broadcasting as for binary ops).
 * Floats compare by IEEE rules, integers signed/unsigned by type. */
hlx_status_t hlx_builder_compare(hlx_builder_t* b,
                                 hlx_comparison_direction_t direction,
                                 uint32_t lhs, uint32_t rhs,
                                 const int64_t* broadcast_dimensions,
                                 int32_t num_broadcast_dims,
                                 uint32_t* out_value);

/* pred: pred of on_true's shape, or rank 0; on_true/on_false: same type. */
hlx_status_t hlx_builder_select(hlx_builder_t* b, uint32_t pred,
                                uint32_t on_true, uint32_t on_false,
                                uint32_t* out_value);
/* min/max: rank 0 or operand's shape, operand's element type. */
hlx_status_t hlx_builder_clamp(hlx_builder_t* b, uint32_t min,
                               uint32_t operand, uint32_t max,
                               uint32_t* out_value);
hlx_status_t hlx_builder_convert(hlx_builder_t* b, uint32_t operand,
                                 hlx_element_type_t new_type,
                                 uint32_t* out_value);
/* New dimension sizes (row-major reinterpretation; same element count). */
hlx_status_t hlx_builder_reshape(hlx_builder_t* b, uint32_t operand,
                                 const int64_t* new_sizes, int32_t rank,
                                 uint32_t* out_value);
/* Result dimension i is operand dimension permutation[i]. */
hlx_status_t hlx_builder_transpose(hlx_builder_t* b, uint32_t operand,
                                   const int64_t* permutation, int32_t n,
                                   uint32_t* out_value);
/* Operand dimension i goes to result dimension broadcast_dimensions[i]
 * (operand rank entries, distinct); its size must be 1 or out_sizes[it]. */
hlx_status_t hlx_builder_broadcast_in_dim(hlx_builder_t* b, uint32_t operand,
                                          const int64_t* out_sizes,
                                          int32_t out_rank,
                                          const int64_t* broadcast_dimensions,
                                          int32_t num_broadcast_dims,
                                          uint32_t* out_value);
/* XLA Broadcast: prepends dimensions of the given sizes. */
hlx_status_t hlx_builder_broadcast(hlx_builder_t* b, uint32_t operand,
                                   const int64_t* sizes, int32_t n,
                                   uint32_t* out_value);
/* Per dimension: 0 <= start <= limit <= size, stride >= 1 (strides NULL =
 * all 1). Arrays have the operand's rank entries. */
hlx_status_t hlx_builder_slice(hlx_builder_t* b, uint32_t operand,
                               const int64_t* start, const int64_t* limit,
                               const int64_t* strides, int32_t rank,
                               uint32_t* out_value);
hlx_status_t hlx_builder_concatenate(hlx_builder_t* b,
                                     const uint32_t* operands, int32_t n,
                                     int64_t dimension, uint32_t* out_value);
/* low/high may be negative; interior >= 0; padding_value rank 0. */
hlx_status_t hlx_builder_pad(hlx_builder_t* b, uint32_t operand,
                             uint32_t padding_value, const int64_t* low,
                             const int64_t* high, const int64_t* interior,
                             int32_t rank, uint32_t* out_value);
hlx_status_t hlx_builder_iota(hlx_builder_t* b, const hlx_tensor_desc_t* desc,
                              int64_t iota_dimension, uint32_t* out_value);
/* Reduces `dimensions` of operand with combiner (2 rank-0 parameters of
 * the operand's element type -> one rank-0 result of it), starting from
 * init (rank 0). The combiner is copied. */
hlx_status_t hlx_builder_reduce(hlx_builder_t* b, uint32_t operand,
                                uint32_t init,
                                const hlx_computation_t* combiner,
                                const int64_t* dimensions, int32_t n,
                                uint32_t* out_value);
/* XLA Dot: [m] x [m] -> [], [n,m] x [m] -> [n], [n,m] x [m,k] -> [n,k]. */
hlx_status_t hlx_builder_dot(hlx_builder_t* b, uint32_t lhs, uint32_t rhs,
                             uint32_t* out_value);
/* XLA DotGeneral: lhs_batch[i] pairs with rhs_batch[i] (num_batch each),
 * lhs_contracting[i] with rhs_contracting[i] (num_contracting each);
 * arrays borrowed for the call. Result: batch dims, then lhs free dims,
 * then rhs free dims, in order. Operands have the same element type. */
hlx_status_t hlx_builder_dot_general(hlx_builder_t* b, uint32_t lhs,
                                     uint32_t rhs, const int64_t* lhs_batch,
                                     const int64_t* rhs_batch,
                                     int32_t num_batch,
                                     const int64_t* lhs_contracting,
                                     const int64_t* rhs_contracting,
                                     int32_t num_contracting,
                                     uint32_t* out_value);
hlx_status_t hlx_builder_tuple(hlx_builder_t* b, const uint32_t* elements,
                               int32_t n, uint32_t* out_value);
hlx_status_t hlx_builder_get_tuple_element(hlx_builder_t* b, uint32_t tuple,
                                           int32_t index, uint32_t* out_value);
#include "api/hlx_builder_ops.h" /* more builder ops and options */
/* ==== end of graph builder ============================================== */

#ifdef __cplusplus
}
#endif

#endif /* HLX_API_HLX_H_ */
