// From IR ops to kernel parameters: attribute flattening and region bodies
// as scalar-expression programs.
#include <algorithm>
#include <map>

#include "compiler/lower/kernel_params.h"
#include "compiler/lower/quantized_scalar.h"
#include "compiler/op_names.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {
namespace {

int64_t ComparisonDirectionCode(std::string_view s) {
  static const std::map<std::string_view, ComparisonDirection> m = {
      {"EQ", ComparisonDirection::kEQ}, {"NE", ComparisonDirection::kNE}, {"GE", ComparisonDirection::kGE},
      {"GT", ComparisonDirection::kGT}, {"LE", ComparisonDirection::kLE}, {"LT", ComparisonDirection::kLT}};
  auto it = m.find(s);
  return it == m.end() ? -1 : static_cast<int64_t>(it->second);
}

int64_t ComparisonTypeCode(std::string_view s) {
  static const std::map<std::string_view, ComparisonType> m = {
      {"", ComparisonType::kNotype},       {"NOTYPE", ComparisonType::kNotype},
      {"FLOAT", ComparisonType::kFloat},   {"TOTALORDER", ComparisonType::kTotalOrder},
      {"SIGNED", ComparisonType::kSigned}, {"UNSIGNED", ComparisonType::kUnsigned}};
  auto it = m.find(s);
  return it == m.end() ? -1 : static_cast<int64_t>(it->second);
}

// Appends `a` (named `name`) to `out`, flattening structured attributes.
void FlattenAttr(const std::string& name, const ir::Attribute& a, std::vector<KernelAttr>* out) {
  using K = ir::Attribute::Kind;
  KernelAttr k;
  k.name = name;
  switch (a.kind) {
    case K::kBool: k.ints = {a.b ? 1 : 0}; break;
    case K::kInt: k.ints = {a.i}; break;
    case K::kFloat: k.floats = {a.f}; break;
    case K::kString:
    case K::kEnum:
    case K::kSymbol: k.str = a.str; break;
    case K::kIntArray: k.ints = a.ints; break;
    case K::kDense: {
      ElementType t = a.type.element;
      size_t w = StorageBytes(t);
      const size_t count = w ? a.DenseElementCount() : 0;
      for (size_t e = 0; e < count; ++e) {
        Scalar s = ref::LoadScalar(t, a.DenseElement(e));
        if (IsFloat(t)) k.floats.push_back(s.re);
        else k.ints.push_back(s.i);
      }
      break;
    }
    case K::kArray: {
      for (const auto& e : a.elements) {
        if (e.kind == K::kInt) k.ints.push_back(e.i);
        else if (e.kind == K::kBool) k.ints.push_back(e.b);
        else if (e.kind == K::kEnum || e.kind == K::kString) k.str += (k.str.empty() ? "" : ",") + e.str;
        else if (auto v = e.AsInts()) k.ints.insert(k.ints.end(), v->begin(), v->end());
      }
      break;
    }
    case K::kStruct:
    case K::kDict:
      for (const auto& [fname, f] : a.fields) FlattenAttr(fname, f, out);
      return;
    default:
      return;  // unit, type: nothing a kernel reads
  }
  out->push_back(std::move(k));
}

void AddQuantAttrs(const std::string& prefix, const ir::QuantType& q, std::vector<KernelAttr>* out) {
  KernelAttr s{prefix + "scales", {}, q.scales, "", false, {}};
  KernelAttr z{prefix + "zero_points", q.zero_points, {}, "", false, {}};
  KernelAttr d{prefix + "quantized_dimension", {q.quantized_dimension}, {}, "", false, {}};
  KernelAttr lo{prefix + "storage_min", {q.storage_min}, {}, "", false, {}};
  KernelAttr hi{prefix + "storage_max", {q.storage_max}, {}, "", false, {}};
  for (auto* a : {&s, &z, &d, &lo, &hi}) out->push_back(std::move(*a));
}

Status Unsupported(const ir::Operation& op, const std::string& why) {
  return Unimplemented(op.name + ": " + why);
}

}  // namespace

// Builds the one-instruction scalar op for an elementwise op on `operands`
// (value indices in the program being built).
StatusOr<ScalarInstr> ScalarInstrForOp(const ir::Operation& op, const std::vector<uint16_t>& operands) {
  ScalarInstr in;
  in.op = ElementwiseScalarOp(op.name);
  if (in.op == ScalarOp::kInvalid || op.results.size() != 1 || !op.result()->type.is_tensor())
    return Unsupported(op, "is not an elementwise op");
  if (static_cast<int>(operands.size()) != ScalarOpArity(in.op))
    return Unsupported(op, "takes " + std::to_string(ScalarOpArity(in.op)) + " operands");
  in.type = op.result()->type.element;
  in.num_operands = static_cast<uint8_t>(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) in.operands[i] = operands[i];
  if (in.op == ScalarOp::kCompare) {
    const ir::Attribute* dir = op.GetAttr("comparison_direction");
    const ir::Attribute* ct = op.GetAttr("compare_type");
    in.attr0 = dir ? ComparisonDirectionCode(dir->str) : -1;
    in.attr1 = ct ? ComparisonTypeCode(ct->str) : 0;
    if (in.attr0 < 0 || in.attr1 < 0) return Unsupported(op, "has an invalid comparison direction or type");
  } else if (in.op == ScalarOp::kReducePrecision) {
    const ir::Attribute* e = op.GetAttr("exponent_bits");
    const ir::Attribute* m = op.GetAttr("mantissa_bits");
    if (!e || !m) return Unsupported(op, "needs exponent_bits and mantissa_bits");
    in.attr0 = e->i;
    in.attr1 = m->i;
  }
  return in;
}

StatusOr<ScalarProgram> RegionToScalarProgram(const ir::Region& region, bool lanewise) {
  if (region.blocks.size() != 1) return Unimplemented("a region with several blocks cannot be a scalar program");
  const ir::Block& block = *region.blocks[0];
  ScalarProgram p;
  std::map<const ir::Value*, uint16_t> index;
  for (const auto& arg : block.args) {
    // A quantized argument is its storage integer; the body's quantized ops
    // dequantize it (compiler/lower/quantized_scalar.h).
    if (!arg->type.is_tensor() || (arg->type.rank() != 0 && !lanewise) || (arg->type.is_quantized() && lanewise))
      return Unimplemented("region argument of type " + arg->type.ToString() + " (scalar programs take rank-0 tensors)");
    index[arg.get()] = static_cast<uint16_t>(p.param_types.size());
    p.param_types.push_back(arg->type.element);
  }
  for (const auto& opp : block.ops) {
    const ir::Operation& op = *opp;
    if (op_names::IsReturn(op.name)) {
      for (const ir::Value* v : op.operands) {
        auto it = index.find(v);
        if (it == index.end()) return Unimplemented("region returns a value defined outside it");
        p.results.push_back(it->second);
      }
      break;
    }
    if (op.results.size() != 1 || (op.result()->type.rank() != 0 && !lanewise))
      return Unsupported(op, "in a region body must produce one rank-0 tensor to become a scalar program");
    if (lanewise && op_names::IsConstant(op.name)) {
      // A lane-wide constant must be a splat to be one scalar.
      const ir::Attribute* v = op.GetAttr("value");
      size_t w = StorageBytes(op.result()->type.element);
      if (v && w && v->dense_bytes.size() > w)
        for (size_t off = w; off < v->dense_bytes.size(); off += w)
          if (!std::equal(v->dense_bytes.begin(), v->dense_bytes.begin() + w, v->dense_bytes.begin() + off))
            return Unsupported(op, "in a lane-wise body must be a splat");
    }
    ScalarInstr in;
    if (op_names::IsConstant(op.name)) {
      const ir::Attribute* v = op.GetAttr("value");
      if (!v || v->kind != ir::Attribute::Kind::kDense || v->dense_bytes.empty())
        return Unsupported(op, "needs a dense value");
      in.op = ScalarOp::kConstant;
      in.type = op.result()->type.element;
      in.constant = ref::LoadScalar(in.type, v->dense_bytes.data());
    } else {
      std::vector<uint16_t> operands;
      for (const ir::Value* v : op.operands) {
        auto it = index.find(v);
        if (it == index.end()) return Unsupported(op, "in a region body uses a value from outside the region");
        operands.push_back(it->second);
      }
      const bool quantized = op.result()->type.is_quantized() ||
                             std::any_of(op.operands.begin(), op.operands.end(),
                                         [](const ir::Value* v) { return v->type.is_quantized(); });
      if (quantized && !op_names::IsScalarOp(op.name, ScalarOp::kBitcastConvert)) {
        KILN_ASSIGN_OR_RETURN(index[op.result()], AppendQuantizedOp(&p, op, operands));
        continue;
      }
      KILN_ASSIGN_OR_RETURN(in, ScalarInstrForOp(op, operands));
    }
    index[op.result()] = static_cast<uint16_t>(p.num_values());
    p.instrs.push_back(in);
  }
  KILN_RETURN_IF_ERROR(ref::VerifyScalarProgram(p));
  return p;
}

StatusOr<KernelParams> KernelParamsForOp(const ir::Operation& op) {
  KernelParams p;
  p.kernel = op.name;
  for (const auto& [name, a] : op.attrs) FlattenAttr(name, a, &p.attrs);
  // The kernels with scalar-program regions, and their attribute names.
  struct RegionNames {
    KernelId kernel;
    const char* names[2];
  };
  static constexpr RegionNames kRegionNames[] = {
      {KernelId::kReduce, {"body", nullptr}},         {KernelId::kReduceWindow, {"body", nullptr}},
      {KernelId::kSort, {"comparator", nullptr}},     {KernelId::kScatter, {"update_computation", nullptr}},
      {KernelId::kMap, {"computation", nullptr}},     {KernelId::kSelectAndScatter, {"select", "scatter"}},
      {KernelId::kScan, {"body", nullptr}}};
  for (const auto& row : kRegionNames) {
    if (!op_names::IsKernelOp(op.name, row.kernel)) continue;
    for (size_t r = 0; r < op.regions.size() && r < 2 && row.names[r]; ++r) {
      auto prog = RegionToScalarProgram(*op.regions[r], row.kernel == KernelId::kScan);
      if (!prog.ok()) return Unsupported(op, "its body: " + prog.status().message());
      KernelAttr k;
      k.name = row.names[r];
      k.has_program = true;
      k.program = std::move(prog.value());
      p.attrs.push_back(std::move(k));
    }
  }
  if (!op.results.empty() && op.result()->type.is_quantized())
    AddQuantAttrs("", *op.result()->type.quant, &p.attrs);
  // A requantizing producer's accumulators (compiler/passes/
  // quantized_integer_contraction.h, FuseRequantizeIntoContractions).
  if (const ir::Attribute* t = op.GetAttr("product_type"); t != nullptr && t->kind == ir::Attribute::Kind::kType &&
                                                           t->type.is_quantized())
    AddQuantAttrs("product_", *t->type.quant, &p.attrs);
  // A quantized operand's parameters are "operand_*" when the result has its
  // own (requantization), and the plain names otherwise (dequantization).
  if (!op.operands.empty() && op.operands[0]->type.is_quantized()) {
    bool result_quantized = !op.results.empty() && op.result()->type.is_quantized();
    AddQuantAttrs(result_quantized ? "operand_" : "", *op.operands[0]->type.quant, &p.attrs);
  }
  return p;
}

ScalarOp ElementwiseScalarOp(const std::string& op_name) {
  // chlo.tan evaluates as stablehlo.tan (its own row, kTanChlo, keeps the
  // code of programs compiled before).
  const ScalarOp s = ScalarOpFromName(op_name);
  return s == ScalarOp::kTanChlo ? ScalarOp::kTan : s;
}

KernelParams ElementwiseKernel(ScalarProgram body, std::vector<KernelAttr> extra) {
  KernelParams p;
  p.kernel = "kiln.elementwise";
  KernelAttr b;
  b.name = "body";
  b.has_program = true;
  b.program = std::move(body);
  p.attrs.push_back(std::move(b));
  for (auto& a : extra) p.attrs.push_back(std::move(a));
  return p;
}

}  // namespace kiln::compiler
