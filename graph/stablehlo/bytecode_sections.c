/* MLIR bytecode container: the header (magic, version, producer), the
 * section table, and the tables every other part refers to by index:
 * strings, dialects and operation names, properties blobs, resources and
 * the attribute/type offset table. */
#include <string.h>

#include "graph/stablehlo/bytecode_internal.h"

static const char* const kSectionNames[HLX_BC_NUM_SECTIONS] = {
    "string section",    "dialect section",   "attribute/type section",
    "attribute/type offset section", "IR section", "resource section",
    "resource offset section", "dialect version section",
    "properties section",
};

/* ---- Header and section table ---------------------------------------------------- */
bool hlx_bc_read_header(hlx_bc_t* bc) {
  hlx_bc_stream_t s = hlx_bc_stream(bc->data, bc->size, "header");
  const uint8_t* magic;
  if (bc->size < 4 || memcmp(bc->data, "ML\xefR", 4) != 0)
    return hlx_bc_fail(bc, &s, "expected the MLIR bytecode magic 'ML\\xefR'");
  if (!hlx_bc_bytes(bc, &s, 4, &magic) || !hlx_bc_varint(bc, &s, &bc->version))
    return false;
  if (bc->version > HLX_BC_MAX_VERSION)
    return hlx_bc_unsupported(bc, &s,
                              "bytecode version %llu (hlx reads versions 0 to %d)",
                              (unsigned long long)bc->version, HLX_BC_MAX_VERSION);
  const char* producer;
  size_t plen = 0;
  if (!hlx_bc_cstring(bc, &s, &producer, &plen)) return false;
  while (hlx_bc_left(&s) > 0) {
    const uint8_t* at = s.p;
    uint8_t id = 0;
    hlx_bc_stream_t body;
    s.what = "section table";
    if (!hlx_bc_section(bc, &s, &id, &body)) return false;
    if (bc->sec[id])
      return hlx_bc_fail_at(bc, at, "section table", "duplicate %s",
                            kSectionNames[id]);
    bc->sec[id] = body.p;
    bc->sec_len[id] = (size_t)(body.end - body.p);
  }
  static const hlx_bc_section_id_t kRequired[] = {
      HLX_BC_SEC_STRING, HLX_BC_SEC_DIALECT, HLX_BC_SEC_ATTR_TYPE,
      HLX_BC_SEC_ATTR_TYPE_OFFSET, HLX_BC_SEC_IR};
  for (size_t i = 0; i < sizeof kRequired / sizeof kRequired[0]; i++)
    if (!bc->sec[kRequired[i]])
      return hlx_bc_fail(bc, &s, "expected a %s, the file has none",
                         kSectionNames[kRequired[i]]);
  if (bc->version >= HLX_BC_V_PROPERTIES && !bc->sec[HLX_BC_SEC_PROPERTIES])
    return hlx_bc_fail(bc, &s, "expected a properties section (version %llu)",
                       (unsigned long long)bc->version);
  if (!bc->sec[HLX_BC_SEC_RESOURCE] != !bc->sec[HLX_BC_SEC_RESOURCE_OFFSET])
    return hlx_bc_fail(bc, &s, "expected both resource sections or neither");
  return true;
}

static hlx_bc_stream_t section(hlx_bc_t* bc, hlx_bc_section_id_t id) {
  return hlx_bc_stream(bc->sec[id], bc->sec_len[id], kSectionNames[id]);
}

/* ---- Strings ---------------------------------------------------------------------- */
static bool read_strings(hlx_bc_t* bc) {
  hlx_bc_stream_t s = section(bc, HLX_BC_SEC_STRING);
  uint32_t n = 0;
  /* Each string takes a length varint and at least its NUL. */
  if (!hlx_bc_count(bc, &s, 2, "string", &n)) return false;
  bc->nstrings = n;
  bc->strings = hlx_bc_scratch(bc, n, sizeof(hlx_bc_str_t));
  if (!bc->strings) return false;
  size_t end = bc->sec_len[HLX_BC_SEC_STRING];
  for (uint32_t k = 0; k < n; k++) { /* lengths come last string first */
    uint64_t len = 0;
    if (!hlx_bc_varint(bc, &s, &len)) return false;
    size_t header = (size_t)(s.p - bc->sec[HLX_BC_SEC_STRING]);
    if (len == 0 || header > end || len > end - header)
      return hlx_bc_fail(bc, &s, "string %u has length %llu, which does not fit",
                         n - 1 - k, (unsigned long long)len);
    end -= (size_t)len;
    hlx_bc_str_t* str = &bc->strings[n - 1 - k];
    str->p = (const char*)bc->sec[HLX_BC_SEC_STRING] + end;
    str->n = (size_t)len - 1; /* drop the NUL */
  }
  if ((size_t)(s.p - bc->sec[HLX_BC_SEC_STRING]) != end)
    return hlx_bc_fail(bc, &s, "expected the string data to start here, %zu "
                       "bytes are unaccounted for",
                       end - (size_t)(s.p - bc->sec[HLX_BC_SEC_STRING]));
  return true;
}

const hlx_bc_str_t* hlx_bc_string_at(hlx_bc_t* bc, const hlx_bc_stream_t* s,
                                     uint64_t index) {
  if (index >= bc->nstrings) {
    hlx_bc_fail(bc, s, "string index %llu out of range (%llu strings)",
                (unsigned long long)index, (unsigned long long)bc->nstrings);
    return NULL;
  }
  return &bc->strings[index];
}

bool hlx_bc_string_ref(hlx_bc_t* bc, hlx_bc_stream_t* s,
                       const hlx_bc_str_t** out) {
  const uint8_t* at = s->p;
  uint64_t i = 0;
  if (!hlx_bc_varint(bc, s, &i)) return false;
  hlx_bc_stream_t here = {at, s->end, s->what};
  *out = hlx_bc_string_at(bc, &here, i);
  return *out != NULL;
}

const char* hlx_bc_zstr(hlx_bc_t* bc, const hlx_bc_str_t* str) {
  hlx_bc_str_t* w = (hlx_bc_str_t*)str;
  if (w->z) return w->z;
  if (memchr(w->p, 0, w->n)) return NULL;
  char* z = hlx_arena_strndup(&bc->m->arena, w->p, w->n);
  if (!z) hlx_bc_oom(bc);
  w->z = z;
  return z;
}

/* ---- Dialects and operation names ----------------------------------------------- */
static hlx_bc_dialect_kind_t dialect_kind(const hlx_bc_str_t* n) {
  if (n->n == 7 && memcmp(n->p, "builtin", 7) == 0) return HLX_BC_DIALECT_BUILTIN;
  if (n->n == 4 && memcmp(n->p, "vhlo", 4) == 0) return HLX_BC_DIALECT_VHLO;
  if (n->n == 3 && memcmp(n->p, "sdy", 3) == 0) return HLX_BC_DIALECT_SDY;
  return HLX_BC_DIALECT_OTHER;
}

static bool read_dialect(hlx_bc_t* bc, hlx_bc_stream_t* s, hlx_bc_dialect_t* d) {
  const uint8_t* at = s->p;
  uint64_t idx = 0;
  bool versioned = false;
  if (bc->version < HLX_BC_V_DIALECT_VERSIONING) {
    if (!hlx_bc_varint(bc, s, &idx)) return false;
  } else if (!hlx_bc_varint_flag(bc, s, &idx, &versioned)) {
    return false;
  }
  hlx_bc_stream_t here = {at, s->end, s->what};
  d->name = hlx_bc_string_at(bc, &here, idx);
  if (!d->name) return false;
  d->kind = dialect_kind(d->name);
  if (versioned) { /* a nested dialect-version section; its contents are
                      the dialect's business (hlx needs none of them) */
    uint8_t id = 0;
    hlx_bc_stream_t body;
    if (!hlx_bc_section(bc, s, &id, &body)) return false;
    if (id != HLX_BC_SEC_DIALECT_VERSIONS)
      return hlx_bc_fail(bc, s, "expected a dialect version section, got section %u", id);
  }
  return true;
}

static bool push_opname(hlx_bc_t* bc, uint64_t* cap, hlx_bc_opname_t op) {
  if (bc->nopnames == *cap) {
    uint64_t nc = *cap ? *cap * 2 : 16;
    hlx_bc_opname_t* na = hlx_bc_scratch(bc, (size_t)nc, sizeof(*na));
    if (!na) return false;
    if (bc->nopnames) memcpy(na, bc->opnames, (size_t)bc->nopnames * sizeof(*na));
    bc->opnames = na;
    *cap = nc;
  }
  bc->opnames[bc->nopnames++] = op;
  return true;
}

static bool read_dialects(hlx_bc_t* bc) {
  hlx_bc_stream_t s = section(bc, HLX_BC_SEC_DIALECT);
  uint32_t n = 0;
  if (!hlx_bc_count(bc, &s, 1, "dialect", &n)) return false;
  bc->ndialects = n;
  bc->dialects = hlx_bc_scratch(bc, n, sizeof(hlx_bc_dialect_t));
  if (!bc->dialects) return false;
  for (uint32_t i = 0; i < n; i++)
    if (!read_dialect(bc, &s, &bc->dialects[i])) return false;
  uint64_t hint = 0;
  if (bc->version >= HLX_BC_V_ELIDE_ARG_LOCS && !hlx_bc_varint(bc, &s, &hint))
    return false;
  uint64_t cap = 0;
  while (hlx_bc_left(&s) > 0) {
    uint64_t d = 0;
    uint32_t count = 0;
    const uint8_t* at = s.p;
    if (!hlx_bc_varint(bc, &s, &d)) return false;
    if (d >= n) return hlx_bc_fail_at(bc, at, s.what, "dialect index %llu out of range (%u dialects)",
                                      (unsigned long long)d, n);
    if (!hlx_bc_count(bc, &s, 1, "operation name", &count)) return false;
    for (uint32_t k = 0; k < count; k++) {
      hlx_bc_opname_t op = {(uint32_t)d, NULL, -1, NULL};
      uint64_t idx;
      bool reg = false;
      at = s.p;
      if (bc->version < HLX_BC_V_PROPERTIES ? !hlx_bc_varint(bc, &s, &idx)
                                            : !hlx_bc_varint_flag(bc, &s, &idx, &reg))
        return false;
      if (bc->version >= HLX_BC_V_PROPERTIES) op.registered = reg;
      hlx_bc_stream_t here = {at, s.end, s.what};
      op.name = hlx_bc_string_at(bc, &here, idx);
      if (!op.name || !push_opname(bc, &cap, op)) return false;
    }
  }
  return true;
}

const char* hlx_bc_opname(hlx_bc_t* bc, hlx_bc_opname_t* op) {
  if (op->full) return op->full;
  const hlx_bc_str_t* d = bc->dialects[op->dialect].name;
  char* z = hlx_bc_irmem(bc, d->n + op->name->n + 2, 1);
  if (!z) return NULL;
  memcpy(z, d->p, d->n);
  size_t k = d->n;
  if (op->name->n > 0) {
    z[k++] = '.';
    memcpy(z + k, op->name->p, op->name->n);
    k += op->name->n;
  }
  z[k] = 0;
  op->full = z;
  return z;
}

/* ---- Properties --------------------------------------------------------------------- */
static bool read_properties(hlx_bc_t* bc) {
  if (!bc->sec[HLX_BC_SEC_PROPERTIES] || bc->sec_len[HLX_BC_SEC_PROPERTIES] == 0)
    return true;
  hlx_bc_stream_t s = section(bc, HLX_BC_SEC_PROPERTIES);
  uint32_t n = 0;
  if (!hlx_bc_count(bc, &s, 1, "properties", &n)) return false;
  bc->nprops = n;
  bc->props = hlx_bc_scratch(bc, n, sizeof(const uint8_t*));
  if (!bc->props) return false;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t len = 0;
    const uint8_t* data;
    bc->props[i] = s.p;
    if (!hlx_bc_varint(bc, &s, &len) || !hlx_bc_bytes(bc, &s, (size_t)len, &data))
      return false;
  }
  return hlx_bc_expect_end(bc, &s);
}

bool hlx_bc_properties(hlx_bc_t* bc, hlx_bc_stream_t* s, uint64_t index,
                       hlx_bc_stream_t* out) {
  if (index >= bc->nprops)
    return hlx_bc_fail(bc, s, "properties index %llu out of range (%llu entries)",
                       (unsigned long long)index, (unsigned long long)bc->nprops);
  const uint8_t* end = bc->sec[HLX_BC_SEC_PROPERTIES] + bc->sec_len[HLX_BC_SEC_PROPERTIES];
  hlx_bc_stream_t p = hlx_bc_stream(bc->props[index], (size_t)(end - bc->props[index]),
                                    "properties section");
  uint64_t len = 0;
  const uint8_t* data;
  if (!hlx_bc_varint(bc, &p, &len) || !hlx_bc_bytes(bc, &p, (size_t)len, &data))
    return false;
  *out = hlx_bc_stream(data, (size_t)len, "properties");
  return true;
}

/* ---- Resources -------------------------------------------------------------------- */
/* One resource group in the offset section: entries of (key, size, kind)
 * whose data follows in order in the resource section. Handles are kept
 * only for dialect groups (external resources are skipped). */
static bool read_resource_group(hlx_bc_t* bc, hlx_bc_stream_t* off,
                                hlx_bc_stream_t* data, bool keep, uint64_t* cap) {
  uint32_t n = 0;
  if (!hlx_bc_count(bc, off, 3, "resource", &n)) return false;
  for (uint32_t i = 0; i < n; i++) {
    const hlx_bc_str_t* key;
    uint64_t size = 0;
    uint8_t kind = 0;
    const uint8_t* bytes;
    if (!hlx_bc_string_ref(bc, off, &key) || !hlx_bc_varint(bc, off, &size) ||
        !hlx_bc_byte(bc, off, &kind) || !hlx_bc_bytes(bc, data, (size_t)size, &bytes))
      return false;
    if (!keep) continue;
    if (bc->nresources == *cap) {
      uint64_t nc = *cap ? *cap * 2 : 8;
      hlx_bc_resource_t* nr = hlx_bc_scratch(bc, (size_t)nc, sizeof(*nr));
      if (!nr) return false;
      if (bc->nresources) memcpy(nr, bc->resources, (size_t)bc->nresources * sizeof(*nr));
      bc->resources = nr;
      *cap = nc;
    }
    hlx_bc_resource_t* r = &bc->resources[bc->nresources++];
    memset(r, 0, sizeof *r);
    r->key = key;
    if (size == 0 || kind != 0) continue; /* declared only, or not a blob */
    hlx_bc_stream_t blob = hlx_bc_stream(bytes, (size_t)size, "resource");
    uint64_t alignment = 0, len = 0;
    if (!hlx_bc_varint(bc, &blob, &alignment) || !hlx_bc_varint(bc, &blob, &len) ||
        !hlx_bc_align(bc, &blob, alignment) ||
        !hlx_bc_bytes(bc, &blob, (size_t)len, &r->data) || !hlx_bc_expect_end(bc, &blob))
      return false;
    r->n = (size_t)len;
  }
  return true;
}

static bool read_resources(hlx_bc_t* bc) {
  if (!bc->sec[HLX_BC_SEC_RESOURCE]) return true;
  hlx_bc_stream_t off = section(bc, HLX_BC_SEC_RESOURCE_OFFSET);
  hlx_bc_stream_t data = section(bc, HLX_BC_SEC_RESOURCE);
  uint64_t cap = 0, ext;
  if (!hlx_bc_varint(bc, &off, &ext)) return false;
  for (uint64_t g = 0; g < ext; g++) {
    const hlx_bc_str_t* key;
    if (!hlx_bc_string_ref(bc, &off, &key) ||
        !read_resource_group(bc, &off, &data, false, &cap))
      return false;
  }
  while (hlx_bc_left(&off) > 0) {
    uint64_t d = 0;
    const uint8_t* at = off.p;
    if (!hlx_bc_varint(bc, &off, &d)) return false;
    if (d >= bc->ndialects)
      return hlx_bc_fail_at(bc, at, off.what, "dialect index %llu out of range",
                            (unsigned long long)d);
    if (!read_resource_group(bc, &off, &data, true, &cap)) return false;
  }
  return true;
}

/* ---- Attribute/type offsets -------------------------------------------------------- */
static bool read_entries(hlx_bc_t* bc, hlx_bc_stream_t* off, hlx_bc_entry_t* e,
                         uint64_t n, size_t* pos) {
  const uint8_t* base = bc->sec[HLX_BC_SEC_ATTR_TYPE];
  size_t total = bc->sec_len[HLX_BC_SEC_ATTR_TYPE];
  uint64_t i = 0;
  while (i < n) {
    uint64_t d = 0;
    uint32_t count = 0;
    const uint8_t* at = off->p;
    if (!hlx_bc_varint(bc, off, &d)) return false;
    if (d >= bc->ndialects)
      return hlx_bc_fail_at(bc, at, off->what, "dialect index %llu out of range",
                            (unsigned long long)d);
    if (!hlx_bc_count(bc, off, 1, "entry", &count)) return false;
    if (count > n - i)
      return hlx_bc_fail(bc, off, "group of %u entries overflows the %llu declared",
                         count, (unsigned long long)n);
    for (uint32_t k = 0; k < count; k++, i++) {
      uint64_t size;
      bool custom;
      if (!hlx_bc_varint_flag(bc, off, &size, &custom)) return false;
      if (size > total - *pos)
        return hlx_bc_fail(bc, off, "entry of %llu bytes runs past the attribute/type section",
                           (unsigned long long)size);
      e[i].dialect = (uint32_t)d;
      e[i].custom = custom;
      e[i].p = base + *pos;
      e[i].n = (size_t)size;
      *pos += (size_t)size;
    }
  }
  return true;
}

static bool read_attr_type_offsets(hlx_bc_t* bc) {
  hlx_bc_stream_t off = section(bc, HLX_BC_SEC_ATTR_TYPE_OFFSET);
  uint64_t na = 0, nt = 0;
  if (!hlx_bc_varint(bc, &off, &na) || !hlx_bc_varint(bc, &off, &nt)) return false;
  if (na > hlx_bc_left(&off) || nt > hlx_bc_left(&off) - na)
    return hlx_bc_fail(bc, &off, "%llu attributes and %llu types do not fit in the %zu bytes left",
                       (unsigned long long)na, (unsigned long long)nt, hlx_bc_left(&off));
  bc->nattrs = na;
  bc->ntypes = nt;
  bc->attrs = hlx_bc_scratch(bc, (size_t)na, sizeof(hlx_bc_entry_t));
  bc->types = hlx_bc_scratch(bc, (size_t)nt, sizeof(hlx_bc_entry_t));
  size_t pos = 0;
  if (!bc->attrs || !bc->types || !read_entries(bc, &off, bc->attrs, na, &pos) ||
      !read_entries(bc, &off, bc->types, nt, &pos))
    return false;
  return hlx_bc_expect_end(bc, &off);
}

bool hlx_bc_read_tables(hlx_bc_t* bc) {
  return read_strings(bc) && read_properties(bc) && read_dialects(bc) &&
         read_resources(bc) && read_attr_type_offsets(bc);
}
