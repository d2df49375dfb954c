/* Run-time CPU feature detection and the ISA cap used by kernel dispatch.
 *
 * Detection runs once (pthread_once): CPUID for the instruction sets *and*
 * XGETBV for the OS saving the register state they need (YMM for AVX2, the
 * opmask/ZMM state for AVX-512) — a CPU that has AVX-512 under an OS that
 * does not enable it reports no AVX-512.
 *
 * The ISA levels are the flag sets the kernel folders are compiled with:
 *   avx2   = AVX2 + FMA                     (kernels/x86/avx2/)
 *   avx512 = AVX-512 F + BW + DQ + VL       (kernels/x86/avx512/)
 *   neon   = AArch64 Advanced SIMD          (kernels/arm/neon/)
 * Levels are per architecture: level 1 is avx2 on x86-64 and neon on
 * AArch64 (HLX_ISA_NEON == HLX_ISA_AVX2), so "min(detected, cap)" and the
 * tests' loop over levels need no architecture switch.
 * The effective level is min(detected, process cap, thread cap). The
 * process cap comes from the environment variable
 * HLX_MAX_ISA=reference|avx2|avx512|neon (read once), and
 * hlx_cpu_set_max_isa() overrides it (tests force every level). The thread
 * cap (hlx_cpu_thread_isa_cap_swap) is how one executable runs below the
 * process level: the executor sets it on every thread while that thread
 * lowers or runs the executable's tasks, beside other executables. */
#ifndef HLX_KERNELS_CPU_FEATURES_H_
#define HLX_KERNELS_CPU_FEATURES_H_

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hlx_isa_t {
  HLX_ISA_REFERENCE = 0,
  HLX_ISA_AVX2 = 1,
  HLX_ISA_AVX512 = 2,
  HLX_ISA_NEON = 1, /* AArch64's level 1; always present there */
  HLX_ISA_COUNT = 3
} hlx_isa_t;

/* Feature bits (hardware support AND OS support). */
enum {
  HLX_CPU_SSE42 = 1u << 0,
  HLX_CPU_AVX = 1u << 1,
  HLX_CPU_AVX2 = 1u << 2,
  HLX_CPU_FMA = 1u << 3,
  HLX_CPU_F16C = 1u << 4,
  HLX_CPU_BMI2 = 1u << 5,
  HLX_CPU_AVX512F = 1u << 6,
  HLX_CPU_AVX512BW = 1u << 7,
  HLX_CPU_AVX512DQ = 1u << 8,
  HLX_CPU_AVX512VL = 1u << 9,
  HLX_CPU_AVX512BF16 = 1u << 10,
  HLX_CPU_AVX512FP16 = 1u << 11,
};

/* The detected feature bitmask (detection runs on the first call). */
uint32_t hlx_cpu_features(void);

/* The best ISA level this CPU and OS support, ignoring any cap. */
hlx_isa_t hlx_cpu_detected_isa(void);

/* The level kernels are dispatched at: min(detected, process cap, this
 * thread's cap). */
hlx_isa_t hlx_cpu_max_isa(void);

/* Whether `isa` can run here (ignores the cap). */
bool hlx_cpu_supports_isa(hlx_isa_t isa);

/* Caps the level (for tests; thread-safe, affects later lookups only).
 * HLX_ISA_COUNT removes the cap set here and returns to HLX_MAX_ISA. */
void hlx_cpu_set_max_isa(hlx_isa_t cap);

/* Sets the calling thread's cap (HLX_ISA_COUNT = none, the default of
 * every thread; values above it count as none) and returns the previous
 * one, so callers restore it: prev = swap(cap); ...; swap(prev). Lowers
 * the level only: a thread cap above the process cap changes nothing. */
hlx_isa_t hlx_cpu_thread_isa_cap_swap(hlx_isa_t cap);
/* The calling thread's cap (HLX_ISA_COUNT = none), to hand to helpers. */
hlx_isa_t hlx_cpu_thread_isa_cap(void);

/* "reference", "avx2", "avx512" ("neon" for level 1 on AArch64);
 * "invalid" otherwise. */
const char* hlx_isa_name(hlx_isa_t isa);

/* Parses an ISA name (case-insensitive; "ref", "none", "scalar" accepted
 * for reference). false if unknown. */
bool hlx_isa_parse(const char* s, hlx_isa_t* out_isa);

#ifdef __cplusplus
}
#endif

#endif /* HLX_KERNELS_CPU_FEATURES_H_ */
