#include "tools/file_util.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/status.h"

hlx_status_t hlx_read_file(const char* path, char** text, size_t* len) {
  *text = NULL;
  *len = 0;
  FILE* f = fopen(path, "rb");
  if (!f)
    return hlx_make_status(HLX_STATUS_NOT_FOUND, "cannot open %s: %s", path,
                           strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char* buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
    if (n + 1 == cap) {
      char* grown = realloc(buf, cap * 2);
      if (!grown) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = grown;
      cap *= 2;
    }
  }
  int err = ferror(f);
  fclose(f);
  if (!buf) return hlx_status_oom();
  if (err) {
    free(buf);
    return hlx_make_status(HLX_STATUS_DATA_LOSS, "cannot read %s", path);
  }
  buf[n] = 0;
  *text = buf;
  *len = n;
  return NULL;
}

typedef struct list_t {
  char** items;
  int n, cap;
} list_t;

static int push(list_t* l, const char* s) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 64;
    char** g = realloc(l->items, (size_t)cap * sizeof(char*));
    if (!g) return -1;
    l->items = g;
    l->cap = cap;
  }
  l->items[l->n] = strdup(s);
  return l->items[l->n++] ? 0 : -1;
}

static int walk(const char* dir, list_t* out, int depth, bool hlo) {
  if (depth > 32) return 0;
  DIR* d = opendir(dir);
  if (!d) return -1;
  struct dirent* e;
  int rc = 0;
  while ((e = readdir(d)) && rc == 0) {
    if (e->d_name[0] == '.') continue;
    size_t n = strlen(dir) + strlen(e->d_name) + 2;
    char* p = malloc(n);
    if (!p) {
      rc = -1;
      break;
    }
    snprintf(p, n, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        rc = walk(p, out, depth + 1, hlo);
      } else {
        size_t l = strlen(e->d_name);
        if ((l > 5 && strcmp(e->d_name + l - 5, ".mlir") == 0) ||
            (hlo && l > 4 && strcmp(e->d_name + l - 4, ".hlo") == 0))
          rc = push(out, p);
      }
    }
    free(p);
  }
  closedir(d);
  return rc;
}

static int cmp_str(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

static hlx_status_t list_files(const char* dir, bool hlo, char*** paths,
                               int* count) {
  list_t l = {0};
  *paths = NULL;
  *count = 0;
  if (walk(dir, &l, 0, hlo) != 0) {
    hlx_free_paths(l.items, l.n);
    return hlx_make_status(HLX_STATUS_NOT_FOUND, "cannot list %s: %s", dir,
                           strerror(errno));
  }
  if (l.n) qsort(l.items, (size_t)l.n, sizeof(char*), cmp_str);
  *paths = l.items;
  *count = l.n;
  return NULL;
}

hlx_status_t hlx_list_mlir_files(const char* dir, char*** paths, int* count) {
  return list_files(dir, false, paths, count);
}

hlx_status_t hlx_list_program_files(const char* dir, char*** paths,
                                    int* count) {
  return list_files(dir, true, paths, count);
}

void hlx_free_paths(char** paths, int count) {
  for (int i = 0; i < count; i++) free(paths[i]);
  free(paths);
}
