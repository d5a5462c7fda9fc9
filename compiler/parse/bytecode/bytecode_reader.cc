// The MLIR bytecode container (bytecode_reader.h). Written from the format
// description and the reader's behaviour per version:
//   1: dialect versions, 2: isolated regions in their own sections,
//   3: use-list orders, 4: op-name count and elided block-argument locations,
//   5: native properties and the op names' "registered" flag, 6: segment
//   sizes as properties.
#include "compiler/parse/bytecode/bytecode_reader.h"

#include <optional>

namespace kiln::ir::bytecode {
namespace {

enum SectionId : uint8_t {
  kString = 0,
  kDialect = 1,
  kAttrType = 2,
  kAttrTypeOffset = 3,
  kIR = 4,
  kResource = 5,
  kResourceOffset = 6,
  kDialectVersions = 7,
  kProperties = 8,
  kNumSections = 9,
};

constexpr uint64_t kNewestVersion = 6;
// Nesting of regions; deeper programs are refused rather than risking the
// stack (the reader recurses once per region level).
constexpr int kMaxRegionDepth = 256;

enum OpMask : uint8_t {
  kHasAttrs = 0x01,
  kHasResults = 0x02,
  kHasOperands = 0x04,
  kHasSuccessors = 0x08,
  kHasInlineRegions = 0x10,
  kHasUseListOrders = 0x20,
  kHasProperties = 0x40,
};

void ReadStrings(Span data, BytecodeFile* f) {
  Cursor c(data);
  uint64_t n = c.Count("string");
  f->strings.resize(n);
  // Sizes (each with its NUL) come in reverse order; the data is at the end.
  size_t end = data.size;
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t size = c.VarInt();
    if (size == 0 || size > end) c.Error("string size exceeds the string data");
    size_t start = end - size;
    f->strings[n - 1 - k] = std::string_view(reinterpret_cast<const char*>(data.data + start), size - 1);
    end = start;
  }
  if (c.pos() != end) c.Error("unexpected bytes between the string sizes and their data");
}

void ReadDialects(Span data, BytecodeFile* f, std::vector<std::optional<bool>>* registered) {
  Cursor c(data);
  uint64_t n = c.Count("dialect");
  f->dialects.resize(n);
  for (auto& d : f->dialects) {
    if (f->version < 1) {
      d.name = f->String(c.VarInt(), c.offset());
      continue;
    }
    size_t at = c.offset();
    d.name = f->String(c.VarIntWithFlag(&d.has_version), at);
    if (d.has_version) {
      uint8_t id;
      d.version = c.Section(&id);
      if (id != kDialectVersions) Fail(at, "expected a dialect version section");
    }
  }
  if (f->version >= 4) c.VarInt();  // the number of op names, a reservation hint
  while (!c.empty()) {
    size_t at = c.offset();
    uint64_t dialect = c.VarInt();
    if (dialect >= f->dialects.size()) Fail(at, "dialect index " + std::to_string(dialect) + " out of range");
    uint64_t count = c.Count("op name");
    for (uint64_t k = 0; k < count; ++k) {
      BytecodeFile::OpName op;
      op.dialect = static_cast<uint32_t>(dialect);
      size_t name_at = c.offset();
      std::optional<bool> reg;
      if (f->version < 5) {
        op.name = f->String(c.VarInt(), name_at);
      } else {
        bool flag;
        op.name = f->String(c.VarIntWithFlag(&flag), name_at);
        reg = flag;
      }
      op.full = std::string(f->dialects[dialect].name) + "." + std::string(op.name);
      f->op_names.push_back(std::move(op));
      registered->push_back(reg);
    }
  }
}

void ReadAttrTypeOffsets(Span data, Span offsets, BytecodeFile* f) {
  Cursor c(offsets);
  uint64_t num_attrs = c.Count("attribute");
  uint64_t num_types = c.Count("type");
  if (num_attrs + num_types > offsets.size) c.Error("more attributes and types than the offset table can hold");
  f->attrs.resize(num_attrs);
  f->types.resize(num_types);
  uint64_t cur = 0;
  auto fill = [&](std::vector<BytecodeFile::Entry>& entries) {
    size_t k = 0;
    while (k < entries.size()) {
      size_t at = c.offset();
      uint64_t dialect = c.VarInt();
      if (dialect >= f->dialects.size()) Fail(at, "dialect index " + std::to_string(dialect) + " out of range");
      uint64_t count = c.VarInt();
      if (count > entries.size() - k) Fail(at, "attribute/type group overruns the table");
      for (uint64_t i = 0; i < count; ++i, ++k) {
        size_t entry_at = c.offset();
        bool custom;
        uint64_t size = c.VarIntWithFlag(&custom);
        if (cur > data.size || size > data.size - cur)
          Fail(entry_at, "attribute/type entry points past the end of its section");
        entries[k] = {static_cast<uint32_t>(dialect), custom, Span{data.data + cur, size, data.offset + cur}};
        cur += size;
      }
    }
  };
  fill(f->attrs);
  fill(f->types);
  if (!c.empty()) c.Error("unexpected trailing data in the attribute/type offset section");
}

void ReadProperties(Span data, BytecodeFile* f) {
  if (data.size == 0) return;
  Cursor c(data);
  uint64_t count = c.Count("properties");
  for (uint64_t k = 0; k < count; ++k) {
    uint64_t size = c.VarInt();
    f->properties.push_back(c.Bytes(size));
  }
  if (!c.empty()) c.Error("unexpected trailing data in the properties section");
}

void ReadResources(Span data, Span offsets, BytecodeFile* f) {
  Cursor res(data), c(offsets);
  auto group = [&](bool keep) {
    uint64_t n = c.Count("resource");
    for (uint64_t k = 0; k < n; ++k) {
      size_t at = c.offset();
      std::string_view key = f->String(c.VarInt(), at);
      uint64_t size = c.VarInt();
      uint8_t kind = c.Byte();
      Span entry = res.Bytes(size);
      if (!keep) continue;
      if (kind != 0) {  // 0: blob; 1: bool, 2: string are not element data
        f->resources.push_back({key, Span{}});
        continue;
      }
      if (entry.size == 0) {  // a declaration without data
        f->resources.push_back({key, entry});
        continue;
      }
      Cursor e(entry);
      uint64_t alignment = e.VarInt();
      uint64_t blob_size = e.VarInt();
      e.AlignTo(alignment);
      f->resources.push_back({key, e.Bytes(blob_size)});
    }
  };
  uint64_t external = c.Count("external resource group");
  for (uint64_t k = 0; k < external; ++k) {
    f->String(c.VarInt(), c.offset());
    group(false);
  }
  while (!c.empty()) {
    size_t at = c.offset();
    if (c.VarInt() >= f->dialects.size()) Fail(at, "resource dialect index out of range");
    group(true);
  }
}

class IrReader {
 public:
  IrReader(BytecodeFile* f, std::vector<std::optional<bool>> registered, size_t file_size)
      : f_(f), registered_(std::move(registered)), budget_(file_size) {}

  void Read(Span ir) {
    Cursor c(ir);
    scopes_.emplace_back();
    // The top level is one block of a region that defines no values.
    next_.push_back(0);
    ReadBlock(c, &f_->top, /*depth=*/0);
    if (!c.empty()) c.Error("unexpected trailing data in the IR section");
    for (uint32_t id = 0; id < defined_.size(); ++id)
      if (!defined_[id] && alias_[id] == kNone) Fail(ir.offset, "an operand refers to a value that is never defined");
    Resolve(&f_->top);
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Slot {
    uint32_t id = kNone;
    bool defined = false;
  };
  struct Scope {
    std::vector<Slot> values;
  };

  uint32_t NewId(bool defined) {
    defined_.push_back(defined);
    alias_.push_back(kNone);
    return static_cast<uint32_t>(defined_.size() - 1);
  }

  void Define(Cursor& c, std::vector<uint32_t>* ids, size_t n) {
    Scope& s = scopes_.back();
    uint64_t& next = next_.back();
    if (next + n > s.values.size())
      c.Error("value numbers [" + std::to_string(next) + ", " + std::to_string(next + n) +
              ") exceed the region's declared value count");
    for (size_t k = 0; k < n; ++k, ++next) {
      uint32_t id = NewId(true);
      Slot& slot = s.values[next];
      if (slot.id != kNone && !slot.defined) alias_[slot.id] = id;  // resolves a forward reference
      slot = {id, true};
      ids->push_back(id);
    }
  }

  uint32_t Operand(Cursor& c) {
    size_t at = c.offset();
    uint64_t index = c.VarInt();
    Scope& s = scopes_.back();
    if (index >= s.values.size()) Fail(at, "value index " + std::to_string(index) + " out of range");
    Slot& slot = s.values[index];
    if (slot.id == kNone) slot = {NewId(false), false};  // forward reference
    return slot.id;
  }

  void UseListOrders(Cursor& c, uint64_t range) {
    uint64_t n = 1;
    if (range > 1) n = c.Count("use-list");
    for (uint64_t k = 0; k < n; ++k) {
      if (range > 1) c.VarInt();
      bool pairs;
      uint64_t count = c.VarIntWithFlag(&pairs);
      if (count > c.left()) c.Error("use-list order overruns the data");
      for (uint64_t i = 0; i < count; ++i) c.VarInt();
    }
  }

  void ReadBlock(Cursor& c, RawBlock* b, int depth) {
    bool has_args;
    size_t at = c.offset();
    uint64_t num_ops = c.VarIntWithFlag(&has_args);
    if (num_ops > c.left()) Fail(at, "op count " + std::to_string(num_ops) + " exceeds the data left");
    if (has_args) {
      uint64_t n = c.Count("block argument");
      b->args.resize(n);
      std::vector<uint32_t> ids;
      for (auto& a : b->args) {
        if (f_->version >= 4) {
          bool has_loc;
          a.type = c.VarIntWithFlag(&has_loc);
          if (has_loc) c.VarInt();
        } else {
          a.type = c.VarInt();
          c.VarInt();  // location
        }
      }
      Define(c, &ids, n);
      for (size_t k = 0; k < n; ++k) b->args[k].value = ids[k];
      if (f_->version >= 3 && c.Byte()) UseListOrders(c, n);
    }
    b->ops.reserve(num_ops);
    for (uint64_t k = 0; k < num_ops; ++k) {
      b->ops.emplace_back();
      ReadOp(c, &b->ops.back(), depth);
    }
  }

  void ReadOp(Cursor& c, RawOp* op, int depth) {
    op->offset = c.offset();
    op->name = c.VarInt();
    if (op->name >= f_->op_names.size()) Fail(op->offset, "op name index " + std::to_string(op->name) + " out of range");
    uint8_t mask = c.Byte();
    op->location = c.VarInt();
    if (mask & kHasAttrs) {
      op->has_attrs = true;
      op->attrs = c.VarInt();
    }
    if (mask & kHasProperties) {
      const auto& reg = registered_[op->name];
      if (!reg) c.Error("properties on an op of bytecode version " + std::to_string(f_->version));
      op->has_properties = true;
      size_t at = c.offset();
      uint64_t index = c.VarInt();
      if (*reg) {
        if (index >= f_->properties.size()) Fail(at, "properties index " + std::to_string(index) + " out of range");
        op->properties = f_->properties[index];
      }
    }
    if (mask & kHasResults) {
      uint64_t n = c.Count("result");
      op->result_types.resize(n);
      for (auto& t : op->result_types) t = c.VarInt();
    }
    if (mask & kHasOperands) {
      uint64_t n = c.Count("operand");
      op->operands.resize(n);
      for (auto& v : op->operands) v = Operand(c);
    }
    if (mask & kHasSuccessors) {
      uint64_t n = c.Count("successor");
      for (uint64_t k = 0; k < n; ++k) c.VarInt();
    }
    if (f_->version >= 3 && (mask & kHasUseListOrders)) UseListOrders(c, op->result_types.size());
    uint64_t num_regions = 0;
    bool isolated = false;
    if (mask & kHasInlineRegions) num_regions = c.VarIntWithFlag(&isolated);
    if (num_regions > c.left()) c.Error("region count exceeds the data left");
    // Results are numbered in the enclosing region (none at the top level).
    if (!op->result_types.empty() && region_has_values_.size() && region_has_values_.back())
      Define(c, &op->results, op->result_types.size());
    if (num_regions == 0) return;
    if (depth >= kMaxRegionDepth) c.Error("regions nested deeper than " + std::to_string(kMaxRegionDepth));
    op->regions.resize(num_regions);
    if (isolated && f_->version >= 2) {
      uint8_t id;
      size_t at = c.offset();
      Span section = c.Section(&id);
      if (id != kIR) Fail(at, "expected an IR section for an isolated region");
      Cursor sub(section);
      ReadRegions(sub, op, isolated, depth);
    } else {
      ReadRegions(c, op, isolated, depth);
    }
  }

  void ReadRegions(Cursor& c, RawOp* op, bool isolated, int depth) {
    if (isolated) {
      scopes_.emplace_back();
      next_.push_back(0);
    }
    for (auto& r : op->regions) ReadRegion(c, &r, depth + 1);
    if (isolated) {
      scopes_.pop_back();
      next_.pop_back();
    }
  }

  void ReadRegion(Cursor& c, RawRegion* r, int depth) {
    uint64_t num_blocks = c.Count("block");
    if (num_blocks == 0) return;
    size_t at = c.offset();
    uint64_t num_values = c.VarInt();
    // Every value takes at least a byte to define (a result type or an
    // argument type), so all regions open at once can reserve no more
    // values than the file has bytes.
    if (num_values > c.left() || num_values > budget_ - reserved_)
      Fail(at, "value count " + std::to_string(num_values) + " exceeds the data left");
    reserved_ += num_values;
    Scope& s = scopes_.back();
    size_t base = s.values.size();
    s.values.resize(base + num_values);
    // The region's values are numbered from `base` in the current scope.
    uint64_t saved_next = next_.back();
    next_.back() = base;
    region_has_values_.push_back(num_values != 0);
    r->blocks.resize(num_blocks);
    for (auto& b : r->blocks) ReadBlock(c, &b, depth);
    region_has_values_.pop_back();
    reserved_ -= num_values;
    scopes_.back().values.resize(base);
    next_.back() = saved_next;
  }

  uint32_t Final(uint32_t id) const {
    // Forward references alias exactly one definition; follow at most once.
    return alias_[id] != kNone ? alias_[id] : id;
  }

  void Resolve(RawBlock* b) {
    for (auto& op : b->ops) {
      for (auto& v : op.operands) v = Final(v);
      for (auto& r : op.regions)
        for (auto& blk : r.blocks) Resolve(&blk);
    }
  }

  BytecodeFile* f_;
  std::vector<std::optional<bool>> registered_;
  std::vector<Scope> scopes_;
  uint64_t budget_ = 0, reserved_ = 0;
  std::vector<uint64_t> next_;
  std::vector<bool> region_has_values_;
  std::vector<bool> defined_;
  std::vector<uint32_t> alias_;
};

}  // namespace

BytecodeFile ReadContainer(std::string_view bytes) {
  BytecodeFile f;
  Cursor c(Span{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0});
  Span magic = c.Bytes(4);
  if (magic.str() != std::string_view("ML\xEFR", 4)) Fail(0, "not MLIR bytecode (no ML\\xEFR magic)");
  f.version = c.VarInt();
  if (f.version > kNewestVersion)
    Fail(4, "MLIR bytecode version " + std::to_string(f.version) + " is newer than the newest Kiln reads (" +
                std::to_string(kNewestVersion) + ")");
  f.producer = c.CString();
  Span sections[kNumSections];
  bool present[kNumSections] = {};
  while (!c.empty()) {
    size_t at = c.offset();
    uint8_t id;
    Span s = c.Section(&id);
    if (id >= kNumSections) Fail(at, "unknown section id " + std::to_string(id));
    if (present[id]) Fail(at, "duplicate section " + std::to_string(id));
    present[id] = true;
    sections[id] = s;
  }
  for (uint8_t id : {kString, kDialect, kAttrType, kAttrTypeOffset, kIR})
    if (!present[id]) Fail(bytes.size(), "missing section " + std::to_string(id));
  if (present[kResource] != present[kResourceOffset])
    Fail(bytes.size(), "a resource section needs its offset section and vice versa");
  ReadStrings(sections[kString], &f);
  if (present[kProperties]) ReadProperties(sections[kProperties], &f);
  std::vector<std::optional<bool>> registered;
  ReadDialects(sections[kDialect], &f, &registered);
  if (present[kResource]) ReadResources(sections[kResource], sections[kResourceOffset], &f);
  ReadAttrTypeOffsets(sections[kAttrType], sections[kAttrTypeOffset], &f);
  IrReader(&f, std::move(registered), bytes.size()).Read(sections[kIR]);
  return f;
}

}  // namespace kiln::ir::bytecode
