// The builtin dialect's attribute and type encodings
// (llvm-project mlir/include/mlir/IR/BuiltinDialectBytecode.td): a leading
// varint code, then the fields in order. What a StableHLO portable artifact
// holds of the builtin dialect is small: op attribute dictionaries with
// string names, locations, and the module op; the rest is read so that
// programs using builtin types directly get a clear message later on.
#include "compiler/parse/bytecode/attr_types.h"

#include <cstdint>

namespace kiln::ir::bytecode {
namespace {

enum BuiltinAttr : uint64_t {
  kArray = 0, kDictionary = 1, kString = 2, kStringWithType = 3, kFlatSymbolRef = 4, kSymbolRef = 5,
  kTypeAttr = 6, kUnit = 7, kInteger = 8, kFloat = 9, kCallSiteLoc = 10, kFileLineColLoc = 11,
  kFusedLoc = 12, kFusedLocWithMetadata = 13, kNameLoc = 14, kUnknownLoc = 15,
  kDenseResourceElements = 16, kDenseArray = 17, kDenseIntOrFPElements = 18,
};

enum BuiltinType : uint64_t {
  kIntegerType = 0, kIndexType = 1, kFunctionType = 2, kBF16 = 3, kF16 = 4, kF32 = 5, kF64 = 6,
  kF80 = 7, kF128 = 8, kComplexType = 9, kNoneType = 12, kRankedTensor = 13,
  kRankedTensorWithEncoding = 14, kTupleType = 15, kUnrankedTensor = 18,
};

std::vector<uint64_t> TypeList(AttrTypeTable& t, Cursor& c) {
  uint64_t n = c.Count("type");
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = t.ReadTypeIndex(c);
  return v;
}

// An APInt of a known width: one byte up to 8 bits, a signed varint up to 64.
uint64_t KnownWidthInt(Cursor& c, int bits) {
  if (bits <= 8) return c.Byte();
  if (bits <= 64) return static_cast<uint64_t>(c.SignedVarInt());
  c.Error("integers wider than 64 bits are not supported");
}

int TypeBits(const TypeInfo& ty) {
  if (ty.kind == TypeInfo::Kind::kInt || ty.kind == TypeInfo::Kind::kFloat) return ty.bits;
  if (ty.kind == TypeInfo::Kind::kIndex) return 64;
  return -1;
}

// The string of a location's StringAttr (a file or a name), "" if the index
// names something else.
std::string LocationString(AttrTypeTable& t, uint64_t index) {
  if (index >= t.file().attrs.size()) return "";
  const AttrInfo& s = t.Attr(index, 0);
  return s.kind == AttrInfo::Kind::kString ? s.str : "";
}

}  // namespace

std::string LocationText(AttrTypeTable& t, uint64_t index, int depth) {
  // A budget of locations per call, besides the depth: a fused location
  // naming another twice (or itself) would otherwise double at every level.
  constexpr int kMaxDepth = 32;
  thread_local int budget = 0;
  if (depth == 0) budget = 256;
  if (depth > kMaxDepth || --budget < 0 || index >= t.file().attrs.size()) return "unknown";
  const AttrInfo& a = t.Attr(index, 0);
  if (a.kind != AttrInfo::Kind::kLocation) return "unknown";
  if (a.name == "file") {
    std::string s = QuoteString(a.str);
    for (int64_t v : a.ints) s += ":" + std::to_string(v);
    return a.ints.empty() ? s + ":0:0" : a.ints.size() == 1 ? s + ":0" : s;
  }
  if (a.name == "name") {
    std::string child = LocationText(t, a.elements[0], depth + 1);
    return child == "unknown" ? QuoteString(a.str) : QuoteString(a.str) + "(" + child + ")";
  }
  if (a.name == "callsite")
    return "callsite(" + LocationText(t, a.elements[0], depth + 1) + " at " +
           LocationText(t, a.elements[1], depth + 1) + ")";
  if (a.name == "fused") {
    if (a.elements.empty()) return "unknown";
    std::string s = "fused[";
    for (size_t k = 0; k < a.elements.size(); ++k) s += (k ? ", " : "") + LocationText(t, a.elements[k], depth + 1);
    return s + "]";
  }
  return "unknown";
}

void DecodeBuiltinAttr(AttrTypeTable& t, Cursor& c, AttrInfo* a) {
  size_t at = c.offset();
  uint64_t code = c.VarInt();
  switch (code) {
    case kArray: {
      a->kind = AttrInfo::Kind::kArray;
      uint64_t n = c.Count("attribute");
      for (uint64_t k = 0; k < n; ++k) a->elements.push_back(t.ReadAttrIndex(c));
      return;
    }
    case kDictionary: {
      a->kind = AttrInfo::Kind::kDict;
      uint64_t n = c.Count("attribute", 2);
      for (uint64_t k = 0; k < n; ++k) {
        uint64_t name = t.ReadAttrIndex(c);
        uint64_t value = t.ReadAttrIndex(c);
        a->pairs.emplace_back(name, value);
      }
      return;
    }
    case kString:
      a->kind = AttrInfo::Kind::kString;
      a->str = std::string(t.String(c));
      return;
    case kStringWithType:
      a->kind = AttrInfo::Kind::kString;
      a->str = std::string(t.String(c));
      a->type = t.ReadTypeIndex(c);
      return;
    case kFlatSymbolRef: {
      a->kind = AttrInfo::Kind::kSymbolRef;
      const AttrInfo& s = t.ReadAttr(c);
      if (s.kind != AttrInfo::Kind::kString) c.Error("a symbol reference needs a string");
      a->str = s.str;
      return;
    }
    case kTypeAttr:
      a->kind = AttrInfo::Kind::kType;
      a->type = t.ReadTypeIndex(c);
      return;
    case kUnit:
      a->kind = AttrInfo::Kind::kUnit;
      return;
    case kInteger: {
      a->kind = AttrInfo::Kind::kInt;
      a->type = t.ReadTypeIndex(c);
      int bits = TypeBits(t.Type(a->type, at));
      if (bits < 0) c.Error("an integer attribute needs an integer type");
      a->i = static_cast<int64_t>(KnownWidthInt(c, bits));
      return;
    }
    case kFloat: {
      a->kind = AttrInfo::Kind::kFloat;
      a->type = t.ReadTypeIndex(c);
      const TypeInfo& ty = t.Type(a->type, at);
      if (ty.kind != TypeInfo::Kind::kFloat) c.Error("a float attribute needs a float type");
      a->bits = KnownWidthInt(c, ty.bits);
      return;
    }
    // Debug locations, read leniently (a location never makes a program
    // invalid): name says which form; nested locations are kept as raw
    // indices in `elements`, decoded only by LocationText, so a deep or
    // cyclic chain costs no nesting here.
    case kCallSiteLoc:
      a->kind = AttrInfo::Kind::kLocation;
      a->name = "callsite";
      a->elements = {c.VarInt(), c.VarInt()};  // callee, caller
      return;
    case kFileLineColLoc: {
      // MLIR wrote (filename, line, column) until FileLineColRange took the
      // code: (filename, count, count varints: start line, start column,
      // ...). Three varints in all are read the first way; fields in
      // neither form leave the position out.
      a->kind = AttrInfo::Kind::kLocation;
      a->name = "file";
      a->str = LocationString(t, c.VarInt());
      std::vector<uint64_t> v;
      while (c.left() > 0 && v.size() < 5) v.push_back(c.VarInt());
      c.Bytes(c.left());
      auto in_range = [](uint64_t x) { return x <= static_cast<uint64_t>(INT32_MAX); };
      if (v.size() == 2 && in_range(v[0]) && in_range(v[1])) {
        a->ints = {static_cast<int64_t>(v[0]), static_cast<int64_t>(v[1])};
      } else if (!v.empty() && v[0] == v.size() - 1) {
        for (size_t k = 1; k < v.size() && k <= 2 && in_range(v[k]); ++k) a->ints.push_back(static_cast<int64_t>(v[k]));
      }
      return;
    }
    case kFusedLoc: case kFusedLocWithMetadata: {
      a->kind = AttrInfo::Kind::kLocation;
      a->name = "fused";
      uint64_t n = c.Count("location");
      for (uint64_t k = 0; k < n; ++k) a->elements.push_back(c.VarInt());
      if (code == kFusedLocWithMetadata) c.VarInt();  // metadata: not kept
      return;
    }
    case kNameLoc:
      a->kind = AttrInfo::Kind::kLocation;
      a->name = "name";
      a->str = LocationString(t, c.VarInt());
      a->elements = {c.VarInt()};
      return;
    case kUnknownLoc:
      a->kind = AttrInfo::Kind::kLocation;
      a->name = "unknown";
      return;
    case kDenseArray: {
      a->kind = AttrInfo::Kind::kDenseArray;
      a->type = t.ReadTypeIndex(c);
      a->i = static_cast<int64_t>(c.VarInt());
      a->data = c.Bytes(c.VarInt());
      return;
    }
    case kDenseIntOrFPElements:
      a->kind = AttrInfo::Kind::kTensor;
      a->type = t.ReadTypeIndex(c);
      a->data = c.Bytes(c.VarInt());
      return;
    default:
      Fail(at, "builtin attribute code " + std::to_string(code) + " is not read");
  }
}

void DecodeBuiltinType(AttrTypeTable& t, Cursor& c, TypeInfo* ty) {
  size_t at = c.offset();
  uint64_t code = c.VarInt();
  using K = TypeInfo::Kind;
  auto flt = [&](const char* name, int bits) {
    ty->kind = K::kFloat;
    ty->name = name;
    ty->bits = bits;
  };
  switch (code) {
    case kIntegerType: {
      uint64_t v = c.VarInt();
      ty->kind = K::kInt;
      if ((v >> 2) > 64 || (v >> 2) == 0) Fail(at, "integer width " + std::to_string(v >> 2) + " is not supported");
      ty->bits = static_cast<int>(v >> 2);
      ty->is_unsigned = (v & 3) == 2;
      return;
    }
    case kIndexType: ty->kind = K::kIndex; return;
    case kFunctionType:
      ty->kind = K::kFunction;
      ty->elements = TypeList(t, c);
      ty->results = TypeList(t, c);
      return;
    case kBF16: flt("bf16", 16); return;
    case kF16: flt("f16", 16); return;
    case kF32: flt("f32", 32); return;
    case kF64: flt("f64", 64); return;
    case kF80: flt("f80", 80); return;
    case kF128: flt("f128", 128); return;
    case kComplexType: ty->kind = K::kComplex; ty->element = t.ReadTypeIndex(c); return;
    case kNoneType: ty->kind = K::kNone; return;
    case kRankedTensorWithEncoding:
      // The encoding is kept only as bounds when it is VHLO's type
      // extensions; other encodings are dropped with the type's meaning.
      {
        const AttrInfo& enc = t.ReadAttr(c);
        if (enc.kind == AttrInfo::Kind::kTypeExtensions) {
          ty->has_bounds = true;
          ty->bounds = enc.ints;
        }
      }
      [[fallthrough]];
    case kRankedTensor: {
      ty->kind = K::kTensor;
      uint64_t n = c.Count("dimension");
      for (uint64_t k = 0; k < n; ++k) ty->shape.push_back(c.SignedVarInt());
      ty->element = t.ReadTypeIndex(c);
      return;
    }
    case kTupleType: ty->kind = K::kTuple; ty->elements = TypeList(t, c); return;
    case kUnrankedTensor: ty->kind = K::kUnranked; ty->element = t.ReadTypeIndex(c); return;
    default:
      Fail(at, "builtin type code " + std::to_string(code) + " is not read");
  }
}

}  // namespace kiln::ir::bytecode
