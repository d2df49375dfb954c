#include "tools/filecheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Collapses runs of spaces/tabs into one space and trims both ends. */
static char* canonical(const char* s, size_t n) {
  char* out = malloc(n + 1);
  if (!out) return NULL;
  size_t k = 0;
  bool space = false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      space = k > 0;
      continue;
    }
    if (space) out[k++] = ' ';
    space = false;
    out[k++] = c;
  }
  out[k] = 0;
  return out;
}

typedef struct directive_t {
  bool next;
  char* pattern;
  int line; /* in the check text, for messages */
} directive_t;

/* Parses the directives of `prefix` (count only when out is NULL). */
static int parse(const char* text, size_t len, const char* prefix,
                 directive_t* out, bool* unsupported) {
  int n = 0, line = 1;
  size_t pl = strlen(prefix);
  const char* end = text + len;
  for (const char* p = text; p < end; line++) {
    const char* nl = memchr(p, '\n', (size_t)(end - p));
    const char* le = nl ? nl : end;
    const char* c = p;
    while (c < le && (*c == ' ' || *c == '\t')) c++;
    if (le - c > 2 && c[0] == '/' && c[1] == '/') {
      c += 2;
      while (c < le && *c == ' ') c++;
      if ((size_t)(le - c) > pl && memcmp(c, prefix, pl) == 0) {
        const char* d = c + pl;
        bool next = false, literal = false;
        if (le - d >= 5 && memcmp(d, "-NEXT", 5) == 0) {
          next = true;
          d += 5;
        }
        if (le - d >= 9 && memcmp(d, "{LITERAL}", 9) == 0) {
          literal = true;
          d += 9;
        }
        if (d < le && *d == ':') {
          d++;
          if (out) {
            out[n].next = next;
            out[n].pattern = canonical(d, (size_t)(le - d));
            out[n].line = line;
            if (!literal && out[n].pattern &&
                (strstr(out[n].pattern, "{{") || strstr(out[n].pattern, "[[")))
              *unsupported = true;
          }
          n++;
        }
      }
    }
    p = nl ? nl + 1 : end;
  }
  return n;
}

int hlx_filecheck_count(const char* check_text, size_t len,
                        const char* prefix) {
  return parse(check_text, len, prefix, NULL, NULL);
}

bool hlx_filecheck(const char* check_text, size_t len, const char* prefix,
                   const char* output, char* why, size_t why_len) {
  int nd = parse(check_text, len, prefix, NULL, NULL);
  directive_t* d = calloc((size_t)nd + 1, sizeof(*d));
  /* Output lines, canonicalised. */
  int nlines = 1;
  for (const char* p = output; *p; p++) nlines += *p == '\n';
  char** lines = calloc((size_t)nlines + 1, sizeof(char*));
  bool ok = d && lines;
  bool unsupported = false;
  if (ok) parse(check_text, len, prefix, d, &unsupported);
  const char* p = output;
  for (int i = 0; ok && i < nlines; i++) {
    const char* nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    lines[i] = canonical(p, n);
    if (!lines[i]) ok = false;
    p = nl ? nl + 1 : p + n;
  }
  if (!ok) snprintf(why, why_len, "out of memory");
  if (ok && unsupported) {
    ok = false;
    snprintf(why, why_len,
             "unsupported: FileCheck regex or variable syntax in a pattern");
  }
  int cur_line = 0;
  size_t cur_col = 0;
  for (int i = 0; ok && i < nd; i++) {
    const char* pat = d[i].pattern;
    if (!pat) {
      ok = false;
      break;
    }
    if (d[i].next) {
      if (i == 0 || cur_line + 1 >= nlines ||
          !strstr(lines[cur_line + 1], pat)) {
        ok = false;
        snprintf(why, why_len, "%s-NEXT at check line %d: '%s' not on the "
                 "next output line ('%s')",
                 prefix, d[i].line, pat,
                 cur_line + 1 < nlines ? lines[cur_line + 1] : "<end>");
        break;
      }
      cur_line++;
      cur_col = (size_t)(strstr(lines[cur_line], pat) - lines[cur_line]) +
                strlen(pat);
      continue;
    }
    bool found = false;
    for (int l = cur_line; l < nlines && !found; l++) {
      const char* from = lines[l] + (l == cur_line ? cur_col : 0);
      if (l == cur_line && cur_col > strlen(lines[l])) continue;
      const char* m = strstr(from, pat);
      if (m) {
        found = true;
        cur_line = l;
        cur_col = (size_t)(m - lines[l]) + strlen(pat);
      }
    }
    if (!found) {
      ok = false;
      snprintf(why, why_len, "%s at check line %d: '%s' not found in the "
               "output", prefix, d[i].line, pat);
    }
  }
  for (int i = 0; d && i < nd; i++) free(d[i].pattern);
  for (int i = 0; lines && i < nlines; i++) free(lines[i]);
  free(d);
  free(lines);
  return ok;
}
