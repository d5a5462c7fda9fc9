// The chlo.broadcast_<op> legalization (compiler/passes/legalize.h): each op
// becomes explicit broadcasts plus the elementwise op, in place in its block;
// the op's result values move to the new op, so their uses stay valid.
#include <memory>
#include <string>
#include <vector>

#include "compiler/op_names.h"
#include "compiler/passes/legalize.h"
#include "kernels/common/scalar_program.h"

namespace kiln::compiler {
namespace {

// chlo.broadcast_<base>: the chlo prefix, then this stem.
constexpr std::string_view kStem = "broadcast_";

bool IsChloBroadcast(std::string_view name) {
  return name.substr(0, op_names::kChloPrefix.size()) == op_names::kChloPrefix &&
         name.substr(op_names::kChloPrefix.size(), kStem.size()) == kStem;
}

// The elementwise op a chlo.broadcast_<base> applies: chlo's own for the
// three that stablehlo lacks.
ScalarOp BaseOp(std::string_view name, std::string* base_name) {
  std::string base(name.substr(op_names::kChloPrefix.size() + kStem.size()));
  const bool chlo_only = base == "next_after" || base == "polygamma" || base == "zeta";
  *base_name = std::string(chlo_only ? op_names::kChloPrefix : op_names::kStablehloPrefix) + base;
  return ScalarOpFromName(*base_name);
}

bool Quantized(const ir::Operation& op) {
  for (const auto* v : op.operands)
    if (v->type.is_quantized()) return true;
  for (const auto& r : op.results)
    if (r->type.is_quantized()) return true;
  return false;
}

// Rewrites `block.ops[at]`; returns how many ops now stand in its place.
StatusOr<size_t> Rewrite(ir::Block* block, size_t at) {
  ir::Operation& op = *block->ops[at];
  std::string base_name;
  if (BaseOp(op.name, &base_name) == ScalarOp::kInvalid || op.results.size() != 1)
    return Unimplemented(op.name + " is not supported");
  const ir::Type& rt = op.result()->type;
  if (!rt.HasStaticShape()) return Unimplemented(op.name + ": a result of dynamic shape is not supported yet");
  const ir::Attribute* bdims = op.GetAttr("broadcast_dimensions");
  std::vector<std::unique_ptr<ir::Operation>> inserted;
  auto elementwise = std::make_unique<ir::Operation>();
  for (ir::Value* v : op.operands) {
    const ir::Type& t = v->type;
    if (t.dims == rt.dims) {
      elementwise->operands.push_back(v);
      continue;
    }
    // Operand dimension i goes to result dimension map[i].
    std::vector<int64_t> map;
    if (bdims && t.rank() < rt.rank() && bdims->AsInts() && static_cast<int64_t>(bdims->AsInts()->size()) == t.rank())
      map = *bdims->AsInts();
    else
      for (int64_t i = 0; i < t.rank(); ++i) map.push_back(rt.rank() - t.rank() + i);
    auto b = std::make_unique<ir::Operation>();
    b->name = KernelName(KernelId::kBroadcastInDim);
    b->loc = op.loc;
    b->parent = block;
    b->operands.push_back(v);
    ir::Attribute dims;
    dims.kind = ir::Attribute::Kind::kIntArray;
    dims.type.element = ElementType::kSI64;
    dims.ints = std::move(map);
    b->attrs.emplace_back("broadcast_dimensions", std::move(dims));
    auto r = std::make_unique<ir::Value>();
    r->type = ir::Type::Tensor(t.element, rt.dims);
    r->def = b.get();
    elementwise->operands.push_back(r.get());
    b->results.push_back(std::move(r));
    inserted.push_back(std::move(b));
  }
  elementwise->name = base_name;
  elementwise->loc = op.loc;
  elementwise->parent = block;
  for (const auto& a : op.attrs)
    if (a.first != "broadcast_dimensions") elementwise->attrs.push_back(a);
  elementwise->results = std::move(op.results);
  for (auto& r : elementwise->results) r->def = elementwise.get();
  inserted.push_back(std::move(elementwise));
  const size_t n = inserted.size();
  block->ops[at] = std::move(inserted.back());
  inserted.pop_back();
  block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(inserted.begin()),
                    std::make_move_iterator(inserted.end()));
  return n;
}

Status LegalizeBlock(ir::Block* block, const ErrorFormatter& format_error) {
  for (size_t i = 0; i < block->ops.size();) {
    ir::Operation& op = *block->ops[i];
    for (auto& region : op.regions)
      for (auto& b : region->blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format_error));
    if (!IsChloBroadcast(op.name) || Quantized(op)) {
      ++i;
      continue;
    }
    auto n = Rewrite(block, i);
    if (!n.ok()) return Status(n.status().code(), format_error(op.loc, n.status().message()));
    i += n.value();
  }
  return Status::Ok();
}

}  // namespace

Status LegalizeChloBroadcast(ir::Module* module, const ErrorFormatter& format_error) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format_error));
  return Status::Ok();
}

}  // namespace kiln::compiler
