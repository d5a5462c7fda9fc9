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

}  // namespace

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
