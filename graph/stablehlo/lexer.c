/* MLIR tokens for the StableHLO text parser. The lexer is pull-style over a
 * cursor so the type parser can read dimension lists (`4x?xf32`) at the
 * character level. */
#include <string.h>

#include "graph/stablehlo/parser_internal.h"

void lx_init(lexer_t* lx, const char* text, size_t len, int first_line) {
  memset(lx, 0, sizeof(*lx));
  lx->begin = text;
  lx->end = text + len;
  lx->s.p = text;
  lx->s.line_start = text;
  lx->s.line = first_line > 0 ? first_line : 1;
}

static void skip_ws_raw(lex_state_t* s, const char* end) {
  for (;;) {
    while (s->p < end) {
      char c = *s->p;
      if (c == '\n') {
        s->p++;
        s->line++;
        s->line_start = s->p;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
                 c == '\v') {
        s->p++;
      } else {
        break;
      }
    }
    if (s->p + 1 < end && s->p[0] == '/' && s->p[1] == '/') {
      while (s->p < end && *s->p != '\n') s->p++;
      continue;
    }
    return;
  }
}

static bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static bool is_id_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c == '.';
}
static bool is_suffix_char(char c) { return is_id_char(c) || c == '-'; }

static tok_t lex_at(lex_state_t* s, const char* end) {
  skip_ws_raw(s, end);
  tok_t t;
  t.p = s->p;
  t.line = s->line;
  t.col = (int)(s->p - s->line_start) + 1;
  t.n = 0;
  if (s->p >= end) {
    t.kind = TK_EOF;
    return t;
  }
  const char* q = s->p;
  char c = *q;
  if (is_alpha(c) || c == '_') {
    q++;
    while (q < end && is_id_char(*q)) q++;
    t.kind = TK_BARE;
  } else if (c == '%' || c == '#' || c == '!' || c == '^' || c == '@') {
    q++;
    if (c == '@' && q < end && *q == '"') {
      q++;
      while (q < end && *q != '"' && *q != '\n') {
        if (*q == '\\' && q + 1 < end) q++;
        q++;
      }
      if (q >= end || *q != '"') {
        t.kind = TK_ERROR;
        t.n = 1;
        s->p++;
        return t;
      }
      q++;
    } else if (c == '%' || c == '^') {
      while (q < end && is_suffix_char(*q)) q++;
    } else {
      while (q < end && (is_id_char(*q) || (c == '@' && *q == '-'))) q++;
    }
    if (q == s->p + 1) {
      t.kind = TK_ERROR;
      t.n = 1;
      s->p++;
      return t;
    }
    t.kind = c == '%'   ? TK_PERCENT
             : c == '#' ? TK_HASH
             : c == '!' ? TK_BANG
             : c == '^' ? TK_CARET
                        : TK_AT;
  } else if (is_digit(c) || (c == '-' && q + 1 < end && is_digit(q[1]))) {
    if (c == '-') q++;
    if (q + 1 < end && q[0] == '0' && (q[1] == 'x' || q[1] == 'X') &&
        q + 2 < end && is_hex(q[2])) {
      q += 2;
      while (q < end && is_hex(*q)) q++;
      t.kind = TK_INT;
    } else {
      while (q < end && is_digit(*q)) q++;
      t.kind = TK_INT;
      if (q < end && *q == '.') {
        q++;
        t.kind = TK_FLOAT;
        while (q < end && is_digit(*q)) q++;
        if (q < end && (*q == 'e' || *q == 'E')) {
          const char* r = q + 1;
          if (r < end && (*r == '+' || *r == '-')) r++;
          if (r < end && is_digit(*r)) {
            q = r;
            while (q < end && is_digit(*q)) q++;
          }
        }
      }
    }
  } else if (c == '"') {
    q++;
    while (q < end && *q != '"') {
      if (*q == '\\' && q + 1 < end) q++;
      q++;
    }
    if (q >= end) {
      t.kind = TK_ERROR;
      t.n = 1;
      s->p++;
      return t;
    }
    q++;
    t.kind = TK_STRING;
  } else if (c == '-' && q + 1 < end && q[1] == '>') {
    q += 2;
    t.kind = TK_PUNCT;
  } else if (strchr("()[]{}<>,:=?*+-|", c)) {
    q++;
    t.kind = TK_PUNCT;
  } else {
    t.kind = TK_ERROR;
    q++;
  }
  /* Newlines only occur inside strings; keep line counts right. */
  if (t.kind == TK_STRING) {
    for (const char* r = s->p; r < q; r++)
      if (*r == '\n') {
        s->line++;
        s->line_start = r + 1;
      }
  }
  t.n = (size_t)(q - s->p);
  s->p = q;
  return t;
}

tok_t lx_peek(lexer_t* lx) {
  if (!lx->has_peek) {
    lx->after_peek = lx->s;
    lx->peek_tok = lex_at(&lx->after_peek, lx->end);
    lx->has_peek = true;
  }
  return lx->peek_tok;
}

tok_t lx_next(lexer_t* lx) {
  tok_t t = lx_peek(lx);
  lx->s = lx->after_peek;
  lx->has_peek = false;
  return t;
}

void lx_skip_ws(lexer_t* lx) {
  lx->has_peek = false;
  skip_ws_raw(&lx->s, lx->end);
}

int lx_char(lexer_t* lx) {
  lx->has_peek = false;
  return lx->s.p < lx->end ? (unsigned char)*lx->s.p : 0;
}

void lx_advance(lexer_t* lx, size_t n) {
  lx->has_peek = false;
  while (n-- > 0 && lx->s.p < lx->end) {
    if (*lx->s.p == '\n') {
      lx->s.line++;
      lx->s.line_start = lx->s.p + 1;
    }
    lx->s.p++;
  }
}

lex_state_t lx_save(lexer_t* lx) {
  lx->has_peek = false;
  return lx->s;
}

void lx_restore(lexer_t* lx, lex_state_t s) {
  lx->has_peek = false;
  lx->s = s;
}

int lx_col(const lexer_t* lx) {
  return (int)(lx->s.p - lx->s.line_start) + 1;
}

bool tok_is(tok_t t, const char* s) {
  size_t n = strlen(s);
  return t.n == n && memcmp(t.p, s, n) == 0;
}

bool tok_punct(tok_t t, const char* s) {
  return t.kind == TK_PUNCT && tok_is(t, s);
}
