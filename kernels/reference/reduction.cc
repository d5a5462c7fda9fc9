// Reference reduction kernels: stablehlo.reduce, stablehlo.reduce_window
// and stablehlo.select_and_scatter. Region bodies run through
// RunScalarProgram, one call per combined element, in the spec's order:
// every reduction starts from the init values and folds the reduced elements
// in row-major order, acc = body(acc..., x...).
//
// One exception to the row-major fold, shared with the fast CPU kernel so
// both give the same bits at every thread count: a reduce whose body is one
// f32, f64, f16 or bf16 add (reduction_order.h) and whose reduced elements of each
// result are contiguous in memory sums them in the fixed 16-lane tree order
// of reduction_order.h.
//
// A reduce may carry a fused producer (compiler/passes/fuse_elementwise.h):
// the program "input" computes the reduced operand, of dims "input_dims",
// from the dispatch's leading inputs (read through "input_broadcast" as
// kiln.elementwise reads its inputs); the init value follows them. The
// reference materialises that operand, then reduces it.
//
// Where a body's parameter types differ from the tensors' element types (the
// spec lets reduce/reduce_window bodies work in a promoted type), values are
// converted to the parameter types on the way in and back to the result
// element types on the way out.
#include <string>
#include <vector>

#include <cstring>
#include <new>

#include "kernels/reference/elementwise_inputs.h"
#include "kernels/reference/kernels.h"
#include "kernels/reference/numeric_util.h"
#include "kernels/reference/reduction_order.h"

namespace kiln::ref {
namespace {

using numeric::CheckCall;
using numeric::CheckDims;
using numeric::KernelName;
using numeric::Load;
using numeric::ProgramRunner;
using numeric::Store;

Scalar Convert(ElementType from, ElementType to, const Scalar& s) {
  return from == to ? s : ConvertScalar(from, to, s);
}

// Checks the variadic shape of reduce/reduce_window: N inputs of one shape,
// N rank-0 init values, N outputs; the body takes 2N params, returns N.
Status CheckVariadic(const KernelCall& c, ProgramRunner* body) {
  const size_t n = c.outputs.size();
  if (n == 0 || c.inputs.size() != 2 * n)
    return InvalidArgument(KernelName(c) + ": expected N inputs, N init values and N results");
  KILN_RETURN_IF_ERROR(CheckCall(c, 2 * n, n));
  for (size_t k = 1; k < n; ++k)
    KILN_RETURN_IF_ERROR(CheckDims(c, c.inputs[k], c.inputs[0].dims, "input " + std::to_string(k)));
  for (size_t k = 0; k < n; ++k)
    if (c.inputs[n + k].rank() != 0) return InvalidArgument(KernelName(c) + ": init values must be rank 0");
  KILN_RETURN_IF_ERROR(numeric::MakeRunner(c, "body", 2 * n, n, body));
  return Status::Ok();
}

// Feeds (acc..., x...) to the body and stores the new accumulators. `acc` and
// `x` hold values in the body's parameter types.
void Fold(ProgramRunner& body, size_t n, std::vector<Scalar>& params, std::vector<Scalar>& results,
          Scalar* acc) {
  for (size_t k = 0; k < n; ++k) params[k] = acc[k];
  body.Run(params.data(), results.data());
  const ScalarProgram& p = *body.program;
  for (size_t k = 0; k < n; ++k) acc[k] = Convert(p.ValueType(p.results[k]), p.param_types[k], results[k]);
}

Status ReduceOperand(const KernelCall& c) {
  ProgramRunner body;
  KILN_RETURN_IF_ERROR(CheckVariadic(c, &body));
  const size_t n = c.outputs.size();
  const TensorRef& in0 = c.inputs[0];
  const int64_t rank = in0.rank();
  std::vector<bool> reduced;
  KILN_RETURN_IF_ERROR(numeric::CheckAxes(c, c.params.Ints("dimensions"), rank, "dimensions", &reduced));
  std::vector<int64_t> kept, out_dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d]) {
      kept.push_back(d);
      out_dims.push_back(in0.dims[d]);
    }
  for (size_t k = 0; k < n; ++k) KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[k], out_dims, "result"));
  const ScalarProgram& p = *body.program;

  // Accumulators per output element, in the body's accumulator types.
  const int64_t out_n = NumElementsOf(out_dims);
  std::vector<Scalar> acc(static_cast<size_t>(out_n) * n);
  for (size_t k = 0; k < n; ++k) {
    Scalar init = Convert(c.inputs[n + k].type, p.param_types[k], Load(c.inputs[n + k], 0));
    for (int64_t o = 0; o < out_n; ++o) acc[o * n + k] = init;
  }
  std::vector<Scalar> params(2 * n), results(n);
  const ElementType tree_type = n == 1 ? TreeSumType(p) : ElementType::kInvalid;
  if (tree_type != ElementType::kInvalid && c.inputs[0].type == tree_type && c.inputs[1].type == tree_type &&
      c.outputs[0].type == tree_type && ReducedElementsContiguous(in0.dims, reduced)) {
    // Each result's inputs are one contiguous run of `r` elements.
    const int64_t r = out_n == 0 ? 0 : in0.NumElements() / out_n;
    std::vector<float> row;
    for (int64_t o = 0; o < out_n; ++o) {
      if (tree_type == ElementType::kF32) {
        float init, sum;
        std::memcpy(&init, c.inputs[1].data, sizeof init);
        sum = TreeSum(reinterpret_cast<const float*>(in0.data) + o * r, static_cast<size_t>(r), init);
        std::memcpy(c.outputs[0].At(o), &sum, sizeof sum);
      } else if (tree_type == ElementType::kF64) {
        double init, sum;
        std::memcpy(&init, c.inputs[1].data, sizeof init);
        sum = TreeSum(reinterpret_cast<const double*>(in0.data) + o * r, static_cast<size_t>(r), init);
        std::memcpy(c.outputs[0].At(o), &sum, sizeof sum);
      } else {
        // f16/bf16: values (exactly) in f32, each add rounded to the type.
        auto round = [&](float v) { return static_cast<float>(RoundToFloatType(tree_type, v)); };
        row.resize(static_cast<size_t>(r));
        for (int64_t i = 0; i < r; ++i) row[i] = static_cast<float>(Load(in0, o * r + i).re);
        const float init = static_cast<float>(Load(c.inputs[1], 0).re);
        Scalar sum;
        sum.re = TreeSum(row.data(), static_cast<size_t>(r), init, round);
        Store(c.outputs[0], o, sum);
      }
    }
    return Status::Ok();
  }
  if (in0.NumElements() > 0) {
    auto os = RowMajorStrides(out_dims);
    std::vector<int64_t> idx(rank, 0);
    int64_t linear = 0;
    do {
      int64_t o = 0;
      for (size_t j = 0; j < kept.size(); ++j) o += idx[kept[j]] * os[j];
      for (size_t k = 0; k < n; ++k)
        params[n + k] = Convert(c.inputs[k].type, p.param_types[n + k], Load(c.inputs[k], linear));
      Fold(body, n, params, results, &acc[o * n]);
      ++linear;
    } while (NextIndex(in0.dims, idx));
  }
  for (int64_t o = 0; o < out_n; ++o)
    for (size_t k = 0; k < n; ++k)
      Store(c.outputs[k], o, Convert(p.param_types[k], c.outputs[k].type, acc[o * n + k]));
  return Status::Ok();
}

// A reduce with a fused producer: materialise the operand, then reduce it.
Status Reduce(const KernelCall& c) {
  const ScalarProgram* input = c.params.Program("input");
  if (input == nullptr) return ReduceOperand(c);
  KILN_RETURN_IF_ERROR(VerifyScalarProgram(*input));
  const size_t num_params = input->param_types.size();
  if (input->results.size() != 1 || c.inputs.size() != num_params + 1 || c.outputs.size() != 1)
    return InvalidArgument(KernelName(c) + ": a fused input program needs its params, one init value and one result");
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (int64_t d : c.params.Ints("input_dims")) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return InvalidArgument(KernelName(c) + ": bad input_dims");
    dims.push_back(d);
  }
  const ElementType type = input->ValueType(input->results[0]);
  const size_t bytes = StorageBytes(type);
  if (bytes == 0 || count > (int64_t{1} << 40) / static_cast<int64_t>(bytes))
    return InvalidArgument(KernelName(c) + ": input_dims too large");
  std::vector<uint8_t> operand;
  try {
    operand.resize(static_cast<size_t>(count) * bytes);
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(KernelName(c) + ": no memory for the fused operand");
  }
  TensorRef temp{type, dims, operand.data(), operand.size()};
  const KernelCall produce{c.params, c.inputs.first(num_params), std::span<const TensorRef>(&temp, 1), c.runner};
  KILN_RETURN_IF_ERROR(RunElementwiseProgram(produce, input, c.params.Find("input_broadcast")));
  const TensorRef reduce_inputs[2] = {temp, c.inputs[num_params]};
  const KernelCall reduce{c.params, reduce_inputs, c.outputs, c.runner};
  return ReduceOperand(reduce);
}

// Window geometry shared by reduce_window and select_and_scatter.
struct Window {
  std::vector<int64_t> dims, strides, base_dil, win_dil, padding;  // padding: rank x 2
  std::vector<int64_t> out_dims;

  // The input position of window tap `w` of output `o` along dim d, or -1
  // when the tap falls on padding or a base-dilation hole.
  int64_t InputPos(size_t d, int64_t o, int64_t w, int64_t in_dim) const {
    const int64_t pos = o * strides[d] + w * win_dil[d] - padding[2 * d];
    if (pos < 0 || pos % base_dil[d] != 0 || pos / base_dil[d] >= in_dim) return -1;
    return pos / base_dil[d];
  }
};

Status MakeWindow(const KernelCall& c, std::span<const int64_t> in_dims, bool dilations, Window* w) {
  const auto& p = c.params;
  const size_t r = in_dims.size();
  auto wd = p.Ints("window_dimensions");
  if (wd.size() != r) return InvalidArgument(KernelName(c) + ": window_dimensions must have one entry per dim");
  w->dims.assign(wd.begin(), wd.end());
  bool ok = numeric::IntsOr(p, "window_strides", r, 1, &w->strides) &&
            numeric::IntsOr(p, "padding", 2 * r, 0, &w->padding);
  if (dilations) {
    ok = ok && numeric::IntsOr(p, "base_dilations", r, 1, &w->base_dil) &&
         numeric::IntsOr(p, "window_dilations", r, 1, &w->win_dil);
  } else {
    w->base_dil.assign(r, 1);
    w->win_dil.assign(r, 1);
  }
  if (!ok) return InvalidArgument(KernelName(c) + ": window attribute has the wrong length");
  w->out_dims.resize(r);
  for (size_t d = 0; d < r; ++d) {
    if (w->dims[d] <= 0 || w->strides[d] <= 0 || w->base_dil[d] <= 0 || w->win_dil[d] <= 0)
      return InvalidArgument(KernelName(c) + ": window sizes, strides and dilations must be positive");
    // Attributes come from the module file: compute in checked arithmetic.
    int64_t dilated_in = 0, padded = 0, dilated_win = 0;
    bool overflow = false;
    if (in_dims[d] != 0) {
      overflow |= __builtin_mul_overflow(in_dims[d] - 1, w->base_dil[d], &dilated_in);
      overflow |= __builtin_add_overflow(dilated_in, 1, &dilated_in);
    }
    overflow |= __builtin_add_overflow(w->padding[2 * d], dilated_in, &padded);
    overflow |= __builtin_add_overflow(padded, w->padding[2 * d + 1], &padded);
    overflow |= __builtin_mul_overflow(w->dims[d] - 1, w->win_dil[d], &dilated_win);
    overflow |= __builtin_add_overflow(dilated_win, 1, &dilated_win);
    if (overflow) return InvalidArgument(KernelName(c) + ": window attributes overflow");
    w->out_dims[d] = padded < dilated_win ? 0 : (padded - dilated_win) / w->strides[d] + 1;
  }
  return Status::Ok();
}

Status ReduceWindow(const KernelCall& c) {
  ProgramRunner body;
  KILN_RETURN_IF_ERROR(CheckVariadic(c, &body));
  const size_t n = c.outputs.size();
  const TensorRef& in0 = c.inputs[0];
  Window win;
  KILN_RETURN_IF_ERROR(MakeWindow(c, in0.dims, true, &win));
  for (size_t k = 0; k < n; ++k) KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[k], win.out_dims, "result"));
  if (NumElementsOf(win.out_dims) == 0) return Status::Ok();
  const ScalarProgram& p = *body.program;
  const size_t r = in0.dims.size();
  auto is = RowMajorStrides(in0.dims);

  std::vector<Scalar> init(n), acc(n), params(2 * n), results(n);
  std::vector<Scalar> init_as_elem(n);
  for (size_t k = 0; k < n; ++k) {
    Scalar v = Load(c.inputs[n + k], 0);
    init[k] = Convert(c.inputs[n + k].type, p.param_types[k], v);
    init_as_elem[k] = Convert(c.inputs[n + k].type, p.param_types[n + k], v);
  }
  std::vector<int64_t> oi(r, 0), wi(r, 0);
  int64_t linear = 0;
  do {
    acc = init;
    std::fill(wi.begin(), wi.end(), 0);
    do {
      // Padding and dilation holes hold the init value (spec: pad with init).
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < r && inside; ++d) {
        const int64_t pos = win.InputPos(d, oi[d], wi[d], in0.dims[d]);
        if (pos < 0) inside = false;
        off += pos * is[d];
      }
      for (size_t k = 0; k < n; ++k)
        params[n + k] =
            inside ? Convert(c.inputs[k].type, p.param_types[n + k], Load(c.inputs[k], off)) : init_as_elem[k];
      Fold(body, n, params, results, acc.data());
    } while (NextIndex(win.dims, wi));
    for (size_t k = 0; k < n; ++k) Store(c.outputs[k], linear, Convert(p.param_types[k], c.outputs[k].type, acc[k]));
    ++linear;
  } while (NextIndex(win.out_dims, oi));
  return Status::Ok();
}

// select_and_scatter: per source element, pick the operand element of its
// window with `select` (first valid element, then x replaces the current
// pick when select(current, x) is false), then fold the source values into
// the picked positions with `scatter`, starting from init_value. Padding
// positions are never picked; a window of only padding scatters nothing.
Status SelectAndScatter(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 3, 1));
  const TensorRef& operand = c.inputs[0];
  const TensorRef& source = c.inputs[1];
  const TensorRef& init = c.inputs[2];
  const TensorRef& out = c.outputs[0];
  if (init.rank() != 0) return InvalidArgument(KernelName(c) + ": init_value must be rank 0");
  KILN_RETURN_IF_ERROR(CheckDims(c, out, operand.dims, "result"));
  Window win;
  KILN_RETURN_IF_ERROR(MakeWindow(c, operand.dims, false, &win));
  KILN_RETURN_IF_ERROR(CheckDims(c, source, win.out_dims, "source"));
  ProgramRunner select, scatter;
  KILN_RETURN_IF_ERROR(numeric::MakeRunner(c, "select", 2, 1, &select));
  KILN_RETURN_IF_ERROR(numeric::MakeRunner(c, "scatter", 2, 1, &scatter));
  const ScalarProgram& sp = *select.program;
  const ScalarProgram& cp = *scatter.program;

  const int64_t total = operand.NumElements();
  std::vector<Scalar> acc(total, Convert(init.type, cp.param_types[0], Load(init, 0)));
  if (source.NumElements() > 0 && total > 0) {
    const size_t r = operand.dims.size();
    auto is = RowMajorStrides(operand.dims);
    std::vector<int64_t> si(r, 0), wi(r, 0);
    int64_t s_linear = 0;
    Scalar sparams[2], sres[1];
    do {
      int64_t picked = -1;
      Scalar picked_val;
      std::fill(wi.begin(), wi.end(), 0);
      do {
        int64_t off = 0;
        bool inside = true;
        for (size_t d = 0; d < r && inside; ++d) {
          const int64_t pos = win.InputPos(d, si[d], wi[d], operand.dims[d]);
          if (pos < 0) inside = false;
          off += pos * is[d];
        }
        if (!inside) continue;
        Scalar x = Load(operand, off);
        if (picked < 0) {
          picked = off;
          picked_val = x;
          continue;
        }
        sparams[0] = Convert(operand.type, sp.param_types[0], picked_val);
        sparams[1] = Convert(operand.type, sp.param_types[1], x);
        select.Run(sparams, sres);
        if (sres[0].i == 0) {
          picked = off;
          picked_val = x;
        }
      } while (NextIndex(win.dims, wi));
      if (picked >= 0) {
        sparams[0] = acc[picked];
        sparams[1] = Convert(source.type, cp.param_types[1], Load(source, s_linear));
        scatter.Run(sparams, sres);
        acc[picked] = Convert(cp.ValueType(cp.results[0]), cp.param_types[0], sres[0]);
      }
      ++s_linear;
    } while (NextIndex(win.out_dims, si));
  }
  for (int64_t i = 0; i < total; ++i) Store(out, i, Convert(cp.param_types[0], out.type, acc[i]));
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::Reduce(const KernelCall& call) { return ref::Reduce(call); }
Status kernel::ReduceWindow(const KernelCall& call) { return ref::ReduceWindow(call); }
Status kernel::SelectAndScatter(const KernelCall& call) { return ref::SelectAndScatter(call); }

}  // namespace kiln::ref
