// Reference batch normalization kernels: stablehlo.batch_norm_inference,
// stablehlo.batch_norm_training and stablehlo.batch_norm_grad.
// Choice for the reference: each follows the spec's decomposition formula,
// evaluated in double and rounded once per result element (the spec's
// decomposition rounds after every elementwise op in the element type; the
// difference is within the tolerance the conformance checks allow).
// Variance is the biased (population) variance, as in the spec.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/reference/numeric_util.h"
#include "kernels/reference/kernels.h"

namespace kiln::ref {
namespace {

using numeric::CheckCall;
using numeric::CheckDims;
using numeric::KernelName;
using numeric::Load;
using numeric::ToDouble;

// Shared shape checks; fills the feature index and the per-element feature.
struct FeatureLayout {
  int64_t feature_index = 0;
  int64_t features = 0;
  int64_t inner = 1;  // elements after the feature dim (row-major stride)
  int64_t Feature(int64_t linear) const { return (linear / inner) % features; }
};

Status Layout(const KernelCall& c, const TensorRef& operand, FeatureLayout* f) {
  const std::string name = KernelName(c);
  if (!IsFloat(operand.type)) return InvalidArgument(name + ": operand must be a float tensor");
  f->feature_index = c.params.Int("feature_index");
  if (f->feature_index < 0 || f->feature_index >= operand.rank())
    return InvalidArgument(name + ": feature_index out of range");
  f->features = operand.dims[f->feature_index];
  f->inner = 1;
  for (int64_t d = f->feature_index + 1; d < operand.rank(); ++d) f->inner *= operand.dims[d];
  return Status::Ok();
}

Status CheckVector(const KernelCall& c, const TensorRef& t, const FeatureLayout& f, const char* what) {
  const int64_t dims[1] = {f.features};
  return CheckDims(c, t, dims, what);
}

std::vector<double> LoadVector(const TensorRef& t) {
  std::vector<double> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = ToDouble(t.type, Load(t, i));
  return v;
}

void StoreVector(const TensorRef& t, const std::vector<double>& v) {
  for (size_t i = 0; i < v.size(); ++i) numeric::Store(t, i, numeric::FromDouble(t.type, v[i]));
}

// result = (x - mean) / sqrt(variance + epsilon) * scale + offset.
void Normalize(const TensorRef& operand, const TensorRef& out, const FeatureLayout& f,
               const std::vector<double>& scale, const std::vector<double>& offset,
               const std::vector<double>& mean, const std::vector<double>& var, double eps) {
  for (int64_t i = 0; i < operand.NumElements(); ++i) {
    const int64_t k = f.Feature(i);
    const double x = ToDouble(operand.type, Load(operand, i));
    const double y = (x - mean[k]) / std::sqrt(var[k] + eps) * scale[k] + offset[k];
    numeric::Store(out, i, numeric::FromDouble(out.type, y));
  }
}

Status BatchNormInference(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 5, 1));
  FeatureLayout f;
  KILN_RETURN_IF_ERROR(Layout(c, c.inputs[0], &f));
  const char* names[4] = {"scale", "offset", "mean", "variance"};
  for (int i = 0; i < 4; ++i) KILN_RETURN_IF_ERROR(CheckVector(c, c.inputs[1 + i], f, names[i]));
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[0], c.inputs[0].dims, "result"));
  Normalize(c.inputs[0], c.outputs[0], f, LoadVector(c.inputs[1]), LoadVector(c.inputs[2]), LoadVector(c.inputs[3]),
            LoadVector(c.inputs[4]), c.params.Float("epsilon"));
  return Status::Ok();
}

// Per-feature sums of f(element, feature) over every non-feature dim.
template <typename F>
std::vector<double> FeatureSums(const TensorRef& t, const FeatureLayout& f, F fn) {
  std::vector<double> s(f.features, 0.0);
  for (int64_t i = 0; i < t.NumElements(); ++i) s[f.Feature(i)] += fn(i, f.Feature(i));
  return s;
}

Status BatchNormTraining(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 3, 3));
  const TensorRef& x = c.inputs[0];
  FeatureLayout f;
  KILN_RETURN_IF_ERROR(Layout(c, x, &f));
  KILN_RETURN_IF_ERROR(CheckVector(c, c.inputs[1], f, "scale"));
  KILN_RETURN_IF_ERROR(CheckVector(c, c.inputs[2], f, "offset"));
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[0], x.dims, "output"));
  KILN_RETURN_IF_ERROR(CheckVector(c, c.outputs[1], f, "batch_mean"));
  KILN_RETURN_IF_ERROR(CheckVector(c, c.outputs[2], f, "batch_var"));
  // Per-feature element count; with zero of them mean and variance are NaN (0/0).
  const double count = f.features == 0 ? 0.0 : static_cast<double>(x.NumElements() / f.features);
  auto mean = FeatureSums(x, f, [&](int64_t i, int64_t) { return ToDouble(x.type, Load(x, i)); });
  for (double& m : mean) m /= count;
  auto var = FeatureSums(x, f, [&](int64_t i, int64_t k) {
    const double d = ToDouble(x.type, Load(x, i)) - mean[k];
    return d * d;
  });
  for (double& v : var) v /= count;
  Normalize(x, c.outputs[0], f, LoadVector(c.inputs[1]), LoadVector(c.inputs[2]), mean, var,
            c.params.Float("epsilon"));
  StoreVector(c.outputs[1], mean);
  StoreVector(c.outputs[2], var);
  return Status::Ok();
}

// The spec's batch_norm_grad decomposition (from XLA's batchnorm_expander).
Status BatchNormGrad(const KernelCall& c) {
  KILN_RETURN_IF_ERROR(CheckCall(c, 5, 3));
  const TensorRef& x = c.inputs[0];
  const TensorRef& g = c.inputs[4];
  FeatureLayout f;
  KILN_RETURN_IF_ERROR(Layout(c, x, &f));
  KILN_RETURN_IF_ERROR(CheckVector(c, c.inputs[1], f, "scale"));
  KILN_RETURN_IF_ERROR(CheckVector(c, c.inputs[2], f, "mean"));
  KILN_RETURN_IF_ERROR(CheckVector(c, c.inputs[3], f, "variance"));
  KILN_RETURN_IF_ERROR(CheckDims(c, g, x.dims, "grad_output"));
  KILN_RETURN_IF_ERROR(CheckDims(c, c.outputs[0], x.dims, "grad_operand"));
  KILN_RETURN_IF_ERROR(CheckVector(c, c.outputs[1], f, "grad_scale"));
  KILN_RETURN_IF_ERROR(CheckVector(c, c.outputs[2], f, "grad_offset"));
  const double eps = c.params.Float("epsilon");
  const auto scale = LoadVector(c.inputs[1]), mean = LoadVector(c.inputs[2]), var = LoadVector(c.inputs[3]);
  const double count = f.features == 0 ? 0.0 : static_cast<double>(x.NumElements() / f.features);
  auto centered = [&](int64_t i, int64_t k) { return ToDouble(x.type, Load(x, i)) - mean[k]; };
  auto grad = [&](int64_t i) { return ToDouble(g.type, Load(g, i)); };
  const auto sum_g = FeatureSums(g, f, [&](int64_t i, int64_t) { return grad(i); });          // i2
  const auto sum_gc = FeatureSums(g, f, [&](int64_t i, int64_t k) { return grad(i) * centered(i, k); });  // i3
  std::vector<double> grad_scale(f.features);
  for (int64_t k = 0; k < f.features; ++k) grad_scale[k] = sum_gc[k] / std::sqrt(var[k] + eps);
  const TensorRef& go = c.outputs[0];
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const int64_t k = f.Feature(i);
    const double stddev = std::sqrt(var[k] + eps);
    const double i1 = grad(i) * count;
    const double i5 = sum_gc[k] * centered(i, k) / (var[k] + eps);
    const double i6 = i1 - sum_g[k] - i5;
    numeric::Store(go, i, numeric::FromDouble(go.type, scale[k] / stddev / count * i6));
  }
  StoreVector(c.outputs[1], grad_scale);
  StoreVector(c.outputs[2], sum_g);
  return Status::Ok();
}

}  // namespace

// This file's kernels of kernels/kernels.def (kernels/reference/kernels.h).
Status kernel::BatchNormInference(const KernelCall& call) { return ref::BatchNormInference(call); }
Status kernel::BatchNormTraining(const KernelCall& call) { return ref::BatchNormTraining(call); }
Status kernel::BatchNormGrad(const KernelCall& call) { return ref::BatchNormGrad(call); }

}  // namespace kiln::ref
