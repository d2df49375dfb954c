// A small MLIR bytecode writer for tests of the bytecode reader: it lays
// out the container (header, string/dialect/attribute/IR/properties/
// resource sections) and numbers values the way the format does, while the
// test spells out attribute and type payloads in their dialect encodings
// (Bytes). Versions 0 to 6 differ as the format does: dialect and op-name
// flags, op counts, block-argument locations, use-list bytes, isolated
// regions as nested sections, properties.
#ifndef HLX_TESTS_GRAPH_BYTECODE_WRITER_H_
#define HLX_TESTS_GRAPH_BYTECODE_WRITER_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hlx_bc_test {

// Byte strings with the format's integer encodings.
struct Bytes {
  std::string b;
  Bytes& Byte(uint8_t v) {
    b.push_back(static_cast<char>(v));
    return *this;
  }
  // Prefix varint: the count of trailing zero bits of the first byte is the
  // number of extra bytes; 0x00 then 8 bytes for the largest values.
  Bytes& VarInt(uint64_t v) {
    for (int extra = 0; extra < 8; extra++) {
      int bits = 7 * (extra + 1);
      if (bits < 64 && (v >> bits) == 0) {
        uint64_t enc = ((v << 1) | 1) << extra;
        for (int i = 0; i <= extra; i++) Byte(static_cast<uint8_t>(enc >> (8 * i)));
        return *this;
      }
    }
    Byte(0);
    for (int i = 0; i < 8; i++) Byte(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Bytes& SVarInt(int64_t v) {
    return VarInt((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  Bytes& Flag(uint64_t v, bool flag) { return VarInt((v << 1) | (flag ? 1 : 0)); }
  Bytes& Raw(const std::string& s) {
    b += s;
    return *this;
  }
  Bytes& Add(const Bytes& o) { return Raw(o.b); }
  Bytes& Blob(const std::string& s) { return VarInt(s.size()).Raw(s); }
};

struct Region;
// An operation: operands and results are value handles (Writer::Value()).
struct Op {
  uint64_t name = 0;                // Writer::OpName index
  uint64_t loc = 0;                 // attribute index of a location
  int64_t attrs = -1;               // attribute index of a dictionary
  bool has_props = false;           // registered op: props is its blob
  Bytes props;
  int64_t prop_dict = -1;           // unregistered op: properties attribute
  std::vector<uint64_t> result_types;
  std::vector<int> results;
  std::vector<int> operands;
  std::vector<Region> regions;
  bool isolated = false;
};
struct Block {
  std::vector<uint64_t> arg_types;
  std::vector<int> args;
  std::vector<Op> ops;
};
struct Region {
  std::vector<Block> blocks;
};

class Writer {
 public:
  explicit Writer(uint64_t version) : version_(version) {}

  uint64_t Str(const std::string& s) {
    auto it = str_index_.find(s);
    if (it != str_index_.end()) return it->second;
    strings_.push_back(s);
    return str_index_[s] = strings_.size() - 1;
  }
  uint32_t Dialect(const std::string& name) {
    dialects_.push_back(Str(name));
    return static_cast<uint32_t>(dialects_.size() - 1);
  }
  uint64_t OpName(uint32_t dialect, const std::string& name, bool registered = true) {
    ops_.push_back({dialect, {Str(name), registered}});
    return ops_.size() - 1;
  }
  uint64_t Attr(uint32_t dialect, const Bytes& payload, bool custom = true) {
    attrs_.push_back({dialect, {payload.b, custom}});
    return attrs_.size() - 1;
  }
  uint64_t NumAttrs() const { return attrs_.size(); }
  uint64_t Type(uint32_t dialect, const Bytes& payload, bool custom = true) {
    types_.push_back({dialect, {payload.b, custom}});
    return types_.size() - 1;
  }
  // A builtin-dialect dense_resource blob (alignment 1); returns its handle.
  uint64_t Resource(uint32_t dialect, const std::string& key, const std::string* blob) {
    resources_.push_back({dialect, {Str(key), blob ? *blob : std::string()}});
    has_blob_.push_back(blob != nullptr);
    return resources_.size() - 1;
  }
  int Value() { return next_handle_++; }

  // The whole file for a top-level block holding ops.
  std::string Finish(const std::vector<Op>& top) {
    Bytes ir;
    ir.Flag(top.size(), false);
    for (const Op& op : top) EncodeOp(op, &ir);
    Bytes out;
    out.Raw(std::string("ML\xefR", 4)).VarInt(version_).Raw(std::string("test\0", 5));
    Section(&out, 0, StringSection());
    Section(&out, 1, DialectSection());
    Bytes data, offsets;
    AttrTypeSections(&data, &offsets);
    Section(&out, 2, data);
    Section(&out, 3, offsets);
    Section(&out, 4, ir);
    if (!resources_.empty()) ResourceSections(&out);
    if (version_ >= 5) {
      Bytes props;
      props.VarInt(props_.size());
      for (const std::string& p : props_) props.Blob(p);
      Section(&out, 8, props);
    }
    return out.b;
  }

 private:
  struct Frame {
    uint64_t base, count, defined;
  };

  static void Section(Bytes* out, uint8_t id, const Bytes& body) {
    out->Byte(id).VarInt(body.b.size()).Add(body);
  }

  Bytes StringSection() const {
    Bytes s;
    s.VarInt(strings_.size());
    for (size_t i = strings_.size(); i-- > 0;) s.VarInt(strings_[i].size() + 1);
    for (const std::string& x : strings_) s.Raw(x).Byte(0);
    return s;
  }

  Bytes DialectSection() const {
    Bytes s;
    s.VarInt(dialects_.size());
    for (uint64_t name : dialects_) version_ >= 1 ? s.Flag(name, false) : s.VarInt(name);
    if (version_ >= 4) s.VarInt(ops_.size());
    for (const auto& op : ops_) {
      s.VarInt(op.first).VarInt(1);
      version_ >= 5 ? s.Flag(op.second.first, op.second.second) : s.VarInt(op.second.first);
    }
    return s;
  }

  void AttrTypeSections(Bytes* data, Bytes* offsets) const {
    offsets->VarInt(attrs_.size()).VarInt(types_.size());
    for (const auto* list : {&attrs_, &types_})
      for (const auto& e : *list) {
        offsets->VarInt(e.first).VarInt(1).Flag(e.second.first.size(), e.second.second);
        data->Raw(e.second.first);
      }
  }

  void ResourceSections(Bytes* out) const {
    Bytes data, offsets;
    offsets.VarInt(0);  // no external resource groups
    for (size_t i = 0; i < resources_.size(); i++) {
      Bytes entry;
      if (has_blob_[i]) entry.VarInt(1).VarInt(resources_[i].second.second.size())
                            .Raw(resources_[i].second.second);
      offsets.VarInt(resources_[i].first).VarInt(1).VarInt(resources_[i].second.first)
          .VarInt(entry.b.size()).Byte(0);
      data.Add(entry);
    }
    Section(out, 5, data);
    Section(out, 6, offsets);
  }

  uint64_t Index(int handle) const {
    auto it = index_.find(handle);
    return it == index_.end() ? 0xFFFFFFu : it->second;  // unknown: invalid index
  }

  void Define(int handle) {
    if (frames_.size() <= scope_) return;
    Frame& f = frames_.back();
    if (f.count == 0) return;
    index_[handle] = f.base + f.defined++;
  }

  void EncodeOp(const Op& op, Bytes* out) {
    uint8_t mask = 0;
    if (op.attrs >= 0) mask |= 0x01;
    if (!op.result_types.empty()) mask |= 0x02;
    if (!op.operands.empty()) mask |= 0x04;
    if (!op.regions.empty()) mask |= 0x10;
    if (op.has_props || op.prop_dict >= 0) mask |= 0x40;
    out->VarInt(op.name).Byte(mask).VarInt(op.loc);
    if (op.attrs >= 0) out->VarInt(op.attrs);
    if (op.has_props) {
      props_.push_back(op.props.b);
      out->VarInt(props_.size() - 1);
    } else if (op.prop_dict >= 0) {
      out->VarInt(op.prop_dict);
    }
    if (!op.result_types.empty()) {
      out->VarInt(op.result_types.size());
      for (uint64_t t : op.result_types) out->VarInt(t);
    }
    if (!op.operands.empty()) {
      out->VarInt(op.operands.size());
      for (int v : op.operands) out->VarInt(Index(v));
    }
    for (int r : op.results) Define(r);
    if (op.regions.empty()) return;
    out->Flag(op.regions.size(), op.isolated);
    size_t saved = scope_;
    if (op.isolated) scope_ = frames_.size();
    Bytes body;
    Bytes* dst = op.isolated && version_ >= 2 ? &body : out;
    for (const Region& r : op.regions) EncodeRegion(r, dst);
    scope_ = saved;
    if (dst == &body) Section(out, 4, body);
  }

  void EncodeRegion(const Region& r, Bytes* out) {
    out->VarInt(r.blocks.size());
    if (r.blocks.empty()) return;
    uint64_t count = 0;
    for (const Block& b : r.blocks) {
      count += b.args.size();
      for (const Op& op : b.ops) count += op.results.size();
    }
    out->VarInt(count);
    uint64_t base = frames_.size() > scope_ ? frames_.back().base + frames_.back().count : 0;
    frames_.push_back({base, count, 0});
    for (const Block& b : r.blocks) {
      out->Flag(b.ops.size(), !b.args.empty());
      if (!b.args.empty()) {
        out->VarInt(b.args.size());
        for (uint64_t t : b.arg_types)
          version_ >= 4 ? out->Flag(t, false) : out->VarInt(t).VarInt(0);
        for (int a : b.args) Define(a);
        if (version_ >= 3) out->Byte(0);  // no use-list orders
      }
      for (const Op& op : b.ops) EncodeOp(op, out);
    }
    frames_.pop_back();
  }

  uint64_t version_;
  std::vector<std::string> strings_;
  std::map<std::string, uint64_t> str_index_;
  std::vector<uint64_t> dialects_;
  std::vector<std::pair<uint32_t, std::pair<uint64_t, bool>>> ops_;
  std::vector<std::pair<uint32_t, std::pair<std::string, bool>>> attrs_, types_;
  std::vector<std::pair<uint32_t, std::pair<uint64_t, std::string>>> resources_;
  std::vector<bool> has_blob_;
  std::vector<std::string> props_;
  std::vector<Frame> frames_;
  size_t scope_ = 0;
  std::map<int, uint64_t> index_;
  int next_handle_ = 0;
};

}  // namespace hlx_bc_test

#endif  // HLX_TESTS_GRAPH_BYTECODE_WRITER_H_
