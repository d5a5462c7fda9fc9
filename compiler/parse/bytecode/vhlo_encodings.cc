// VHLO's attribute and type encodings, as openxla/stablehlo's
// stablehlo/dialect/VhloBytecode.cpp defines their codes: a leading varint
// code, then the fields. Codes never change meaning across StableHLO
// versions (new ones are appended), so one table reads every version.
#include <cstdio>
#include <cstring>

#include "compiler/ir.h"
#include "compiler/parse/bytecode/attr_types.h"

namespace kiln::ir::bytecode {
namespace {

enum VhloAttr : uint64_t {
  kArrayV1 = 1, kBooleanV1 = 2, kComparisonDirectionV1 = 3, kComparisonTypeV1 = 4,
  kCustomCallApiVersionV1 = 5, kDictionaryV1 = 6, kFftTypeV1 = 7, kFloatV1 = 8, kIntegerV1 = 9,
  kOutputOperandAliasV1 = 10, kPrecisionV1 = 11, kRngAlgorithmV1 = 12, kRngDistributionV1 = 13,
  kStringV1 = 14, kTensorV1 = 15, kTransposeV1 = 16, kTypeV1 = 17, kTypeExtensionsV1 = 18,
  kResultAccuracyModeV1 = 19, kResultAccuracyV1 = 20,
  // Codes newer than VhloBytecode.cpp's listing read from artifacts of 1.18
  // on: Shardy-style replica groups (mesh name plus axes).
  kSubAxisInfoV1 = 21, kAxisRefV1 = 22, kReplicaGroupMeshAxesV1 = 23,
};

// VhloEnums.td: the values of each enum in order.
struct EnumTable {
  const char* name;
  std::vector<const char*> values;
};
const EnumTable kComparisonDirection{"comparison_direction", {"EQ", "NE", "GE", "GT", "LE", "LT"}};
const EnumTable kComparisonType{"comparison_type", {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}};
const EnumTable kApiVersion{"api_version",
                            {"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
                             "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"}};
const EnumTable kFftType{"fft_type", {"FFT", "IFFT", "RFFT", "IRFFT"}};
const EnumTable kPrecision{"precision", {"DEFAULT", "HIGH", "HIGHEST"}};
const EnumTable kRngAlgorithm{"rng_algorithm", {"DEFAULT", "THREE_FRY", "PHILOX"}};
const EnumTable kRngDistribution{"rng_distribution", {"INVALID", "UNIFORM", "NORMAL"}};
const EnumTable kTranspose{"transpose", {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}};
const EnumTable kResultAccuracyMode{"result_accuracy_mode", {"DEFAULT", "HIGHEST", "TOLERANCE"}};

void ReadEnum(Cursor& c, const EnumTable& e, AttrInfo* a) {
  size_t at = c.offset();
  uint64_t v = c.VarInt();
  if (v >= e.values.size()) Fail(at, std::string("invalid ") + e.name + " value " + std::to_string(v));
  a->kind = AttrInfo::Kind::kEnum;
  a->name = e.name;
  a->i = static_cast<int64_t>(v);
  a->str = e.values[v];
}

std::vector<int64_t> SignedList(Cursor& c) {
  uint64_t n = c.Count("integer");
  std::vector<int64_t> v(n);
  for (auto& x : v) x = c.SignedVarInt();
  return v;
}

uint64_t KnownWidthInt(Cursor& c, int bits) {
  if (bits <= 8) return c.Byte();
  if (bits <= 64) return static_cast<uint64_t>(c.SignedVarInt());
  c.Error("integers wider than 64 bits are not supported");
}

double ReadF64(Cursor& c) {
  uint64_t bits = KnownWidthInt(c, 64);
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

std::string Num(double d) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.17g", d);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // a float literal, not an integer
  return s;
}

// VHLO types that stand for StableHLO element types, by code.
struct Scalar {
  uint64_t code;
  TypeInfo::Kind kind;
  int bits;
  bool is_unsigned;
  const char* name;
};
const Scalar kScalars[] = {
    {0, TypeInfo::Kind::kInt, 1, false, "i1"},
    {2, TypeInfo::Kind::kFloat, 16, false, "bf16"},
    {3, TypeInfo::Kind::kFloat, 16, false, "f16"},
    {4, TypeInfo::Kind::kFloat, 32, false, "f32"},
    {5, TypeInfo::Kind::kFloat, 64, false, "f64"},
    {6, TypeInfo::Kind::kFloat, 8, false, "f8E4M3FN"},
    {7, TypeInfo::Kind::kFloat, 8, false, "f8E5M2"},
    {9, TypeInfo::Kind::kIndex, 64, false, "index"},
    {10, TypeInfo::Kind::kInt, 4, false, "i4"},
    {11, TypeInfo::Kind::kInt, 8, false, "i8"},
    {12, TypeInfo::Kind::kInt, 16, false, "i16"},
    {13, TypeInfo::Kind::kInt, 32, false, "i32"},
    {14, TypeInfo::Kind::kInt, 64, false, "i64"},
    {15, TypeInfo::Kind::kInt, 4, true, "ui4"},
    {16, TypeInfo::Kind::kInt, 8, true, "ui8"},
    {17, TypeInfo::Kind::kInt, 16, true, "ui16"},
    {18, TypeInfo::Kind::kInt, 32, true, "ui32"},
    {19, TypeInfo::Kind::kInt, 64, true, "ui64"},
    {27, TypeInfo::Kind::kFloat, 8, false, "f8E4M3FNUZ"},
    {28, TypeInfo::Kind::kFloat, 8, false, "f8E5M2FNUZ"},
    {29, TypeInfo::Kind::kFloat, 8, false, "f8E4M3B11FNUZ"},
    {31, TypeInfo::Kind::kInt, 2, false, "i2"},
    {32, TypeInfo::Kind::kInt, 2, true, "ui2"},
    {34, TypeInfo::Kind::kFloat, 19, false, "tf32"},
    {35, TypeInfo::Kind::kFloat, 8, false, "f8E4M3"},
    {36, TypeInfo::Kind::kFloat, 8, false, "f8E3M4"},
    {37, TypeInfo::Kind::kFloat, 4, false, "f4E2M1FN"},
    {38, TypeInfo::Kind::kFloat, 6, false, "f6E2M3FN"},
    {39, TypeInfo::Kind::kFloat, 6, false, "f6E3M2FN"},
    {40, TypeInfo::Kind::kFloat, 8, false, "f8E8M0FNU"},
};

enum VhloType : uint64_t {
  kComplexV1 = 1, kFunctionV1 = 8, kRankedTensorV1 = 20, kRankedTensorV1WithEncoding = 21, kTokenV1 = 22,
  kTupleV1 = 23, kUniformQuantizedV1 = 24, kUnrankedTensorV1 = 25, kWitnessV1 = 26,
  kUniformQuantizedPerAxisV1 = 30, kNoneV1 = 33, kRankedBufferV1 = 41,
  kFutureV1 = 42,  // async_start's !stablehlo.future<types...> (1.15 on)
};

std::vector<uint64_t> TypeList(AttrTypeTable& t, Cursor& c) {
  uint64_t n = c.Count("type");
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = t.ReadTypeIndex(c);
  return v;
}

// !quant.uniform<storage[<min:max>]:expressed[:axis], scales...>
std::string QuantStorage(AttrTypeTable& t, uint64_t flags, uint64_t storage, int64_t lo, int64_t hi, size_t at) {
  const TypeInfo& s = t.Type(storage, at);
  if (s.kind != TypeInfo::Kind::kInt) Fail(at, "quantized storage must be an integer type");
  bool is_signed = flags & 1;
  std::string text = (is_signed ? "i" : "u") + std::to_string(s.bits);
  // The storage type's own range (the type table admits widths 1 to 64).
  const auto [dmin, dmax] = ir::IntegerStorageRange(s.bits, is_signed);
  if (lo != dmin || hi != dmax) text += "<" + std::to_string(lo) + ":" + std::to_string(hi) + ">";
  return text;
}

}  // namespace

void DecodeVhloAttr(AttrTypeTable& t, Cursor& c, AttrInfo* a) {
  size_t at = c.offset();
  uint64_t code = c.VarInt();
  using K = AttrInfo::Kind;
  switch (code) {
    case kArrayV1: {
      a->kind = K::kArray;
      uint64_t n = c.Count("attribute");
      for (uint64_t k = 0; k < n; ++k) a->elements.push_back(t.ReadAttrIndex(c));
      return;
    }
    case kBooleanV1: {
      uint64_t v = c.VarInt();
      if (v > 1) Fail(at, "invalid boolean value " + std::to_string(v));
      a->kind = K::kBool;
      a->b = v == 1;
      return;
    }
    case kComparisonDirectionV1: ReadEnum(c, kComparisonDirection, a); return;
    case kComparisonTypeV1: ReadEnum(c, kComparisonType, a); return;
    case kCustomCallApiVersionV1: ReadEnum(c, kApiVersion, a); return;
    case kFftTypeV1: ReadEnum(c, kFftType, a); return;
    case kPrecisionV1: ReadEnum(c, kPrecision, a); return;
    case kRngAlgorithmV1: ReadEnum(c, kRngAlgorithm, a); return;
    case kRngDistributionV1: ReadEnum(c, kRngDistribution, a); return;
    case kTransposeV1: ReadEnum(c, kTranspose, a); return;
    case kResultAccuracyModeV1: ReadEnum(c, kResultAccuracyMode, a); return;
    case kDictionaryV1: {
      a->kind = K::kDict;
      uint64_t n = c.Count("attribute", 2);
      for (uint64_t k = 0; k < n; ++k) {
        uint64_t name = t.ReadAttrIndex(c);
        uint64_t value = t.ReadAttrIndex(c);
        a->pairs.emplace_back(name, value);
      }
      return;
    }
    case kFloatV1: {
      a->kind = K::kFloat;
      a->type = t.ReadTypeIndex(c);
      const TypeInfo& ty = t.Type(a->type, at);
      if (ty.kind != TypeInfo::Kind::kFloat) Fail(at, "a float attribute needs a float type");
      a->bits = KnownWidthInt(c, ty.bits);
      return;
    }
    case kIntegerV1: {
      a->kind = K::kInt;
      a->type = t.ReadTypeIndex(c);
      const TypeInfo& ty = t.Type(a->type, at);
      if (ty.kind != TypeInfo::Kind::kInt && ty.kind != TypeInfo::Kind::kIndex)
        Fail(at, "an integer attribute needs an integer type");
      a->i = static_cast<int64_t>(KnownWidthInt(c, ty.bits));
      return;
    }
    case kOutputOperandAliasV1:
      a->kind = K::kOutputOperandAlias;
      a->ints = SignedList(c);
      a->i = c.SignedVarInt();
      a->ints2 = SignedList(c);
      return;
    case kStringV1:
      a->kind = K::kString;
      a->str = std::string(t.String(c));
      return;
    case kTensorV1:
      a->kind = K::kTensor;
      a->type = t.ReadTypeIndex(c);
      a->data = c.Bytes(c.VarInt());
      return;
    case kTypeV1:
      a->kind = K::kType;
      a->type = t.ReadTypeIndex(c);
      return;
    case kTypeExtensionsV1:
      a->kind = K::kTypeExtensions;
      a->ints = SignedList(c);
      return;
    case kResultAccuracyV1:
      a->kind = K::kResultAccuracy;
      a->f1 = ReadF64(c);
      a->f2 = ReadF64(c);
      a->i = c.SignedVarInt();
      a->elements.push_back(t.ReadAttrIndex(c));
      return;
    case kSubAxisInfoV1:
      a->kind = K::kSubAxisInfo;
      a->ints.push_back(c.SignedVarInt());
      a->ints.push_back(c.SignedVarInt());
      return;
    case kAxisRefV1: {
      a->kind = K::kAxisRef;
      a->elements.push_back(t.ReadAttrIndex(c));
      uint64_t n = c.Count("sub-axis");  // the optional sub-axis info: none or one
      if (n > 1) Fail(at, "an axis reference has at most one sub-axis info");
      if (n) a->elements.push_back(t.ReadAttrIndex(c));
      return;
    }
    case kReplicaGroupMeshAxesV1:
      a->kind = K::kMeshAxes;
      a->elements.push_back(t.ReadAttrIndex(c));
      a->elements.push_back(t.ReadAttrIndex(c));
      return;
    default:
      Fail(at, "unknown VHLO attribute code " + std::to_string(code) +
                   " (written by a newer StableHLO than Kiln knows?)");
  }
}

void DecodeVhloType(AttrTypeTable& t, Cursor& c, TypeInfo* ty) {
  size_t at = c.offset();
  uint64_t code = c.VarInt();
  using K = TypeInfo::Kind;
  for (const Scalar& s : kScalars) {
    if (s.code != code) continue;
    ty->kind = s.kind;
    ty->bits = s.bits;
    ty->is_unsigned = s.is_unsigned;
    ty->name = s.name;
    return;
  }
  switch (code) {
    case kComplexV1: ty->kind = K::kComplex; ty->element = t.ReadTypeIndex(c); return;
    case kFunctionV1:
      ty->kind = K::kFunction;
      ty->elements = TypeList(t, c);
      ty->results = TypeList(t, c);
      return;
    case kRankedTensorV1WithEncoding: {
      const AttrInfo& enc = t.ReadAttr(c);
      if (enc.kind != AttrInfo::Kind::kTypeExtensions) Fail(at, "unsupported tensor encoding");
      ty->has_bounds = true;
      ty->bounds = enc.ints;
    }
      [[fallthrough]];
    case kRankedTensorV1:
      ty->kind = K::kTensor;
      ty->shape = SignedList(c);
      ty->element = t.ReadTypeIndex(c);
      return;
    case kTokenV1: ty->kind = K::kToken; return;
    case kTupleV1: ty->kind = K::kTuple; ty->elements = TypeList(t, c); return;
    case kUnrankedTensorV1: ty->kind = K::kUnranked; ty->element = t.ReadTypeIndex(c); return;
    case kWitnessV1: ty->kind = K::kOther; ty->text = "!shape.witness"; return;
    case kNoneV1: ty->kind = K::kNone; return;
    case kFutureV1: ty->kind = K::kFuture; ty->elements = TypeList(t, c); return;
    case kUniformQuantizedV1: {
      uint64_t flags = c.VarInt();
      uint64_t storage = t.ReadTypeIndex(c);
      uint64_t expressed = t.ReadTypeIndex(c);
      double scale = ReadF64(c);
      int64_t zp = c.SignedVarInt();
      int64_t lo = c.SignedVarInt(), hi = c.SignedVarInt();
      ty->kind = K::kQuant;
      ty->element = storage;
      ty->text = "!quant.uniform<" + QuantStorage(t, flags, storage, lo, hi, at) + ":" + TypeText(t, expressed) +
                 ", " + Num(scale) + (zp ? ":" + std::to_string(zp) : "") + ">";
      return;
    }
    case kUniformQuantizedPerAxisV1: {
      uint64_t flags = c.VarInt();
      uint64_t storage = t.ReadTypeIndex(c);
      uint64_t expressed = t.ReadTypeIndex(c);
      uint64_t axis = c.VarInt();
      int64_t lo = c.SignedVarInt(), hi = c.SignedVarInt();
      uint64_t ns = c.Count("scale");
      std::vector<double> scales(ns);
      for (auto& s : scales) s = ReadF64(c);
      std::vector<int64_t> zps = SignedList(c);
      if (zps.size() != scales.size()) Fail(at, "per-axis quantization needs one zero point per scale");
      ty->kind = K::kQuant;
      ty->element = storage;
      std::string text = "!quant.uniform<" + QuantStorage(t, flags, storage, lo, hi, at) + ":" +
                         TypeText(t, expressed) + ":" + std::to_string(axis) + ", {";
      for (size_t k = 0; k < scales.size(); ++k)
        text += (k ? ", " : "") + Num(scales[k]) + (zps[k] ? ":" + std::to_string(zps[k]) : "");
      ty->text = text + "}>";
      return;
    }
    case kRankedBufferV1: {
      std::vector<int64_t> shape = SignedList(c);
      uint64_t element = t.ReadTypeIndex(c);
      std::string s = "memref<";
      for (int64_t d : shape) s += (d == INT64_MIN ? std::string("?") : std::to_string(d)) + "x";
      ty->kind = K::kOther;
      ty->text = s + TypeText(t, element) + ">";
      return;
    }
    default:
      Fail(at, "unknown VHLO type code " + std::to_string(code) +
                   " (written by a newer StableHLO than Kiln knows?)");
  }
}

}  // namespace kiln::ir::bytecode
