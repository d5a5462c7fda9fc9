// kiln.row_block's attributes (kernels/reference/row_block.h): parsed here,
// in the common library, because the compiler's vulkan target reads them
// too (compiler/vulkan/kernels_row_block.cc) without the reference kernels.
#include <string>

#include "kernels/reference/row_block.h"

namespace kiln::ref {

namespace {

constexpr char kName[] = "kiln.row_block";

bool AllowedUnitKernel(std::string_view k) {
  return k == "stablehlo.reduce" || k == "kiln.elementwise" || k == "stablehlo.broadcast_in_dim" ||
         k == "stablehlo.reshape";
}

}  // namespace

Status ParseRowBlock(const KernelParams& params, size_t num_inputs, std::vector<RowBlockUnit>* units) {
  const int64_t count = params.Int("units", -1);
  if (count < 1 || count > kMaxRowBlockUnits)
    return InvalidArgument(std::string(kName) + ": \"units\" must be between 1 and " +
                           std::to_string(kMaxRowBlockUnits));
  units->assign(static_cast<size_t>(count), RowBlockUnit{});
  for (int64_t k = 0; k < count; ++k) {
    const std::string prefix = std::to_string(k) + ".";
    RowBlockUnit& u = (*units)[static_cast<size_t>(k)];
    bool has_kernel = false, has_inputs = false, has_dims = false;
    for (const KernelAttr& a : params.attrs) {
      if (a.name.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string name = a.name.substr(prefix.size());
      if (name == "kernel") {
        u.params.kernel = a.str;
        has_kernel = true;
      } else if (name == "inputs") {
        u.inputs = a.ints;
        has_inputs = true;
      } else if (name == "dims") {
        u.dims = a.ints;
        has_dims = true;
      } else {
        KernelAttr copy = a;
        copy.name = name;
        u.params.attrs.push_back(std::move(copy));
      }
    }
    const std::string where = std::string(kName) + ": unit " + std::to_string(k);
    if (!has_kernel || !has_inputs || !has_dims) return InvalidArgument(where + " needs kernel, inputs and dims");
    if (!AllowedUnitKernel(u.params.kernel)) return InvalidArgument(where + ": kernel '" + u.params.kernel + "' cannot be a unit");
    const int64_t available = static_cast<int64_t>(num_inputs) + k;
    for (int64_t v : u.inputs)
      if (v < 0 || v >= available) return InvalidArgument(where + ": input index out of range");
    int64_t n = 1;
    for (int64_t d : u.dims)
      if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > (int64_t{1} << 40))
        return InvalidArgument(where + ": bad dims");
  }
  return Status::Ok();
}

ElementType RowBlockUnitType(const RowBlockUnit& u, const std::vector<ElementType>& input_types) {
  if (u.inputs.empty()) return ElementType::kInvalid;
  if (u.params.kernel == "kiln.elementwise") {
    const ScalarProgram* body = u.params.Program("body");
    if (body == nullptr || body->results.size() != 1 || body->results[0] >= body->num_values())
      return ElementType::kInvalid;
    return body->ValueType(body->results[0]);
  }
  // A reduce's result has its init value's type; a broadcast or reshape its operand's.
  const int64_t v = u.params.kernel == "stablehlo.reduce" ? u.inputs.back() : u.inputs.front();
  return input_types[static_cast<size_t>(v)];
}

}  // namespace kiln::ref
