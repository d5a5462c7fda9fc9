// IR helpers: type spelling and equality, attribute views and lookups.
#include <algorithm>
#include "compiler/ir.h"

#include <cstring>

namespace kiln::ir {
namespace {

// Shortest round-trip spelling of a quantization scale.
std::string ScaleToString(double d) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%.17g", d);
  std::string s = buf;
  // Prefer the shortest exact form.
  for (int prec = 1; prec <= 17; ++prec) {
    snprintf(buf, sizeof(buf), "%.*g", prec, d);
    if (strtod(buf, nullptr) == d) {
      s = buf;
      break;
    }
  }
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string QuantToString(const QuantType& q) {
  std::string s = "!quant.uniform<";
  s += Name(q.storage);
  bool custom_range = false;
  if (IsInteger(q.storage)) {
    int bits = BitWidth(q.storage);
    int64_t lo = KindOf(q.storage) == ElementKind::kSigned ? -(int64_t(1) << (bits - 1)) : 0;
    int64_t hi = KindOf(q.storage) == ElementKind::kSigned ? (int64_t(1) << (bits - 1)) - 1
                 : bits >= 64 ? INT64_MAX : (int64_t(1) << bits) - 1;
    custom_range = q.storage_min != lo || q.storage_max != hi;
  }
  if (custom_range)
    s += "<" + std::to_string(q.storage_min) + ":" + std::to_string(q.storage_max) + ">";
  if (q.expressed != ElementType::kInvalid) {
    s += ":";
    s += Name(q.expressed);
  }
  if (q.quantized_dimension >= 0) {
    s += ":" + std::to_string(q.quantized_dimension) + ", {";
    for (size_t i = 0; i < q.scales.size(); ++i) {
      if (i) s += ", ";
      s += ScaleToString(q.scales[i]);
      s += ":" + std::to_string(i < q.zero_points.size() ? q.zero_points[i] : 0);
    }
    s += "}>";
  } else {
    s += ", " + ScaleToString(q.scales.empty() ? 1.0 : q.scales[0]);
    s += ":" + std::to_string(q.zero_points.empty() ? 0 : q.zero_points[0]);
    s += ">";
  }
  return s;
}

}  // namespace

bool Type::HasStaticShape() const {
  if (kind != Kind::kTensor) return false;
  for (int64_t d : dims)
    if (d == kDynamic) return false;
  return true;
}

int64_t Type::NumElements() const {
  if (!HasStaticShape()) return -1;
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d != 0 && n > INT64_MAX / d) return -1;  // the parser rejects such types
    n *= d;
  }
  return n;
}

bool Type::operator==(const Type& o) const {
  if (kind != o.kind) return false;
  if (kind == Kind::kToken) return true;
  if (kind == Kind::kTuple || kind == Kind::kFuture) return tuple_elements == o.tuple_elements;
  if (element != o.element || dims != o.dims || bounds != o.bounds) return false;
  if ((quant == nullptr) != (o.quant == nullptr)) return false;
  return quant == nullptr || *quant == *o.quant;
}

std::string Type::ToString() const {
  if (kind == Kind::kToken) return "!stablehlo.token";
  if (kind == Kind::kTuple || kind == Kind::kFuture) {
    std::string s = kind == Kind::kTuple ? "tuple<" : "!stablehlo.future<";
    for (size_t i = 0; i < tuple_elements.size(); ++i) {
      if (i) s += ", ";
      s += tuple_elements[i].ToString();
    }
    return s + ">";
  }
  std::string s = "tensor<";
  for (int64_t d : dims) {
    s += d == kDynamic ? std::string("?") : std::to_string(d);
    s += 'x';
  }
  if (quant)
    s += QuantToString(*quant);
  else
    s += element == ElementType::kInvalid ? std::string_view("invalid") : Name(element);
  if (!bounds.empty()) {
    s += ", #stablehlo.bounds<";
    for (size_t i = 0; i < bounds.size(); ++i) {
      if (i) s += ", ";
      s += bounds[i] == kDynamic ? std::string("?") : std::to_string(bounds[i]);
    }
    s += ">";
  }
  return s + ">";
}

size_t Attribute::DenseElementCount() const {
  if (dense_splat) return static_cast<size_t>(type.NumElements());
  const size_t w = StorageBytes(type.element);
  return w ? dense_bytes.size() / w : 0;
}

const uint8_t* Attribute::DenseElement(size_t k) const {
  return dense_splat ? dense_bytes.data() : dense_bytes.data() + k * StorageBytes(type.element);
}

std::vector<uint8_t> Attribute::ExpandedDenseBytes() const {
  if (!dense_splat) return dense_bytes;
  const size_t w = dense_bytes.size(), n = DenseElementCount();
  std::vector<uint8_t> out(n * w);
  for (size_t k = 0; k < n; ++k) memcpy(out.data() + k * w, dense_bytes.data(), w);
  return out;
}

const Attribute* Attribute::Field(std::string_view name) const {
  for (const auto& [n, a] : fields)
    if (n == name) return &a;
  return nullptr;
}

std::optional<std::vector<int64_t>> Attribute::AsInts() const {
  switch (kind) {
    case Kind::kIntArray:
      return ints;
    case Kind::kInt:
      return std::vector<int64_t>{i};
    case Kind::kArray: {
      std::vector<int64_t> out;
      out.reserve(elements.size());
      for (const auto& e : elements) {
        if (e.kind != Kind::kInt) return std::nullopt;
        out.push_back(e.i);
      }
      return out;
    }
    case Kind::kDense: {
      ElementType et = type.element;
      if (!IsInteger(et) && !IsBool(et)) return std::nullopt;
      size_t w = StorageBytes(et);
      if (w == 0 || dense_bytes.size() % w) return std::nullopt;
      std::vector<int64_t> out(DenseElementCount());
      bool is_signed = KindOf(et) == ElementKind::kSigned;
      for (size_t k = 0; k < out.size(); ++k) {
        uint64_t u = 0;
        memcpy(&u, DenseElement(k), w);  // little-endian host
        if (is_signed && w < 8 && (u >> (8 * w - 1)) & 1) u |= ~uint64_t(0) << (8 * w);
        out[k] = static_cast<int64_t>(u);
      }
      return out;
    }
    default:
      return std::nullopt;
  }
}

bool Attribute::operator==(const Attribute& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::kUnit: return true;
    case Kind::kBool: return b == o.b;
    case Kind::kInt: return i == o.i && type == o.type;
    case Kind::kFloat:  // bitwise, so that NaN attributes compare equal to themselves
      return memcmp(&f, &o.f, sizeof f) == 0 && type == o.type;
    case Kind::kString:
    case Kind::kEnum:
    case Kind::kSymbol: return str == o.str;
    case Kind::kIntArray: return ints == o.ints && type == o.type;
    case Kind::kDense: return type == o.type && dense_splat == o.dense_splat && dense_bytes == o.dense_bytes;
    case Kind::kArray: return elements == o.elements;
    case Kind::kDict: return fields == o.fields;
    case Kind::kStruct: return str == o.str && fields == o.fields;
    case Kind::kType: return type == o.type;
  }
  return false;
}

const Attribute* Operation::GetAttr(std::string_view attr_name) const {
  for (const auto& [n, a] : attrs)
    if (n == attr_name) return &a;
  for (const auto& [n, a] : attrs)
    if (a.kind == Attribute::Kind::kStruct)
      if (const Attribute* f = a.Field(attr_name)) return f;
  return nullptr;
}

void Operation::SetAttr(std::string attr_name, Attribute a) {
  for (auto& [n, v] : attrs)
    if (n == attr_name) {
      v = std::move(a);
      return;
    }
  attrs.emplace_back(std::move(attr_name), std::move(a));
}

Function* Module::FindFunction(std::string_view function_name) const {
  for (const auto& f : functions)
    if (f->name == function_name) return f.get();
  return nullptr;
}

std::unique_ptr<Operation> NewOperation(std::string name, Location loc, Block* block) {
  auto op = std::make_unique<Operation>();
  op->name = std::move(name);
  op->loc = loc;
  op->parent = block;
  return op;
}

Value* AddResult(Operation* op, Type type) {
  auto v = std::make_unique<Value>();
  v->type = std::move(type);
  v->def = op;
  v->index = static_cast<int>(op->results.size());
  op->results.push_back(std::move(v));
  return op->results.back().get();
}

void FillDenseSplat(Attribute* a, const uint8_t* element, size_t width, uint64_t count) {
  a->dense_splat = count > 1 && count * width >= kCompactSplatBytes;
  if (a->dense_splat) {
    a->dense_bytes.assign(element, element + width);
    return;
  }
  a->dense_bytes.resize(count * width);
  for (uint64_t k = 0; k < count; ++k) std::memcpy(a->dense_bytes.data() + k * width, element, width);
}

Attribute DenseSplat(const Type& type, const uint8_t* element) {
  Attribute a;
  a.kind = Attribute::Kind::kDense;
  a.type = type;
  FillDenseSplat(&a, element, StorageBytes(type.element), static_cast<uint64_t>(std::max<int64_t>(type.NumElements(), 0)));
  return a;
}

Attribute Global::InitialValue() const {
  if (initial.kind == Attribute::Kind::kDense) return initial;
  const std::vector<uint8_t> zero(StorageBytes(type.element), 0);
  return DenseSplat(type, zero.data());
}

const Global* Module::FindGlobal(std::string_view global_name) const {
  for (const auto& g : globals)
    if (g.name == global_name) return &g;
  return nullptr;
}

}  // namespace kiln::ir
