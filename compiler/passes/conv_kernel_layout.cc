// The Vulkan target's constant convolution kernels with their output
// features last (compiler/passes/conv_kernel_layout.h).
#include "compiler/passes/conv_kernel_layout.h"

#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "compiler/passes/rewrite_util.h"

namespace kiln::compiler {
namespace {

ir::Attribute* ConvDimensionNumbers(ir::Operation* conv) {
  for (auto& [name, a] : conv->attrs)
    if (a.kind == ir::Attribute::Kind::kStruct && a.str == "#stablehlo.conv") return &a;
  return nullptr;
}

ir::Attribute* FieldOf(ir::Attribute* s, std::string_view name) {
  for (auto& [n, f] : s->fields)
    if (n == name) return &f;
  return nullptr;
}

// `value`'s elements with dim `last` of `dims` moved innermost.
std::vector<uint8_t> MoveDimLast(const ir::Attribute& value, const std::vector<int64_t>& dims, size_t last,
                                 size_t width) {
  const std::vector<uint8_t> in = value.ExpandedDenseBytes();
  std::vector<uint8_t> out(in.size());
  // The old layout read as [outer, moved, inner]: the moved dim's stride is
  // `inner` elements.
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < last; ++d) outer *= dims[d];
  for (size_t d = last + 1; d < dims.size(); ++d) inner *= dims[d];
  const int64_t moved = dims[last];
  size_t k = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      for (int64_t m = 0; m < moved; ++m, ++k)
        std::memcpy(&out[k * width], &in[static_cast<size_t>((o * moved + m) * inner + i) * width], width);
  return out;
}

// A static f32 tensor of rank 2 or more: the blocked shader's kernels.
bool MovableType(const ir::Type& t) {
  return t.is_tensor() && !t.is_quantized() && t.element == ElementType::kF32 && t.HasStaticShape() && t.rank() >= 2;
}

const ir::Attribute* ConstantValue(const ir::Value* v) {
  if (!v->def || v->def->name != "stablehlo.constant" || !MovableType(v->type)) return nullptr;
  const ir::Attribute* value = v->def->GetAttr("value");
  return value && value->kind == ir::Attribute::Kind::kDense ? value : nullptr;
}

// A convolution's kernel dims, or nulls where it has none to read.
struct KernelDims {
  ir::Attribute* in = nullptr;       // kernel_input_feature_dimension
  ir::Attribute* out = nullptr;      // kernel_output_feature_dimension
  ir::Attribute* spatial = nullptr;  // kernel_spatial_dimensions
};

KernelDims KernelDimsOf(ir::Operation* conv) {
  if (conv->name != "stablehlo.convolution" || conv->operands.size() != 2) return {};
  ir::Attribute* dn = ConvDimensionNumbers(conv);
  if (!dn) return {};
  KernelDims k{FieldOf(dn, "kernel_input_feature_dimension"), FieldOf(dn, "kernel_output_feature_dimension"),
               FieldOf(dn, "kernel_spatial_dimensions")};
  if (!k.in || !k.out || !k.spatial) return {};
  return k;
}

// Whether the kernel's output-feature dim, `out`, is one to move: not last.
bool Movable(const KernelDims& k, int64_t rank) {
  return k.out && k.out->i >= 0 && k.out->i < rank - 1;
}

// The kernel dims renumbered for the kernel with dim `out` moved last.
void Renumber(const KernelDims& k, int64_t rank) {
  const int64_t out = k.out->i;
  auto moved = [&](int64_t d) { return d == out ? rank - 1 : d < out ? d : d - 1; };
  k.in->i = moved(k.in->i);
  for (int64_t& d : k.spatial->ints) d = moved(d);
  k.out->i = rank - 1;
}

// A new constant (not yet in a block) holding `value`, of `type`, with dim
// `out` moved last.
std::unique_ptr<ir::Operation> MovedConstant(const ir::Operation& at, ir::Block* block, const ir::Attribute& old,
                                             const ir::Type& old_type, int64_t out) {
  const size_t last = static_cast<size_t>(out);
  ir::Type type = old_type;
  type.dims.erase(type.dims.begin() + static_cast<std::ptrdiff_t>(last));
  type.dims.push_back(old_type.dims[last]);
  ir::Attribute value = old;
  if (!value.dense_splat) value.dense_bytes = MoveDimLast(old, old_type.dims, last, StorageBytes(type.element));
  value.type = type;
  auto constant = ir::NewOperation("stablehlo.constant", at.loc, block);
  constant->attrs.emplace_back("value", std::move(value));
  ir::AddResult(constant.get(), type);
  return constant;
}

void RewriteBlock(ir::Block* block, std::set<ir::Operation*>* replaced) {
  // The moved copies made in this block, by kernel and output-feature dim:
  // convolutions here that read one kernel alike share one copy.
  std::map<std::pair<const ir::Value*, int64_t>, ir::Value*> copies;
  for (size_t at = 0; at < block->ops.size(); ++at) {
    ir::Operation& conv = *block->ops[at];
    for (auto& r : conv.regions)
      for (auto& b : r->blocks) RewriteBlock(b.get(), replaced);
    const KernelDims k = KernelDimsOf(&conv);
    if (!k.out) continue;
    const ir::Attribute* value = ConstantValue(conv.operands[1]);
    const ir::Type old_type = conv.operands[1]->type;
    if (!value || !Movable(k, old_type.rank())) continue;
    ir::Value*& copy = copies[{conv.operands[1], k.out->i}];
    if (copy == nullptr) {
      replaced->insert(conv.operands[1]->def);
      auto constant = MovedConstant(*conv.operands[1]->def, block, *value, old_type, k.out->i);
      copy = constant->result();
      block->ops.insert(block->ops.begin() + static_cast<std::ptrdiff_t>(at), std::move(constant));
      ++at;  // past the new constant, to the convolution
    }
    conv.operands[1] = copy;
    Renumber(k, old_type.rank());
  }
}

// Removes the constants in `replaced` that nothing reads any more.
void EraseUnread(ir::Block* block, const std::map<const ir::Value*, int>& uses,
                 const std::set<ir::Operation*>& replaced) {
  std::erase_if(block->ops, [&](const std::unique_ptr<ir::Operation>& op) {
    return replaced.count(op.get()) && !uses.count(op->result());
  });
  for (auto& op : block->ops)
    for (auto& r : op->regions)
      for (auto& b : r->blocks) EraseUnread(b.get(), uses, replaced);
}

// The operand slots that read a value, over every function.
struct Reader {
  ir::Operation* op;
  size_t operand;
};

void CollectReaders(ir::Block* block, std::map<const ir::Value*, std::vector<Reader>>* readers,
                    std::vector<ir::Operation*>* calls) {
  for (auto& op : block->ops) {
    for (size_t i = 0; i < op->operands.size(); ++i) (*readers)[op->operands[i]].push_back({op.get(), i});
    if (op->name == "func.call" || op->name == "call") calls->push_back(op.get());
    for (auto& r : op->regions)
      for (auto& b : r->blocks) CollectReaders(b.get(), readers, calls);
  }
}

// The kernels of convolutions reading result `i` of every call in
// `sites`, all with one output-feature dim; empty if anything else reads
// one of those results.
std::vector<KernelDims> KernelReaders(const std::vector<ir::Operation*>& sites, size_t i,
                                      std::map<const ir::Value*, std::vector<Reader>>& readers) {
  std::vector<KernelDims> kernels;
  for (ir::Operation* site : sites) {
    if (i >= site->results.size()) return {};
    for (const Reader& r : readers[site->result(static_cast<int>(i))]) {
      KernelDims k = KernelDimsOf(r.op);
      if (!k.out || r.operand != 1 || (!kernels.empty() && k.out->i != kernels[0].out->i)) return {};
      kernels.push_back(k);
    }
  }
  return kernels;
}

// Whether attribute `a` names the symbol `name` anywhere inside it.
bool NamesSymbol(const ir::Attribute& a, const std::string& name) {
  if (a.kind == ir::Attribute::Kind::kSymbol && a.str == name) return true;
  for (const ir::Attribute& e : a.elements)
    if (NamesSymbol(e, name)) return true;
  for (const auto& [n, f] : a.fields)
    if (NamesSymbol(f, name)) return true;
  return false;
}

// Whether something other than a call's callee names function `name` (a
// composite's decomposition, a custom call's computations): its result
// types are then not this pass's to change.
bool NamedOtherThanByCalls(const ir::Block& block, const std::string& name) {
  for (const auto& op : block.ops) {
    const bool call = op->name == "func.call" || op->name == "call";
    for (const auto& [n, a] : op->attrs)
      if (!(call && n == "callee") && NamesSymbol(a, name)) return true;
    for (const auto& r : op->regions)
      for (const auto& b : r->blocks)
        if (NamedOtherThanByCalls(*b, name)) return true;
  }
  return false;
}

// Constants that a private function returns for its callers to use as
// convolution kernels (a weights function serving several entry points,
// as examples/models/ writes them) are moved inside it, its result type and
// its calls' following, where every reader of that result at every call is
// the kernel of a convolution with the same output-feature dim.
void MoveReturnedKernels(ir::Module* module) {
  std::map<const ir::Value*, std::vector<Reader>> readers;
  std::vector<ir::Operation*> calls;
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) CollectReaders(b.get(), &readers, &calls);
  for (auto& g : module->functions) {
    if (g->is_public || g->body.blocks.size() != 1 || g->body.blocks[0]->ops.empty()) continue;
    bool named = false;
    for (const auto& f : module->functions)
      for (const auto& b : f->body.blocks) named = named || NamedOtherThanByCalls(*b, g->name);
    if (named) continue;
    ir::Block* body = g->body.blocks[0].get();
    ir::Operation* ret = body->ops.back().get();
    if ((ret->name != "func.return" && ret->name != "return") || ret->operands.size() != g->result_types.size())
      continue;
    std::vector<ir::Operation*> sites;
    for (ir::Operation* c : calls) {
      const ir::Attribute* callee = c->GetAttr("callee");
      if (callee && callee->str == g->name) sites.push_back(c);
    }
    std::set<ir::Operation*> replaced;
    for (size_t i = 0; i < ret->operands.size() && !sites.empty(); ++i) {
      const ir::Attribute* value = ConstantValue(ret->operands[i]);
      if (!value) continue;
      const ir::Type old_type = ret->operands[i]->type;
      const std::vector<KernelDims> kernels = KernelReaders(sites, i, readers);
      if (kernels.empty() || !Movable(kernels[0], old_type.rank())) continue;
      replaced.insert(ret->operands[i]->def);
      auto constant = MovedConstant(*ret->operands[i]->def, body, *value, old_type, kernels[0].out->i);
      const ir::Type type = constant->result()->type;
      ret->operands[i] = constant->result();
      body->ops.insert(body->ops.end() - 1, std::move(constant));
      g->result_types[i] = type;
      for (ir::Operation* site : sites) site->results[i]->type = type;
      for (const KernelDims& k : kernels) Renumber(k, old_type.rank());
    }
    if (replaced.empty()) continue;
    std::map<const ir::Value*, int> uses;
    CountUses(*body, &uses);
    EraseUnread(body, uses, replaced);
  }
}

}  // namespace

void MoveConstantConvKernelFeaturesLast(ir::Module* module) {
  MoveReturnedKernels(module);
  for (auto& f : module->functions) {
    std::set<ir::Operation*> replaced;
    for (auto& b : f->body.blocks) RewriteBlock(b.get(), &replaced);
    if (replaced.empty()) continue;
    std::map<const ir::Value*, int> uses;
    for (auto& b : f->body.blocks) CountUses(*b, &uses);
    for (auto& b : f->body.blocks) EraseUnread(b.get(), uses, replaced);
  }
}

}  // namespace kiln::compiler
