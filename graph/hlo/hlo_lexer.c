/* Tokens of XLA's HLO text: names (with '.' and '-' inside, an optional
 * '%' sigil), numbers, strings, punctuation, and the digit-led words of
 * window and convolution attributes (3x3, 0_0x1_1, b01f_01io->b01f stay one
 * token so attribute readers can split them). Comments are `//` to the end
 * of the line and `/ * ... * /`. */
#include <string.h>

#include "graph/hlo/hlo_internal.h"

void hlo_lx_init(hlo_lexer_t* lx, const char* text, size_t len, int line,
                 const char* line_start) {
  lx->begin = text;
  lx->end = text + len;
  lx->p = text;
  lx->line_start = line_start ? line_start : text;
  lx->line = line > 0 ? line : 1;
}

static bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_name_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '.' || c == '-';
}

/* Skips whitespace and comments; false on an unterminated comment. */
static bool skip_space(hlo_lexer_t* lx, bool* any) {
  for (;;) {
    const char* p = lx->p;
    while (p < lx->end && (*p == ' ' || *p == '\t' || *p == '\r' ||
                           *p == '\n' || *p == '\f' || *p == '\v')) {
      if (*p == '\n') {
        lx->line++;
        lx->line_start = p + 1;
      }
      p++;
    }
    if (p != lx->p) *any = true;
    lx->p = p;
    if (p + 1 < lx->end && p[0] == '/' && p[1] == '/') {
      while (lx->p < lx->end && *lx->p != '\n') lx->p++;
      *any = true;
      continue;
    }
    if (p + 1 < lx->end && p[0] == '/' && p[1] == '*') {
      const char* q = p + 2;
      const char* start_line = lx->line_start;
      int line = lx->line;
      while (q + 1 < lx->end && !(q[0] == '*' && q[1] == '/')) {
        if (*q == '\n') {
          lx->line++;
          lx->line_start = q + 1;
        }
        q++;
      }
      if (q + 1 >= lx->end) { /* unterminated: report where it starts */
        lx->line = line;
        lx->line_start = start_line;
        return false;
      }
      lx->p = q + 2;
      *any = true;
      continue;
    }
    return true;
  }
}

/* A name: [A-Za-z_][A-Za-z0-9_.-]*, not swallowing the '-' of '->'. */
static const char* scan_name(const char* p, const char* end) {
  while (p < end && is_name_char(*p)) {
    if (*p == '-' && p + 1 < end && p[1] == '>') break;
    p++;
  }
  return p;
}

/* A digit-led word: digits, letters, '_', '.', '?', a sign after an
 * exponent 'e', '_' or 'x', and '->' inside convolution dim labels. */
static const char* scan_word(const char* p, const char* end) {
  const char* start = p;
  bool underscore = false;
  if (p < end && *p == '-') p++;
  while (p < end) {
    char c = *p;
    if (is_alpha(c) || is_digit(c) || c == '.' || c == '?') {
      underscore |= c == '_';
      p++;
    } else if ((c == '-' || c == '+') && p > start &&
               (p[-1] == 'e' || p[-1] == 'E' || p[-1] == '_' || p[-1] == 'x') &&
               p + 1 < end && is_digit(p[1])) {
      p++;
    } else if (c == '-' && underscore && p + 1 < end && p[1] == '>') {
      p += 2;
    } else {
      break;
    }
  }
  return p;
}

static hlo_tok_kind_t classify_word(const char* p, size_t n) {
  size_t i = 0;
  if (i < n && p[i] == '-') i++;
  if (n - i == 3 &&
      (memcmp(p + i, "inf", 3) == 0 || memcmp(p + i, "nan", 3) == 0))
    return HT_FLOAT;
  size_t digits = 0;
  while (i < n && is_digit(p[i])) i++, digits++;
  if (i == n) return digits ? HT_INT : HT_WORD;
  bool fl = false;
  if (p[i] == '.') {
    fl = true;
    i++;
    while (i < n && is_digit(p[i])) i++, digits++;
  }
  if (digits && i < n && (p[i] == 'e' || p[i] == 'E')) {
    fl = true;
    i++;
    if (i < n && (p[i] == '+' || p[i] == '-')) i++;
    size_t ed = 0;
    while (i < n && is_digit(p[i])) i++, ed++;
    if (!ed) return HT_WORD;
  }
  return (fl && digits && i == n) ? HT_FLOAT : HT_WORD;
}

static hlo_tok_t lex_one(hlo_lexer_t* lx) {
  hlo_tok_t t;
  bool space = false;
  bool ok = skip_space(lx, &space);
  t.space_before = space;
  t.p = lx->p;
  t.line = lx->line;
  t.col = (int)(lx->p - lx->line_start) + 1;
  t.n = 0;
  if (!ok) {
    t.kind = HT_ERROR;
    t.n = 2;
    lx->p = lx->end;
    return t;
  }
  if (lx->p >= lx->end) {
    t.kind = HT_EOF;
    return t;
  }
  const char* p = lx->p;
  const char* e = lx->end;
  char c = *p;
  if (is_alpha(c)) {
    t.kind = HT_NAME;
    t.n = (size_t)(scan_name(p, e) - p);
  } else if (c == '%' && p + 1 < e && is_alpha(p[1])) {
    t.kind = HT_NAME;
    t.p = p + 1;
    t.n = (size_t)(scan_name(p + 1, e) - (p + 1));
    lx->p = p + 1;
  } else if (is_digit(c) ||
             (c == '-' && p + 1 < e &&
              (is_digit(p[1]) || p[1] == 'i' || p[1] == 'n' || p[1] == '.')) ||
             (c == '?' && p + 1 < e &&
              (is_digit(p[1]) || p[1] == 'b' || p[1] == 'f' || p[1] == '?'))) {
    t.n = (size_t)(scan_word(p, e) - p);
    t.kind = classify_word(p, t.n);
  } else if (c == '"' || c == '\'') {
    const char* q = p + 1;
    while (q < e && *q != c && *q != '\n')
      q += (*q == '\\' && q + 1 < e) ? 2 : 1;
    if (q >= e || *q != c) {
      t.kind = HT_ERROR;
      t.n = 1;
    } else {
      t.kind = HT_STRING;
      t.n = (size_t)(q + 1 - p);
    }
  } else if ((c == '-' && p + 1 < e && p[1] == '>') ||
             (c == '<' && p + 1 < e && p[1] == '=')) {
    t.kind = HT_PUNCT;
    t.n = 2;
  } else if (c == '.' && p + 2 < e && p[1] == '.' && p[2] == '.') {
    t.kind = HT_PUNCT;
    t.n = 3;
  } else if (strchr("{}[](),=:*#+~?", c)) {
    t.kind = HT_PUNCT;
    t.n = 1;
  } else {
    t.kind = HT_ERROR;
    t.n = 1;
  }
  lx->p += t.n;
  return t;
}

hlo_tok_t hlo_lx_next(hlo_lexer_t* lx) { return lex_one(lx); }

hlo_tok_t hlo_lx_peek(const hlo_lexer_t* lx) {
  hlo_lexer_t copy = *lx;
  return lex_one(&copy);
}

bool hlo_tok_is(hlo_tok_t t, const char* s) {
  size_t n = strlen(s);
  return t.n == n && memcmp(t.p, s, n) == 0;
}

bool hlo_tok_punct(hlo_tok_t t, const char* s) {
  return t.kind == HT_PUNCT && hlo_tok_is(t, s);
}
