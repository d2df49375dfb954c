/* FFTW3 plans for the fft op (see fftw.h): the plan cache, wisdom, and
 * FFTW's parallel loops on hlx's pool. */
#include "kernels/libs/fftw.h"

#include <errno.h>
#include <fcntl.h>
#include <fftw3.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/idle_list.h"

/* The transform a plan computes and how it was planned: its cache key. */
typedef struct fft_key_t {
  int32_t type; /* hlx_fft_type_t */
  int32_t dbl;  /* 1: fftw_ (f64/c128), 0: fftwf_ (f32/c64) */
  int32_t fft_rank;
  int32_t howmany; /* batch: product of the leading dims */
  int32_t n[3];    /* the real-side (logical) transform lengths */
  int32_t estimate; /* FFTW_ESTIMATE, else FFTW_MEASURE */
  int32_t threads;  /* fftw_plan_with_nthreads */
} fft_key_t;

struct hlx_fftw_plan_t {
  fft_key_t key;
  size_t in_elems;  /* complex or real elements of the operand */
  size_t out_elems; /* of the result */
  double scale;     /* 1/N for IFFT/IRFFT, else 1 */
  union {
    fftwf_plan f;
    fftw_plan d;
  } plan;
  int64_t refs;
  struct hlx_fftw_plan_t* next; /* cache list */
  hlx_idle_link_t idle;           /* in g_idle when refs == 0 */
};

enum { IDLE_CAP_DEFAULT = 64 };

/* FFTW's planner (creating and destroying plans, wisdom, thread set-up)
 * is not thread-safe; g_planner also guards the cache below. */
static pthread_mutex_t g_planner = PTHREAD_MUTEX_INITIALIZER;
static hlx_fftw_plan_t* g_cache;
static hlx_idle_list_t g_idle =
    HLX_IDLE_LIST_INIT(g_idle, "HLX_FFTW_CACHE_IDLE", IDLE_CAP_DEFAULT);
static int64_t g_live, g_builds, g_wisdom_hits, g_wisdom_writes;
static atomic_llong g_pool_loops; /* counted while executing: no lock */

static hlx_status_t unsupported(const char* why) {
  return hlx_make_status(HLX_STATUS_UNIMPLEMENTED, "FFTW: %s", why);
}

static bool env_is_1(const char* name) {
  const char* v = getenv(name);
  return v && *v == '1';
}

/* ---- FFTW's parallel loops on hlx's pool ----
 * FFTW's threads library hands every parallel loop of a threaded plan to
 * loop_on_pool (fftw_threads_set_callback), which splits it over the
 * hlx_parallel_t of the thread running the plan: hlx_fftw_execute's `par`
 * (the task's pool) or, while planning, options.parallel. FFTW starts no
 * threads of its own. Without one (or inside a job) the loop runs inline.
 * The callback is process-wide: loops of plans that hlx does not run (an
 * application's own threaded FFTW plans) get one thread per job, as FFTW
 * would give them without a callback. */

static _Thread_local const hlx_parallel_t* tls_par;
static _Thread_local bool tls_in_hlx; /* hlx is planning or executing */

typedef struct loop_t {
  void* (*work)(char*);
  char* jobdata;
  size_t elsize;
} loop_t;

static void loop_chunk(void* arg, size_t begin, size_t end) {
  const loop_t* l = arg;
  const hlx_parallel_t* saved = tls_par;
  bool saved_in = tls_in_hlx;
  tls_par = NULL; /* nested loops run inline on this worker */
  tls_in_hlx = true;
  for (size_t i = begin; i < end; i++) l->work(l->jobdata + i * l->elsize);
  tls_par = saved;
  tls_in_hlx = saved_in;
}

typedef struct foreign_job_t {
  void* (*work)(char*);
  char* data;
} foreign_job_t;

static void* foreign_job(void* arg) {
  const foreign_job_t* j = arg;
  return j->work(j->data);
}

/* An application's loop: jobs 1.. on threads of their own, job 0 here
 * (inline when a thread cannot be made). */
static void loop_on_threads(void* (*work)(char*), char* jobdata,
                            size_t elsize, int njobs) {
  enum { kMaxJobs = 64 };
  pthread_t th[kMaxJobs];
  foreign_job_t jobs[kMaxJobs];
  bool started[kMaxJobs] = {false};
  for (int base = 0; base < njobs; base += kMaxJobs) {
    int n = njobs - base < kMaxJobs ? njobs - base : kMaxJobs;
    for (int i = 0; i < n; i++)
      jobs[i] = (foreign_job_t){work, jobdata + (size_t)(base + i) * elsize};
    for (int i = 1; i < n; i++)
      started[i] = pthread_create(&th[i], NULL, foreign_job, &jobs[i]) == 0;
    foreign_job(&jobs[0]);
    for (int i = 1; i < n; i++) {
      if (started[i])
        pthread_join(th[i], NULL);
      else
        foreign_job(&jobs[i]);
    }
  }
}

static void loop_on_pool(void* (*work)(char*), char* jobdata, size_t elsize,
                         int njobs, void* data) {
  (void)data;
  loop_t l = {work, jobdata, elsize};
  if (njobs <= 0) return;
  if (!tls_in_hlx) {
    loop_on_threads(work, jobdata, elsize, njobs);
    return;
  }
  if (tls_par && njobs > 1)
    atomic_fetch_add_explicit(&g_pool_loops, 1, memory_order_relaxed);
  hlx_parallel_for(tls_par, (size_t)njobs, 1, loop_chunk, &l);
}

static bool g_threads_ok;

/* Once, planner lock held. */
static void threads_init_locked(void) {
  static bool done;
  if (done) return;
  done = true;
  g_threads_ok = fftwf_init_threads() && fftw_init_threads();
  /* FFTW's planner is process-wide, not only hlx's: an application
   * planning on another thread must not race g_planner's holder. */
  fftwf_make_planner_thread_safe();
  fftw_make_planner_thread_safe();
  if (g_threads_ok) {
    fftwf_threads_set_callback(loop_on_pool, NULL);
    fftw_threads_set_callback(loop_on_pool, NULL);
  }
}

/* ---- wisdom ---- */

static bool g_wisdom_read; /* the file was read (or there is none) */
static char* g_wisdom_path; /* NULL: no wisdom file */
static char* g_wisdom_last; /* the content last read or written */

/* The wisdom file's path (malloc'd) or NULL; creates the default's
 * directory. */
static char* wisdom_path(void) {
  const char* w = getenv("HLX_FFTW_WISDOM");
  if (w) return *w ? strdup(w) : NULL;
  const char* xdg = getenv("XDG_CACHE_HOME");
  const char* home = getenv("HOME");
  char dir[PATH_MAX];
  int n;
  if (xdg && *xdg) {
    n = snprintf(dir, sizeof dir, "%s", xdg);
  } else if (home && *home) {
    n = snprintf(dir, sizeof dir, "%s/.cache", home);
    if (n > 0 && (size_t)n < sizeof dir) mkdir(dir, 0755);
  } else {
    return NULL;
  }
  if (n <= 0 || (size_t)n + 32 >= sizeof dir) return NULL;
  strcat(dir, "/hlx");
  mkdir(dir, 0755); /* EEXIST or a failure: the write fails later, fine */
  strcat(dir, "/fftw.wisdom");
  return strdup(dir);
}

/* The file's content (malloc'd, NUL-terminated) or NULL. */
static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  char* buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (cap - len < 4096) {
      if (cap > (64u << 20)) break; /* not a wisdom file */
      cap = cap ? cap * 2 : 16384;
      char* nb = realloc(buf, cap + 1);
      if (!nb) break;
      buf = nb;
    }
    size_t r = fread(buf + len, 1, cap - len, f);
    len += r;
    if (r == 0) break;
  }
  bool ok = buf && !ferror(f) && feof(f);
  fclose(f);
  if (!ok) {
    free(buf);
    return NULL;
  }
  buf[len] = 0;
  return buf;
}

/* Imports the file's single-precision wisdom (its first parenthesised
 * expression) and double-precision wisdom (the rest); a bad or foreign
 * part is ignored by FFTW. Planner lock held. */
static void import_wisdom_text(char* text) {
  int depth = 0;
  char* p = text;
  for (; *p; p++) {
    if (*p == '(') depth++;
    if (*p == ')' && --depth == 0) {
      p++;
      break;
    }
  }
  char saved = *p;
  *p = 0;
  fftwf_import_wisdom_from_string(text);
  *p = saved;
  if (*p) fftw_import_wisdom_from_string(p);
}

static void read_wisdom_locked(void) {
  if (g_wisdom_read) return;
  g_wisdom_read = true;
  free(g_wisdom_path);
  g_wisdom_path = wisdom_path();
  if (!g_wisdom_path) return;
  char* text = read_file(g_wisdom_path);
  if (!text) return;
  import_wisdom_text(text);
  free(g_wisdom_last);
  g_wisdom_last = text;
}

/* write_wisdom_locked's merge and write. */
static void write_wisdom_file(void) {
  char* now = read_file(g_wisdom_path);
  if (now) import_wisdom_text(now);
  free(now);
  char* ws = fftwf_export_wisdom_to_string();
  char* wd = fftw_export_wisdom_to_string();
  size_t ls = ws ? strlen(ws) : 0, ld = wd ? strlen(wd) : 0;
  char* text = malloc(ls + ld + 3);
  if (text) {
    snprintf(text, ls + ld + 3, "%s\n%s\n", ws ? ws : "", wd ? wd : "");
    if (g_wisdom_last && strcmp(text, g_wisdom_last) == 0) {
      free(text); /* nothing new */
      text = NULL;
    }
  }
  free(ws);
  free(wd);
  if (!text) return;
  static atomic_int seq;
  size_t plen = strlen(g_wisdom_path) + 48;
  char* tmp = malloc(plen);
  bool ok = false;
  if (tmp) {
    snprintf(tmp, plen, "%s.tmp.%ld.%d", g_wisdom_path, (long)getpid(),
             atomic_fetch_add(&seq, 1));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      size_t len = strlen(text), off = 0;
      while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
      }
      ok = close(fd) == 0 && off == len &&
           rename(tmp, g_wisdom_path) == 0;
      if (!ok) unlink(tmp);
    }
  }
  free(tmp);
  if (ok) {
    g_wisdom_writes++;
    free(g_wisdom_last);
    g_wisdom_last = text;
  } else {
    free(text);
  }
}

/* An exclusive flock on <wisdom path>.lock, held by a process from its
 * read of the file to its rename over it, so two writers merge instead of
 * the second overwriting the first's shapes. Waits at most ~10 s (a stuck
 * holder costs a lost update, not a hung compile); -1 without it. */
static int lock_wisdom_file(void) {
  size_t plen = strlen(g_wisdom_path) + 8;
  char* lp = malloc(plen);
  if (!lp) return -1;
  snprintf(lp, plen, "%s.lock", g_wisdom_path);
  int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  free(lp);
  if (fd < 0) return -1;
  for (int tries = 0; tries < 1000; tries++) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
    if (errno != EWOULDBLOCK && errno != EINTR) break;
    usleep(10000);
  }
  close(fd);
  return -1;
}

/* Writes the wisdom file after a measured plan taught FFTW something:
 * under the file's lock, merges its current content (other processes),
 * then writes all of it to a temporary file renamed over the old one.
 * Planner lock held. */
static void write_wisdom_locked(void) {
  if (!g_wisdom_path) return;
  int lock = lock_wisdom_file();
  write_wisdom_file();
  if (lock >= 0) close(lock); /* releases the flock */
}

/* ---- plans ---- */

/* Makes the FFTW plan of p->key with these flags; planner lock held.
 * MEASURE overwrites the arrays it is given, so planning uses scratch
 * arrays of the right size. */
static bool make_plan(hlx_fftw_plan_t* p, unsigned flags) {
  const fft_key_t* k = &p->key;
  size_t cs = k->dbl ? sizeof(fftw_complex) : sizeof(fftwf_complex);
  size_t rs = k->dbl ? sizeof(double) : sizeof(float);
  bool in_real = k->type == HLX_FFT_RFFT, out_real = k->type == HLX_FFT_IRFFT;
  void* in = fftw_malloc(p->in_elems * (in_real ? rs : cs) + 64);
  void* out = fftw_malloc(p->out_elems * (out_real ? rs : cs) + 64);
  bool ok = false;
  if (in && out) {
    int r = k->fft_rank;
    int n_real = 1, n_cplx = 1;
    for (int i = 0; i < r; i++) {
      n_real *= k->n[i];
      n_cplx *= i == r - 1 ? k->n[i] / 2 + 1 : k->n[i];
    }
    int sign = k->type == HLX_FFT_IFFT ? FFTW_BACKWARD : FFTW_FORWARD;
    /* The thread count is FFTW's global setting: the application's is put
     * back after. */
    int app_threads =
        k->dbl ? fftw_planner_nthreads() : fftwf_planner_nthreads();
    if (k->dbl) {
      fftw_plan_with_nthreads(k->threads);
      if (k->type == HLX_FFT_FFT || k->type == HLX_FFT_IFFT)
        p->plan.d = fftw_plan_many_dft(r, k->n, k->howmany, in, NULL, 1,
                                       n_real, out, NULL, 1, n_real, sign,
                                       flags);
      else if (k->type == HLX_FFT_RFFT)
        p->plan.d = fftw_plan_many_dft_r2c(r, k->n, k->howmany, in, NULL, 1,
                                           n_real, out, NULL, 1, n_cplx,
                                           flags);
      else
        p->plan.d = fftw_plan_many_dft_c2r(r, k->n, k->howmany, in, NULL, 1,
                                           n_cplx, out, NULL, 1, n_real,
                                           flags);
      ok = p->plan.d != NULL;
    } else {
      fftwf_plan_with_nthreads(k->threads);
      if (k->type == HLX_FFT_FFT || k->type == HLX_FFT_IFFT)
        p->plan.f = fftwf_plan_many_dft(r, k->n, k->howmany, in, NULL, 1,
                                        n_real, out, NULL, 1, n_real, sign,
                                        flags);
      else if (k->type == HLX_FFT_RFFT)
        p->plan.f = fftwf_plan_many_dft_r2c(r, k->n, k->howmany, in, NULL, 1,
                                            n_real, out, NULL, 1, n_cplx,
                                            flags);
      else
        p->plan.f = fftwf_plan_many_dft_c2r(r, k->n, k->howmany, in, NULL, 1,
                                            n_cplx, out, NULL, 1, n_real,
                                            flags);
      ok = p->plan.f != NULL;
    }
    if (k->dbl)
      fftw_plan_with_nthreads(app_threads);
    else
      fftwf_plan_with_nthreads(app_threads);
  }
  fftw_free(in);
  fftw_free(out);
  return ok;
}

/* Plans p: from wisdom alone when it knows the shape, else by measuring
 * (and then writing the wisdom file) or estimating. Planner lock held. */
static bool plan_locked(hlx_fftw_plan_t* p, const hlx_parallel_t* par) {
  const hlx_parallel_t* saved = tls_par;
  bool saved_in = tls_in_hlx;
  tls_par = par; /* MEASURE times threaded plans on the pool */
  tls_in_hlx = true;
  bool ok;
  if (p->key.estimate) {
    ok = make_plan(p, FFTW_ESTIMATE | FFTW_UNALIGNED);
  } else {
    read_wisdom_locked();
    unsigned flags = FFTW_MEASURE | FFTW_UNALIGNED;
    ok = make_plan(p, flags | FFTW_WISDOM_ONLY);
    if (ok) {
      g_wisdom_hits++;
    } else {
      ok = make_plan(p, flags);
      if (ok) write_wisdom_locked();
    }
  }
  tls_par = saved;
  tls_in_hlx = saved_in;
  return ok;
}

static void destroy_plan_locked(hlx_fftw_plan_t* p) {
  if (p->key.dbl)
    fftw_destroy_plan(p->plan.d);
  else
    fftwf_destroy_plan(p->plan.f);
  free(p);
  g_live--;
}

/* Destroys the longest-idle plans past the capacity; locked. */
static void evict_locked(void) {
  for (hlx_idle_link_t* l; (l = hlx_idle_pop_excess(&g_idle));) {
    hlx_fftw_plan_t* e = HLX_IDLE_ENTRY(l, hlx_fftw_plan_t, idle);
    hlx_fftw_plan_t** pp = &g_cache;
    while (*pp != e) pp = &(*pp)->next;
    *pp = e->next;
    destroy_plan_locked(e);
  }
}

/* Smallest transform (elements of the real side, whole batch) planned
 * with threads: 2 threads lost at 2^10..2^14 and won from 2^15 on a busy
 * 2-core machine (RESULTS.md, "FFT, session 7"). HLX_FFTW_THREAD_MIN
 * overrides. */
static int64_t thread_min(void) { /* read per plan: planning is slow anyway */
  const char* e = getenv("HLX_FFTW_THREAD_MIN");
  long long n = e && *e ? strtoll(e, NULL, 10) : -1;
  return n >= 0 ? n : (1ll << 15);
}

hlx_status_t hlx_fftw_plan_obtain(hlx_fft_type_t type, hlx_dtype_t in_dtype,
                                  int32_t rank, const int64_t* in_dims,
                                  int32_t fft_rank, const int64_t* fft_length,
                                  const hlx_fftw_options_t* options,
                                  hlx_fftw_plan_t** out) {
  *out = NULL;
  hlx_fftw_options_t o = {0};
  if (options) o = *options;
  fft_key_t k;
  memset(&k, 0, sizeof k);
  k.type = (int32_t)type;
  bool complex_in = type == HLX_FFT_FFT || type == HLX_FFT_IFFT ||
                    type == HLX_FFT_IRFFT;
  if (in_dtype == (complex_in ? HLX_DTYPE_C64 : HLX_DTYPE_F32))
    k.dbl = 0;
  else if (in_dtype == (complex_in ? HLX_DTYPE_C128 : HLX_DTYPE_F64))
    k.dbl = 1;
  else
    return unsupported("element type");
  if (fft_rank < 1 || fft_rank > 3 || fft_rank > rank)
    return unsupported("fft rank");
  k.fft_rank = fft_rank;
  int64_t batch = 1, n_real = 1, n_cplx = 1;
  for (int32_t i = 0; i < rank - fft_rank; i++) {
    if (in_dims[i] < 1 || batch > INT_MAX / in_dims[i])
      return unsupported("batch size"); /* empty, or past FFTW's int */
    batch *= in_dims[i];
  }
  for (int32_t i = 0; i < fft_rank; i++) {
    int64_t n = fft_length[i];
    if (n < 1 || n > INT_MAX / 2) return unsupported("transform length");
    k.n[i] = (int32_t)n;
    n_real *= n;
    n_cplx *= i == fft_rank - 1 ? n / 2 + 1 : n;
    if (n_real > INT_MAX) return unsupported("transform size");
  }
  if (batch < 1 || batch > INT_MAX || batch > INT64_MAX / 4 / n_real)
    return unsupported("batch size");
  k.howmany = (int32_t)batch;
  k.estimate = o.estimate || env_is_1("HLX_FFTW_ESTIMATE");
  k.threads = o.threads > 1 && batch * n_real >= thread_min() ? o.threads : 1;

  pthread_mutex_lock(&g_planner);
  threads_init_locked();
  if (!g_threads_ok) k.threads = 1;
  hlx_fftw_plan_t* p = g_cache;
  while (p && memcmp(&p->key, &k, sizeof k) != 0) p = p->next;
  hlx_status_t st = NULL;
  if (p) {
    if (p->refs++ == 0) hlx_idle_remove(&g_idle, &p->idle);
  } else {
    p = calloc(1, sizeof *p);
    if (!p) {
      st = hlx_status_oom();
    } else {
      p->key = k;
      p->refs = 1;
      p->in_elems = (size_t)(batch * (type == HLX_FFT_IRFFT ? n_cplx : n_real));
      p->out_elems = (size_t)(batch * (type == HLX_FFT_RFFT ? n_cplx : n_real));
      p->scale = type == HLX_FFT_IFFT || type == HLX_FFT_IRFFT
                     ? 1.0 / (double)n_real
                     : 1.0;
      if (plan_locked(p, o.parallel)) {
        p->next = g_cache;
        g_cache = p;
        g_live++;
        g_builds++;
      } else {
        free(p);
        p = NULL;
        st = unsupported("no plan for this transform");
      }
    }
  }
  pthread_mutex_unlock(&g_planner);
  *out = p;
  return st;
}

void hlx_fftw_plan_release(hlx_fftw_plan_t* p) {
  if (!p) return;
  pthread_mutex_lock(&g_planner);
  if (--p->refs == 0) {
    hlx_idle_push(&g_idle, &p->idle);
    evict_locked();
  }
  pthread_mutex_unlock(&g_planner);
}

int32_t hlx_fftw_plan_threads(const hlx_fftw_plan_t* p) {
  return p->key.threads;
}

void hlx_fftw_cache_stats(hlx_fftw_cache_stats_t* s) {
  pthread_mutex_lock(&g_planner);
  s->live = g_live;
  s->idle = g_idle.count;
  s->builds = g_builds;
  s->wisdom_hits = g_wisdom_hits;
  s->wisdom_writes = g_wisdom_writes;
  s->pool_loops = atomic_load_explicit(&g_pool_loops, memory_order_relaxed);
  pthread_mutex_unlock(&g_planner);
}

int32_t hlx_fftw_cache_set_idle_capacity(int32_t n) {
  pthread_mutex_lock(&g_planner);
  int32_t prev = hlx_idle_set_capacity(&g_idle, n);
  evict_locked();
  pthread_mutex_unlock(&g_planner);
  return prev;
}

void hlx_fftw_reset_wisdom_for_testing(void) {
  pthread_mutex_lock(&g_planner);
  int32_t cap = hlx_idle_set_capacity(&g_idle, 0);
  evict_locked();
  hlx_idle_set_capacity(&g_idle, cap);
  fftwf_forget_wisdom();
  fftw_forget_wisdom();
  g_wisdom_read = false;
  free(g_wisdom_last);
  g_wisdom_last = NULL;
  pthread_mutex_unlock(&g_planner);
}

hlx_status_t hlx_fftw_execute(const hlx_fftw_plan_t* p, const void* in,
                              void* out, const hlx_parallel_t* par) {
  const fft_key_t* k = &p->key;
  /* c2r transforms overwrite their input: give them a copy. */
  void* tmp = NULL;
  if (k->type == HLX_FFT_IRFFT) {
    size_t bytes = p->in_elems * (k->dbl ? sizeof(fftw_complex)
                                         : sizeof(fftwf_complex));
    tmp = malloc(bytes + 64);
    if (!tmp) return hlx_status_oom();
    memcpy(tmp, in, bytes);
    in = tmp;
  }
  const hlx_parallel_t* saved = tls_par;
  bool saved_in = tls_in_hlx;
  tls_par = k->threads > 1 ? par : NULL;
  tls_in_hlx = true;
  void* src = (void*)in; /* FFTW's signatures are not const-correct */
  size_t n_out = p->out_elems * (k->type == HLX_FFT_IRFFT ? 1 : 2);
  if (k->dbl) {
    if (k->type == HLX_FFT_FFT || k->type == HLX_FFT_IFFT)
      fftw_execute_dft(p->plan.d, src, out);
    else if (k->type == HLX_FFT_RFFT)
      fftw_execute_dft_r2c(p->plan.d, src, out);
    else
      fftw_execute_dft_c2r(p->plan.d, src, out);
    if (p->scale != 1.0) {
      double* o = out;
      for (size_t i = 0; i < n_out; i++) o[i] *= p->scale;
    }
  } else {
    if (k->type == HLX_FFT_FFT || k->type == HLX_FFT_IFFT)
      fftwf_execute_dft(p->plan.f, src, out);
    else if (k->type == HLX_FFT_RFFT)
      fftwf_execute_dft_r2c(p->plan.f, src, out);
    else
      fftwf_execute_dft_c2r(p->plan.f, src, out);
    if (p->scale != 1.0) {
      float* o = out;
      float s = (float)p->scale;
      for (size_t i = 0; i < n_out; i++) o[i] *= s;
    }
  }
  tls_par = saved;
  tls_in_hlx = saved_in;
  free(tmp);
  return NULL;
}
