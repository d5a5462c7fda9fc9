// Verifier checks of ops with regions: reduce, reduce_window,
// select_and_scatter, map, and the control flow ops while, if, case.
#include <algorithm>

#include "compiler/verify/verify_util.h"
#include "compiler/op_names.h"

namespace kiln::compiler::verify {
namespace {

std::string VariadicInputsInits(const ir::Operation& op, size_t* n_out) {
  size_t total = op.operands.size();
  if (total == 0 || total % 2 != 0 || op.results.size() != total / 2)
    return Msg(op, "expects N inputs, N init_values and N results with N > 0, got " + Num(total) + " operands and " +
                       Num(op.results.size()) + " results", "C1");
  if (!AllTensors(op)) return Msg(op, "operands and results must be tensors");
  size_t n = total / 2;
  const ir::Type& in0 = op.operands[0]->type;
  for (size_t i = 0; i < n; ++i) {
    const ir::Type& t = op.operands[i]->type;
    const ir::Type& init = op.operands[n + i]->type;
    if (!ShapesCompatible(t, in0))
      return Msg(op, "input " + Num(i) + " type " + TypeStr(t) + " must have the shape of input 0 " + TypeStr(in0),
                 op.name == KernelName(KernelId::kReduce) ? "C1" : "C2");
    if (!SameBaselineElement(t, init))
      return Msg(op, "input " + Num(i) + " type " + TypeStr(t) + " and init value type " + TypeStr(init) +
                         " must have the same element type", op.name == KernelName(KernelId::kReduce) ? "C2" : "C3");
    if (init.rank() != 0) return Msg(op, "init value " + Num(i) + " type " + TypeStr(init) + " must be rank 0");
  }
  *n_out = n;
  return "";
}

std::string CheckResults(const ir::Operation& op, size_t n, const std::vector<int64_t>& shape,
                         const std::vector<ir::Type>& body, std::string_view c_shape, std::string_view c_elem) {
  for (size_t i = 0; i < n; ++i) {
    const ir::Type& r = op.result(static_cast<int>(i))->type;
    KILN_VERIFY_TRY(CheckResultShape(op, r, shape, c_shape, "result " + Num(i)));
    if (i < body.size() && !SameBaselineElement(r, body[i]) &&
        !(r.is_quantized() || body[i].is_quantized()))
      return Msg(op, "result " + Num(i) + " type " + TypeStr(r) + " must have the element type of the body's result " +
                         TypeStr(body[i]), c_elem);
  }
  return "";
}

std::vector<const ir::Type*> FirstTypes(const ir::Operation& op, size_t n) {
  std::vector<const ir::Type*> v;
  for (size_t i = 0; i < n; ++i) v.push_back(&op.operands[i]->type);
  return v;
}

std::string Reduce(const ir::Operation& op, const Context&) {
  size_t n = 0;
  KILN_VERIFY_TRY(VariadicInputsInits(op, &n));
  const ir::Type& in0 = op.operands[0]->type;
  auto dims = Ints(op, "dimensions");
  if (!dims) return Msg(op, "needs a dimensions attribute");
  KILN_VERIFY_TRY(CheckRange(op, *dims, in0.rank(), "dimensions", "C4"));
  KILN_VERIFY_TRY(CheckUnique(op, *dims, "dimensions", "C5"));
  std::vector<ir::Type> body;
  if (op.regions.empty()) return Msg(op, "needs a body region", "C6");
  KILN_VERIFY_TRY(CheckReducerBody(op, *op.regions[0], "body", FirstTypes(op, n), "C6", &body));
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < in0.rank(); ++d)
    if (std::find(dims->begin(), dims->end(), d) == dims->end()) shape.push_back(in0.dims[d]);
  return CheckResults(op, n, shape, body, "C7", "C8");
}

// num_windows per dimension (kDyn where the input is dynamic).
std::vector<int64_t> NumWindows(const std::vector<int64_t>& in, const std::vector<int64_t>& base_dil,
                                const std::vector<int64_t>& pad, const std::vector<int64_t>& win,
                                const std::vector<int64_t>& win_dil, const std::vector<int64_t>& strides) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] == kDyn) {
      out.push_back(kDyn);
      continue;
    }
    int64_t dil_in = in[d] == 0 ? 0 : (in[d] - 1) * base_dil[d] + 1;
    int64_t padded = pad[2 * d] + dil_in + pad[2 * d + 1];
    int64_t dil_w = (win[d] - 1) * win_dil[d] + 1;
    bool empty = padded <= 0 || dil_w > padded;
    out.push_back(empty ? 0 : (padded - dil_w) / strides[d] + 1);
  }
  return out;
}

std::string Positive(const ir::Operation& op, const std::vector<int64_t>& v, std::string_view what,
                     std::string_view c) {
  for (int64_t x : v)
    if (x <= 0) return Msg(op, std::string(what) + " " + IntsStr(v) + " must be positive", c);
  return "";
}

std::string Padding(const ir::Operation& op, int64_t rank, std::string_view c, std::vector<int64_t>* pad) {
  pad->assign(2 * rank, 0);
  if (!op.GetAttr("padding")) return "";
  auto m = Matrix2D(op, "padding");
  if (m && m->rows == rank && m->cols == 2) {
    *pad = m->v;
    return "";
  }
  if (rank == 0 && (!m || m->v.empty())) return "";
  return Msg(op, "padding must have shape [" + Num(rank) + ", 2]" +
                     (m ? ", got [" + Num(m->rows) + ", " + Num(m->cols) + "]" : std::string()), c);
}

std::string ReduceWindow(const ir::Operation& op, const Context&) {
  size_t n = 0;
  KILN_VERIFY_TRY(VariadicInputsInits(op, &n));
  const ir::Type& in0 = op.operands[0]->type;
  int64_t rank = in0.rank();
  std::vector<int64_t> ones(rank, 1);
  auto win = Ints(op, "window_dimensions");
  if (!win) return Msg(op, "needs a window_dimensions attribute");
  KILN_VERIFY_TRY(CheckSize(op, *win, rank, "window_dimensions", "C4", "the input rank"));
  KILN_VERIFY_TRY(Positive(op, *win, "window_dimensions", "C5"));
  auto strides = Ints(op, "window_strides").value_or(ones);
  KILN_VERIFY_TRY(CheckSize(op, strides, rank, "window_strides", "C6", "the input rank"));
  KILN_VERIFY_TRY(Positive(op, strides, "window_strides", "C7"));
  auto base = Ints(op, "base_dilations").value_or(ones);
  KILN_VERIFY_TRY(CheckSize(op, base, rank, "base_dilations", "C8", "the input rank"));
  KILN_VERIFY_TRY(Positive(op, base, "base_dilations", "C9"));
  auto wdil = Ints(op, "window_dilations").value_or(ones);
  KILN_VERIFY_TRY(CheckSize(op, wdil, rank, "window_dilations", "C10", "the input rank"));
  KILN_VERIFY_TRY(Positive(op, wdil, "window_dilations", "C11"));
  std::vector<int64_t> pad;
  KILN_VERIFY_TRY(Padding(op, rank, "C12", &pad));
  std::vector<ir::Type> body;
  if (op.regions.empty()) return Msg(op, "needs a body region", "C13");
  KILN_VERIFY_TRY(CheckReducerBody(op, *op.regions[0], "body", FirstTypes(op, n), "C13", &body));
  return CheckResults(op, n, NumWindows(in0.dims, base, pad, *win, wdil, strides), body, "C15", "C16");
}

std::string SelectAndScatter(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 3 || op.results.size() != 1 || !AllTensors(op))
    return Msg(op, "expects operand, source and init_value tensors and one tensor result");
  const ir::Type& in = op.operands[0]->type;
  const ir::Type& src = op.operands[1]->type;
  const ir::Type& init = op.operands[2]->type;
  const ir::Type& rt = op.result()->type;
  int64_t rank = in.rank();
  if (!SameBaselineElement(in, src))
    return Msg(op, "operand " + TypeStr(in) + " and source " + TypeStr(src) + " must have the same element type",
               "C1");
  if (!SameBaselineElement(in, init) || init.rank() != 0)
    return Msg(op, "init_value " + TypeStr(init) + " must be a rank-0 tensor of the operand's element type", "C3");
  std::vector<int64_t> ones(rank, 1);
  auto win = Ints(op, "window_dimensions").value_or(ones);
  KILN_VERIFY_TRY(CheckSize(op, win, rank, "window_dimensions", "C4", "the operand rank"));
  KILN_VERIFY_TRY(Positive(op, win, "window_dimensions", "C5"));
  // Absent window_strides means 1s (as upstream's verifier and interpreter
  // read it, and as the kernels do), not the window dimensions.
  auto strides = Ints(op, "window_strides").value_or(ones);
  KILN_VERIFY_TRY(CheckSize(op, strides, rank, "window_strides", "C6", "the operand rank"));
  KILN_VERIFY_TRY(Positive(op, strides, "window_strides", "C7"));
  std::vector<int64_t> pad;
  KILN_VERIFY_TRY(Padding(op, rank, "C8", &pad));
  KILN_VERIFY_TRY(CheckResultShape(op, src, NumWindows(in.dims, ones, pad, win, ones, strides), "C2", "source"));
  if (op.regions.size() != 2) return Msg(op, "needs select and scatter regions");
  RegionSig sel = Signature(*op.regions[0]);
  bool ok = sel.ok && sel.inputs.size() == 2 && sel.outputs.size() == 1 && sel.outputs[0]->is_tensor() &&
            sel.outputs[0]->rank() == 0 && sel.outputs[0]->element == ElementType::kI1;
  for (size_t i = 0; ok && i < 2; ++i)
    ok = sel.inputs[i]->is_tensor() && sel.inputs[i]->rank() == 0 && SameBaselineElement(*sel.inputs[i], in);
  if (!ok)
    return Msg(op, "select has type " + TypesStr(sel.inputs) + " -> " + TypesStr(sel.outputs) +
                       ", expected (tensor<E>, tensor<E>) -> tensor<i1> with E the operand's element type", "C9");
  std::vector<ir::Type> body;
  KILN_VERIFY_TRY(CheckReducerBody(op, *op.regions[1], "scatter", {&in}, "C10", &body));
  if (!ShapesCompatible(in, rt))
    return Msg(op, "operand type " + TypeStr(in) + " and result type " + TypeStr(rt) + " must have the same shape",
               "C11");
  if (!body.empty() && !SameBaselineElement(rt, body[0]))
    return Msg(op, "result type " + TypeStr(rt) + " must have the element type of the scatter result " +
                       TypeStr(body[0]), "C12");
  return "";
}

std::string Map(const ir::Operation& op, const Context&) {
  if (op.operands.empty()) return Msg(op, "needs at least one input", "C2");
  if (op.results.size() != 1 || !AllTensors(op)) return Msg(op, "expects tensor inputs and one tensor result");
  const ir::Type& rt = op.result()->type;
  for (size_t i = 0; i < op.operands.size(); ++i)
    if (!ShapesCompatible(op.operands[i]->type, rt))
      return Msg(op, "input " + Num(i) + " type " + TypeStr(op.operands[i]->type) + " must have the result shape " +
                         TypeStr(rt), "C1");
  int64_t rank = op.operands[0]->type.rank();
  if (auto dims = Ints(op, "dimensions")) {
    bool ok = static_cast<int64_t>(dims->size()) == rank;
    for (int64_t i = 0; ok && i < rank; ++i) ok = (*dims)[i] == i;
    if (!ok) return Msg(op, "dimensions " + IntsStr(*dims) + " must be [0, ..., " + Num(rank - 1) + "]", "C3");
  }
  if (op.regions.empty()) return Msg(op, "needs a computation region", "C4");
  RegionSig s = Signature(*op.regions[0]);
  bool ok = s.ok && s.inputs.size() == op.operands.size() && s.outputs.size() == 1 && s.outputs[0]->is_tensor() &&
            s.outputs[0]->rank() == 0 && SameBaselineElement(*s.outputs[0], rt);
  for (size_t i = 0; ok && i < s.inputs.size(); ++i)
    ok = s.inputs[i]->is_tensor() && s.inputs[i]->rank() == 0 && SameBaselineElement(*s.inputs[i], op.operands[i]->type);
  if (!ok)
    return Msg(op, "computation has type " + TypesStr(s.inputs) + " -> " + TypesStr(s.outputs) +
                       ", expected rank-0 tensors of the inputs' element types to one of the result's", "C4");
  return "";
}

std::string TypesMatch(const std::vector<const ir::Type*>& a, const std::vector<const ir::Type*>& b) {
  if (a.size() != b.size()) return "count";
  for (size_t i = 0; i < a.size(); ++i)
    if (!TypesCompatible(*a[i], *b[i])) return "type";
  return "";
}

std::vector<const ir::Type*> OperandTypes(const ir::Operation& op, size_t first = 0) {
  std::vector<const ir::Type*> v;
  for (size_t i = first; i < op.operands.size(); ++i) v.push_back(&op.operands[i]->type);
  return v;
}

std::vector<const ir::Type*> ResultTypes(const ir::Operation& op) {
  std::vector<const ir::Type*> v;
  for (const auto& r : op.results) v.push_back(&r->type);
  return v;
}

std::string While(const ir::Operation& op, const Context&) {
  if (op.regions.size() != 2) return Msg(op, "needs cond and body regions");
  auto operands = OperandTypes(op);
  RegionSig cond = Signature(*op.regions[0]);
  RegionSig body = Signature(*op.regions[1]);
  if (!cond.ok || !TypesMatch(cond.inputs, operands).empty() || cond.outputs.size() != 1 ||
      !cond.outputs[0]->is_tensor() || cond.outputs[0]->rank() != 0 || cond.outputs[0]->element != ElementType::kI1)
    return Msg(op, "cond has type " + TypesStr(cond.inputs) + " -> " + TypesStr(cond.outputs) + ", expected " +
                       TypesStr(operands) + " -> tensor<i1>", "C1");
  if (!body.ok || !TypesMatch(body.inputs, operands).empty() || !TypesMatch(body.outputs, operands).empty())
    return Msg(op, "body has type " + TypesStr(body.inputs) + " -> " + TypesStr(body.outputs) + ", expected " +
                       TypesStr(operands) + " -> " + TypesStr(operands), "C2");
  auto results = ResultTypes(op);
  if (!TypesMatch(results, operands).empty())
    return Msg(op, "result types " + TypesStr(results) + " must be the operand types " + TypesStr(operands), "C3");
  return "";
}

std::string Branches(const ir::Operation& op, size_t first_region, std::string_view c_inputs,
                     std::string_view c_same, std::string_view c_results) {
  auto results = ResultTypes(op);
  RegionSig first = Signature(*op.regions[first_region]);
  for (size_t i = first_region; i < op.regions.size(); ++i) {
    RegionSig s = Signature(*op.regions[i]);
    std::string name = op.name == compiler::op_names::kIf ? (i == 0 ? "true_branch" : "false_branch")
                                                 : "branch " + Num(i);
    if (!s.ok) return Msg(op, name + " must be one block ending in stablehlo.return");
    if (!s.inputs.empty()) return Msg(op, name + " must take no arguments, got " + TypesStr(s.inputs), c_inputs);
    if (!TypesMatch(s.outputs, first.outputs).empty())
      return Msg(op, name + " returns " + TypesStr(s.outputs) + ", but the first branch returns " +
                         TypesStr(first.outputs), c_same);
  }
  if (!TypesMatch(results, first.outputs).empty())
    return Msg(op, "result types " + TypesStr(results) + " must be the branches' output types " +
                       TypesStr(first.outputs), c_results);
  return "";
}

std::string If(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 1 || !IsTensor(op.operands[0]) || op.operands[0]->type.rank() != 0 ||
      op.operands[0]->type.element != ElementType::kI1)
    return Msg(op, "pred must be one tensor<i1>");
  if (op.regions.size() != 2) return Msg(op, "needs true and false branches");
  return Branches(op, 0, "C1", "C2", "C3");
}

std::string Case(const ir::Operation& op, const Context&) {
  if (op.operands.size() != 1 || !IsTensor(op.operands[0]) || op.operands[0]->type.rank() != 0 ||
      op.operands[0]->type.element != ElementType::kSI32)
    return Msg(op, "index must be one tensor<i32>");
  if (op.regions.empty()) return Msg(op, "needs at least one branch", "C1");
  return Branches(op, 0, "C2", "C3", "C4");
}

}  // namespace

void RegisterReduction(Registry* r) {
  (*r)["stablehlo.reduce"] = &Reduce;
  (*r)["stablehlo.reduce_window"] = &ReduceWindow;
  (*r)["stablehlo.select_and_scatter"] = &SelectAndScatter;
  (*r)["stablehlo.map"] = &Map;
  (*r)["stablehlo.while"] = &While;
  (*r)["stablehlo.if"] = &If;
  (*r)["stablehlo.case"] = &Case;
}

}  // namespace kiln::compiler::verify
