/* CPUID + XGETBV detection, once; see cpu_features.h. */
#include "kernels/cpu_features.h"

#include <pthread.h>
#include <stdlib.h>
#include <strings.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HLX_X86 1
#endif

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static uint32_t g_features;
static hlx_isa_t g_detected = HLX_ISA_REFERENCE;
static hlx_isa_t g_env_cap = HLX_ISA_COUNT; /* COUNT = no cap */
/* Set by hlx_cpu_set_max_isa; HLX_ISA_COUNT = not set. */
static _Atomic int g_test_cap = HLX_ISA_COUNT;
/* This thread's cap (hlx_cpu_thread_isa_cap_swap); HLX_ISA_COUNT = none. */
static _Thread_local hlx_isa_t t_cap = HLX_ISA_COUNT;

#ifdef HLX_X86
static uint64_t xgetbv0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}
#endif

static void detect(void) {
  uint32_t f = 0;
#ifdef HLX_X86
  unsigned a, b, c, d;
  unsigned max_leaf = __get_cpuid_max(0, NULL);
  if (max_leaf >= 1 && __get_cpuid(1, &a, &b, &c, &d)) {
    if (c & bit_SSE4_2) f |= HLX_CPU_SSE42;
    bool osxsave = (c & bit_OSXSAVE) != 0;
    uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    /* XCR0 bit 1 = SSE (XMM), bit 2 = AVX (YMM upper halves); bits 5-7 =
     * opmask, ZMM0-15 upper halves, ZMM16-31. */
    bool ymm_os = (xcr0 & 0x6) == 0x6;
    bool zmm_os = ymm_os && (xcr0 & 0xe0) == 0xe0;
    if (ymm_os && (c & bit_AVX)) {
      f |= HLX_CPU_AVX;
      if (c & bit_FMA) f |= HLX_CPU_FMA;
      if (c & bit_F16C) f |= HLX_CPU_F16C;
    }
    if (max_leaf >= 7) {
      __cpuid_count(7, 0, a, b, c, d);
      if (b & bit_BMI2) f |= HLX_CPU_BMI2;
      if (ymm_os && (b & bit_AVX2)) f |= HLX_CPU_AVX2;
      if (zmm_os) {
        if (b & bit_AVX512F) f |= HLX_CPU_AVX512F;
        if (b & bit_AVX512BW) f |= HLX_CPU_AVX512BW;
        if (b & bit_AVX512DQ) f |= HLX_CPU_AVX512DQ;
        if (b & bit_AVX512VL) f |= HLX_CPU_AVX512VL;
        if (d & (1u << 23)) f |= HLX_CPU_AVX512FP16;
        unsigned a1, b1, c1, d1;
        __cpuid_count(7, 1, a1, b1, c1, d1);
        (void)b1, (void)c1, (void)d1;
        if (a1 & (1u << 5)) f |= HLX_CPU_AVX512BF16;
      }
    }
  }
#endif
  g_features = f;
  const uint32_t avx2 = HLX_CPU_AVX | HLX_CPU_AVX2 | HLX_CPU_FMA;
  const uint32_t avx512 = HLX_CPU_AVX512F | HLX_CPU_AVX512BW |
                          HLX_CPU_AVX512DQ | HLX_CPU_AVX512VL;
  if ((f & avx2) == avx2) g_detected = HLX_ISA_AVX2;
  if (g_detected == HLX_ISA_AVX2 && (f & avx512) == avx512)
    g_detected = HLX_ISA_AVX512;
#if defined(__aarch64__)
  g_detected = HLX_ISA_NEON; /* Advanced SIMD is mandatory in AArch64 */
#endif
  const char* env = getenv("HLX_MAX_ISA");
  hlx_isa_t cap;
  /* An unknown value is ignored (no cap): the library never prints. */
  if (env && *env && hlx_isa_parse(env, &cap)) g_env_cap = cap;
}

static void init(void) { pthread_once(&g_once, detect); }

uint32_t hlx_cpu_features(void) {
  init();
  return g_features;
}

hlx_isa_t hlx_cpu_detected_isa(void) {
  init();
  return g_detected;
}

bool hlx_cpu_supports_isa(hlx_isa_t isa) {
  init();
  return (unsigned)isa <= (unsigned)g_detected;
}

hlx_isa_t hlx_cpu_max_isa(void) {
  init();
  hlx_isa_t isa = g_detected;
  int test_cap = g_test_cap;
  hlx_isa_t cap = test_cap != HLX_ISA_COUNT ? (hlx_isa_t)test_cap : g_env_cap;
  if (cap < isa) isa = cap;
  if (t_cap < isa) isa = t_cap;
  return isa;
}

hlx_isa_t hlx_cpu_thread_isa_cap_swap(hlx_isa_t cap) {
  hlx_isa_t prev = t_cap;
  t_cap = (unsigned)cap > HLX_ISA_COUNT ? HLX_ISA_COUNT : cap;
  return prev;
}

hlx_isa_t hlx_cpu_thread_isa_cap(void) { return t_cap; }

void hlx_cpu_set_max_isa(hlx_isa_t cap) {
  init();
  if ((unsigned)cap > HLX_ISA_COUNT) cap = HLX_ISA_COUNT;
  g_test_cap = (int)cap;
}

const char* hlx_isa_name(hlx_isa_t isa) {
  switch (isa) {
    case HLX_ISA_REFERENCE: return "reference";
#if defined(__aarch64__)
    case HLX_ISA_NEON: return "neon";
#else
    case HLX_ISA_AVX2: return "avx2";
#endif
    case HLX_ISA_AVX512: return "avx512";
    default: return "invalid";
  }
}

bool hlx_isa_parse(const char* s, hlx_isa_t* out_isa) {
  static const struct {
    const char* name;
    hlx_isa_t isa;
  } kNames[] = {{"reference", HLX_ISA_REFERENCE}, {"ref", HLX_ISA_REFERENCE},
                {"none", HLX_ISA_REFERENCE},      {"scalar", HLX_ISA_REFERENCE},
                {"avx2", HLX_ISA_AVX2},           {"avx512", HLX_ISA_AVX512},
                {"neon", HLX_ISA_NEON}};
  for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; i++)
    if (s && strcasecmp(s, kNames[i].name) == 0) {
      *out_isa = kNames[i].isa;
      return true;
    }
  return false;
}
