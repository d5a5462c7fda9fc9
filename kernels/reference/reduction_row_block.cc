// Reference kiln.row_block (row_block.h): runs the units one after the
// other through their own reference kernels, each intermediate result
// materialised in a temporary tensor, the last unit into the output.
#include <algorithm>
#include <new>
#include <string>

#include "kernels/reference/kernels.h"
#include "kernels/reference/registry.h"
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

Status kernel::RowBlock(const KernelCall& c) {
  std::vector<RowBlockUnit> units;
  KILN_RETURN_IF_ERROR(ParseRowBlock(c.params, c.inputs.size(), &units));
  if (c.outputs.size() != 1) return InvalidArgument(std::string(kName) + ": expected one result");
  const std::vector<int64_t>& last = units.back().dims;
  if (!std::equal(last.begin(), last.end(), c.outputs[0].dims.begin(), c.outputs[0].dims.end()))
    return InvalidArgument(std::string(kName) + ": the last unit's dims are not the result's");
  std::vector<TensorRef> values(c.inputs.begin(), c.inputs.end());
  std::vector<ElementType> types;
  for (const TensorRef& t : c.inputs) types.push_back(t.type);
  std::vector<std::vector<uint8_t>> storage(units.size());
  for (size_t k = 0; k < units.size(); ++k) {
    const RowBlockUnit& u = units[k];
    const std::string where = std::string(kName) + ": unit " + std::to_string(k);
    KernelFn fn = FindReferenceKernel(u.params.kernel);
    if (fn == nullptr) return Unimplemented(where + ": this build lacks " + u.params.kernel);
    std::vector<TensorRef> ins;
    for (int64_t v : u.inputs) ins.push_back(values[static_cast<size_t>(v)]);
    TensorRef out;
    if (k + 1 == units.size()) {
      out = c.outputs[0];
    } else {
      const ElementType type = RowBlockUnitType(u, types);
      const size_t bytes = StorageBytes(type);
      if (bytes == 0) return InvalidArgument(where + ": cannot tell its result type");
      int64_t n = 1;
      for (int64_t d : u.dims) n *= d;  // ParseRowBlock bounded it
      try {
        storage[k].assign(static_cast<size_t>(n) * bytes, 0);
      } catch (const std::bad_alloc&) {
        return ResourceExhausted(where + ": no memory for its result");
      }
      out = TensorRef{type, u.dims, storage[k].data(), storage[k].size()};
    }
    const KernelCall call{u.params, ins, std::span<const TensorRef>(&out, 1), c.runner};
    Status s = fn(call);
    if (!s.ok()) return Status(s.code(), where + " (" + u.params.kernel + "): " + s.message());
    values.push_back(out);
    types.push_back(out.type);
  }
  return Status::Ok();
}

}  // namespace kiln::ref
