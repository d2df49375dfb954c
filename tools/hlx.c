/* The `hlx` command-line tool:
 *   hlx check FILE_OR_DIR...   run StableHLO test programs (and check XLA HLO
 *                              text), PASS/FAIL/ERROR
 *   hlx run FILE [options]     run @main on .npy or random inputs, time it
 *   hlx print FILE             parse and print (round trip; --format=hlo
 *                              prints XLA HLO text)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/hlx.h"
#include "tools/check_runner.h"
#include "tools/custom_call_lib.h"
#include "tools/file_util.h"
#include "tools/run_command.h"

static void usage(FILE* f) {
  fprintf(f,
          "usage:\n"
          "  hlx check FILE_OR_DIR... [--custom-call-lib LIB.so]...\n"
          "      Runs every program of StableHLO test files (each `// -----`\n"
          "      part); prints PASS, FAIL <why> or ERROR <why> per program\n"
          "      and a final `N passed, N failed` line. XLA HLO text (.hlo\n"
          "      files, found in directories too) passes when it parses,\n"
          "      round-trips through HLO text and runs on random inputs\n"
          "      like the reference build.\n"
          "  hlx run FILE [--input PATH.npy]... [--output-dir DIR]\n"
          "          [--iterations N] [--threads N] [--json] [--fill-elided]\n"
          "          [--profile FILE.json] [--stats] [--max-isa NAME]\n"
          "          [--cpus LIST] [--reusable-params LIST] [--winograd]\n"
          "          [--fast-compile] [--replicas N] [--partitions N]\n"
          "          [--custom-call-lib LIB.so]...\n"
          "      Runs @main of a StableHLO program (text or bytecode) or an\n"
          "      XLA HLO text file (its ENTRY computation; inputs from .npy\n"
          "      files in argument order, or\n"
          "      deterministic random inputs), prints each result and, with\n"
          "      --iterations, the median time per run. --profile writes a\n"
          "      Chrome/Perfetto trace of the last run (one event per task,\n"
          "      one thread per worker); --stats prints time per op kind and\n"
          "      the peak arena bytes against the sum of intermediates.\n"
          "      --max-isa reference|avx2|avx512|neon caps the instruction\n"
          "      set of hlx's kernels for this program (HLX_MAX_ISA: all).\n"
          "      --cpus 0,2-3 pins the workers to those cpus (HLX_CPUS);\n"
          "      --stats also prints the pool's threads, pinning and NUMA\n"
          "      nodes. --reusable-params all|1-|0,2-5 marks parameters\n"
          "      whose contents stay the same across runs (weights): their\n"
          "      packed forms are kept from run to run. --winograd lets 3x3\n"
          "      stride-1 convolutions use Winograd (faster, rounds\n"
          "      differently). --fast-compile trades run time for compile\n"
          "      time (FFT plans estimated, not measured).\n"
          "      --replicas/--partitions set the process grid (default: the\n"
          "      module's mhlo.num_replicas/mhlo.num_partitions, else 1);\n"
          "      with several processes every one runs and prints its\n"
          "      results (\"replica 1 result 0: ...\"; --output-dir writes\n"
          "      replica1_out0.npy, replica1_partition0_out0.npy with\n"
          "      partitions), and --input takes one file per parameter (all\n"
          "      processes) or one per parameter of each process.\n"
          "      --custom-call-lib (run and check; repeatable) loads a\n"
          "      shared library of host functions for custom_call targets:\n"
          "      it exports hlx_register_host_functions (api/hlx.h).\n"
          "  hlx print FILE [--format=stablehlo|hlo]\n"
          "      Parses FILE (StableHLO, or XLA HLO text, detected by its\n"
          "      content) and prints it as StableHLO (generic op form, the\n"
          "      default) or as HLO text.\n");
}

/* ---- check --------------------------------------------------------------- */

typedef struct check_totals_t {
  int passed, failed;
} check_totals_t;

static void print_result(const hlx_check_result_t* r, void* user) {
  check_totals_t* t = user;
  if (r->outcome == HLX_CHECK_PASS) {
    t->passed++;
    printf("PASS %s\n", r->name);
  } else {
    t->failed++;
    /* One line per program: keep the first line of the reason. */
    const char* nl = strchr(r->detail, '\n');
    int n = nl ? (int)(nl - r->detail) : (int)strlen(r->detail);
    printf("%s %s: %.*s\n", hlx_check_outcome_name(r->outcome), r->name, n,
           r->detail);
  }
  fflush(stdout);
}

/* hlx check's --custom-call-lib options, taken out of argv (the files
 * and directories stay, *argc counts them); NULL on a usage error. */
static const char** take_libs(int* argc, char** argv, int* num_libs) {
  const char** libs = calloc((size_t)*argc + 1, sizeof(char*));
  int n = 0, k = 0;
  for (int i = 0; libs && i < *argc; i++) {
    if (strcmp(argv[i], "--custom-call-lib") != 0) {
      argv[k++] = argv[i];
    } else if (i + 1 < *argc) {
      libs[n++] = argv[++i];
    } else {
      fprintf(stderr, "hlx check: --custom-call-lib needs a library\n");
      free(libs);
      return NULL;
    }
  }
  *argc = k;
  *num_libs = n;
  return libs;
}

static int cmd_check(int argc, char** argv) {
  int num_libs = 0;
  const char** lib_paths = take_libs(&argc, argv, &num_libs);
  if (argc < 1 || !lib_paths) {
    free(lib_paths);
    usage(stderr);
    return 2;
  }
  hlx_custom_call_libs_t* libs = NULL;
  hlx_status_t s = hlx_custom_call_libs_open(lib_paths, num_libs, &libs);
  free(lib_paths);
  if (s) {
    fprintf(stderr, "hlx check: %s\n", hlx_status_get_message(s));
    hlx_status_release(s);
    return 2;
  }
  int32_t num_fns;
  const hlx_host_function_v2_t* fns =
      hlx_custom_call_libs_functions(libs, &num_fns);
  hlx_check_set_host_functions(fns, num_fns);
  check_totals_t t = {0, 0};
  for (int i = 0; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      char** paths;
      int n;
      hlx_status_t s = hlx_list_program_files(argv[i], &paths, &n);
      if (s) {
        printf("ERROR %s: %s\n", argv[i], hlx_status_get_message(s));
        hlx_status_release(s);
        t.failed++;
        continue;
      }
      for (int k = 0; k < n; k++)
        hlx_check_file(paths[k], paths[k], print_result, &t);
      hlx_free_paths(paths, n);
    } else {
      hlx_check_file(argv[i], argv[i], print_result, &t);
    }
  }
  printf("%d passed, %d failed\n", t.passed, t.failed);
  hlx_check_set_host_functions(NULL, 0);
  hlx_custom_call_libs_close(libs);
  return t.failed ? 1 : 0;
}

/* ---- print --------------------------------------------------------------- */

static int cmd_print(int argc, char** argv) {
  const char* file = NULL;
  bool hlo = false;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--format=hlo") == 0) {
      hlo = true;
    } else if (strcmp(argv[i], "--format=stablehlo") == 0) {
      hlo = false;
    } else if (!file && argv[i][0] != '-') {
      file = argv[i];
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (!file) {
    usage(stderr);
    return 2;
  }
  char* text;
  size_t len;
  hlx_status_t s = hlx_read_file(file, &text, &len);
  hlx_program_t* p = NULL;
  if (!s) s = hlx_program_parse(text, len, file, 1, &p);
  char* out = NULL;
  size_t out_len = 0;
  if (!s && hlo) s = hlx_program_print_hlo(p, &out, &out_len);
  if (!s && !hlo) s = hlx_program_print(p, &out, &out_len);
  if (!s) fwrite(out, 1, out_len, stdout);
  free(out);
  free(text);
  hlx_program_destroy(p);
  if (s) {
    fprintf(stderr, "hlx print: %s\n", hlx_status_get_message(s));
    hlx_status_release(s);
    return 1;
  }
  return 0;
}

/* oneDNN runs on libgomp, which reads its wait policy once, when it loads
 * (before main). Its default busy-waits up to 300000 polls after every
 * parallel region: free on an idle machine, but when another process holds
 * a core the spinning team members burn the time slices their peers need,
 * and a 2-thread ResNet-50 run took 15x longer (benchmarks/RESULTS.md).
 * Unless the user chose a policy, `hlx run` re-executes itself once with
 * GOMP_SPINCOUNT=10000, which measures the same as the default when idle. */
static void bound_openmp_spinning(char** argv) {
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
  if (setenv("GOMP_SPINCOUNT", "10000", 1) != 0) return;
  execv("/proc/self/exe", argv);
  /* No re-exec (no /proc): run on with libgomp's default. */
}

int main(int argc, char** argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "check") == 0) return cmd_check(argc - 2, argv + 2);
  if (strcmp(argv[1], "print") == 0) return cmd_print(argc - 2, argv + 2);
  if (strcmp(argv[1], "run") == 0) {
    bound_openmp_spinning(argv);
    return hlx_cmd_run(argc - 2, argv + 2);
  }
  fprintf(stderr, "hlx: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
