// The deprecated-op legalization (compiler/passes/legalize.h): ops that VHLO
// still carries but the StableHLO spec dropped become the spec ops that
// define them, so that lowering and every device meet only spec ops. Each
// rewrite keeps the op's result values (their uses stay valid: the last new
// op takes them over) and its location (errors and dispatch records still
// point at the source). The verifier does not check these ops' attributes
// beyond their presence, so each rewrite checks what it relies on and
// refuses the rest at the op.
#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "compiler/op_names.h"
#include "compiler/passes/legalize.h"
#include "compiler/passes/rewrite_util.h"
#include "kernels/kernel_table.h"
#include "kernels/scalar/scalar.h"

namespace kiln::compiler {
namespace {

// The verifier checks nothing of these ops but their names: each rewrite
// first checks the operand and result counts and kinds it relies on.
Status CheckArity(const ir::Operation& op, size_t operands, size_t results, const ErrorFormatter& format) {
  bool ok = op.operands.size() == operands && op.results.size() == results;
  for (const ir::Value* v : op.operands) ok = ok && v->type.is_tensor();
  for (const auto& r : op.results) ok = ok && r->type.is_tensor();
  if (!ok)
    return InvalidArgument(format(op.loc, op.name + " takes " + std::to_string(operands) + " tensor operand" +
                                              (operands == 1 ? "" : "s") + " and returns " + std::to_string(results) +
                                              " tensor" + (results == 1 ? "" : "s")));
  return Status::Ok();
}

// --- broadcast ---------------------------------------------------------------

// stablehlo.broadcast(x) {broadcast_sizes = [a0..aN]} is broadcast_in_dim
// with the operand's dimensions after the N+1 new leading ones (XLA's
// Broadcast: output[i0..iN, j0..jM] = operand[j0..jM]). Rewritten in place.
Status RewriteBroadcast(ir::Block* block, size_t at, const ErrorFormatter&, size_t* n) {
  ir::Operation* op = block->ops[at].get();
  const int64_t added = static_cast<int64_t>(op->GetAttr("broadcast_sizes")->AsInts()->size());
  std::vector<int64_t> dims(static_cast<size_t>(op->operands[0]->type.rank()));
  std::iota(dims.begin(), dims.end(), added);
  op->name = std::string(KernelName(KernelId::kBroadcastInDim));
  std::erase_if(op->attrs, [](const auto& a) { return a.first == "broadcast_sizes"; });
  op->attrs.emplace_back("broadcast_dimensions", ir::IntArrayAttr(std::move(dims)));
  *n = 1;
  return Status::Ok();
}

// --- trace -------------------------------------------------------------------

// stablehlo.trace(x) {tag}: a debugging annotation without results or
// effect on values; removed.
Status RewriteTrace(ir::Block* block, size_t at, const ErrorFormatter& format, size_t* n) {
  KILN_RETURN_IF_ERROR(CheckArity(*block->ops[at], 1, 0, format));
  block->ops.erase(block->ops.begin() + static_cast<std::ptrdiff_t>(at));
  *n = 0;
  return Status::Ok();
}

// --- einsum, unary_einsum ----------------------------------------------------

// One operand's labels ("abc"), checked against its rank: letters, each once.
Status EinsumLabels(const ir::Operation& op, const std::string& config, const std::string& labels,
                    const ir::Type* type, const ErrorFormatter& format) {
  const std::string what = op.name + " '" + config + "': ";
  for (size_t i = 0; i < labels.size(); ++i) {
    const char c = labels[i];
    if (!std::isalpha(static_cast<unsigned char>(c)))
      return InvalidArgument(format(op.loc, what + (labels.find('.') != std::string::npos
                                                        ? std::string("an ellipsis (...) is not supported")
                                                        : "'" + std::string(1, c) + "' is not a label (a letter)")));
    if (labels.find(c, i + 1) != std::string::npos)
      return InvalidArgument(format(op.loc, what + "label '" + std::string(1, c) +
                                                "' repeats in one operand or the result (a diagonal), which is "
                                                "not supported"));
  }
  if (type && static_cast<int64_t>(labels.size()) != type->rank())
    return InvalidArgument(format(op.loc, what + "'" + labels + "' has " + std::to_string(labels.size()) +
                                              " labels for an operand of rank " + std::to_string(type->rank())));
  return Status::Ok();
}

// Sums `x` (labelled `labels`) over the labels `keep` lacks, as a
// dot_general with ones (no reduce body needed); updates `labels`.
Status SumOutLabels(Ops* ops, const ir::Operation& op, ir::Block* block, ir::Value** x, std::string* labels,
                    const std::string& keep, const ErrorFormatter& format) {
  std::vector<int64_t> summed, summed_dims, kept_dims;
  std::string kept;
  for (size_t i = 0; i < labels->size(); ++i) {
    const int64_t d = (*x)->type.dims[i];
    if (keep.find((*labels)[i]) == std::string::npos) {
      if (d < 0)
        return InvalidArgument(format(op.loc, op.name + ": summing out label '" + std::string(1, (*labels)[i]) +
                                                  "' of a dynamic dimension is not supported"));
      summed.push_back(static_cast<int64_t>(i));
      summed_dims.push_back(d);
    } else {
      kept += (*labels)[i];
      kept_dims.push_back(d);
    }
  }
  if (summed.empty()) return Status::Ok();
  std::vector<int64_t> rc(summed.size());
  std::iota(rc.begin(), rc.end(), 0);
  ir::Value* ones = Splat(ops, op, block, (*x)->type.element, summed_dims, 1);
  *x = DotGeneral(ops, op, block, *x, ones, {}, {}, summed, rc, kept_dims);
  *labels = kept;
  return Status::Ok();
}

// Transposes `x` (labelled `labels`) to the order of `out`, if it differs.
ir::Value* TransposeTo(Ops* ops, const ir::Operation& op, ir::Block* block, ir::Value* x, const std::string& labels,
                       const std::string& out) {
  if (labels == out) return x;
  std::vector<int64_t> perm, dims;
  for (char c : out) {
    const size_t k = labels.find(c);
    perm.push_back(static_cast<int64_t>(k));
    dims.push_back(x->type.dims[k]);
  }
  ir::Operation* t =
      NewOp(ops, op, block, KernelName(KernelId::kTranspose), {x}, ir::Type::Tensor(x->type.element, dims));
  t->attrs.emplace_back("permutation", ir::IntArrayAttr(std::move(perm)));
  return t->result();
}

// The last op of `ops` must give the op's result type; an identity einsum
// (nothing to do) becomes a reshape to the same shape.
Status FinishEinsum(Ops* ops, const ir::Operation& op, ir::Block* block, ir::Value* v, const std::string& config,
                    const ErrorFormatter& format) {
  const ir::Type& want = op.result()->type;
  if (v->type.dims != want.dims || v->type.element != want.element)
    return InvalidArgument(format(op.loc, op.name + " '" + config + "' gives tensor " + Dims(v->type.dims) + " of " +
                                              std::string(Name(v->type.element)) + ", but the result is " +
                                              want.ToString()));
  if (ops->empty() || ops->back()->result() != v)
    NewOp(ops, op, block, KernelName(KernelId::kReshape), {v}, want);
  return Status::Ok();
}

Status ReadEinsumConfig(const ir::Operation& op, const ErrorFormatter& format, std::string* config) {
  const ir::Attribute* c = op.GetAttr("einsum_config");
  if (!c || c->kind != ir::Attribute::Kind::kString)
    return InvalidArgument(format(op.loc, op.name + " needs a string attribute einsum_config"));
  *config = c->str;
  std::erase(*config, ' ');
  return Status::Ok();
}

// unary_einsum(x) {einsum_config = "ab->a"}: the labels the result lacks
// are summed out, then the rest transposed to the result's order.
Status RewriteUnaryEinsum(ir::Block* block, size_t at, const ErrorFormatter& format, size_t* n) {
  const ir::Operation& op = *block->ops[at];
  KILN_RETURN_IF_ERROR(CheckArity(op, 1, 1, format));
  std::string config;
  KILN_RETURN_IF_ERROR(ReadEinsumConfig(op, format, &config));
  const size_t arrow = config.find("->");
  if (arrow == std::string::npos || config.find(',') != std::string::npos)
    return InvalidArgument(format(op.loc, op.name + " '" + config + "': expected 'in->out'"));
  std::string in = config.substr(0, arrow), out = config.substr(arrow + 2);
  KILN_RETURN_IF_ERROR(EinsumLabels(op, config, in, &op.operands[0]->type, format));
  KILN_RETURN_IF_ERROR(EinsumLabels(op, config, out, &op.result()->type, format));
  for (char c : out)
    if (in.find(c) == std::string::npos)
      return InvalidArgument(format(op.loc, op.name + " '" + config + "': result label '" + std::string(1, c) +
                                                "' is not an operand's"));
  Ops ops;
  ir::Value* x = op.operands[0];
  KILN_RETURN_IF_ERROR(SumOutLabels(&ops, op, block, &x, &in, out, format));
  x = TransposeTo(&ops, op, block, x, in, out);
  KILN_RETURN_IF_ERROR(FinishEinsum(&ops, op, block, x, config, format));
  *n = Splice(block, at, std::move(ops));
  return Status::Ok();
}

// einsum(l, r) {einsum_config = "ab,bc->ac"}: labels of one operand only
// that the result lacks are summed out of it; then one dot_general whose
// batch labels are in both operands and the result, contracting labels in
// both operands only, free labels in one operand and the result; then a
// transpose to the result's order.
Status RewriteEinsum(ir::Block* block, size_t at, const ErrorFormatter& format, size_t* n) {
  const ir::Operation& op = *block->ops[at];
  KILN_RETURN_IF_ERROR(CheckArity(op, 2, 1, format));
  std::string config;
  KILN_RETURN_IF_ERROR(ReadEinsumConfig(op, format, &config));
  const size_t arrow = config.find("->"), comma = config.find(',');
  if (arrow == std::string::npos || comma == std::string::npos || comma > arrow)
    return InvalidArgument(format(op.loc, op.name + " '" + config + "': expected 'lhs,rhs->out'"));
  std::string l = config.substr(0, comma), r = config.substr(comma + 1, arrow - comma - 1),
              out = config.substr(arrow + 2);
  KILN_RETURN_IF_ERROR(EinsumLabels(op, config, l, &op.operands[0]->type, format));
  KILN_RETURN_IF_ERROR(EinsumLabels(op, config, r, &op.operands[1]->type, format));
  KILN_RETURN_IF_ERROR(EinsumLabels(op, config, out, &op.result()->type, format));
  if (op.operands[0]->type.element != op.operands[1]->type.element)
    return InvalidArgument(format(op.loc, op.name + ": operands of different element types are not supported"));
  for (char c : out)
    if (l.find(c) == std::string::npos && r.find(c) == std::string::npos)
      return InvalidArgument(format(op.loc, op.name + " '" + config + "': result label '" + std::string(1, c) +
                                                "' is not an operand's"));
  Ops ops;
  ir::Value* lhs = op.operands[0];
  ir::Value* rhs = op.operands[1];
  KILN_RETURN_IF_ERROR(SumOutLabels(&ops, op, block, &lhs, &l, r + out, format));
  KILN_RETURN_IF_ERROR(SumOutLabels(&ops, op, block, &rhs, &r, l + out, format));
  std::vector<int64_t> lb, rb, lc, rc, dims;
  std::string result;
  for (size_t i = 0; i < l.size(); ++i) {
    const size_t j = r.find(l[i]);
    if (j == std::string::npos) continue;
    const int64_t dl = lhs->type.dims[i], dr = rhs->type.dims[j];
    if (dl != dr)
      return InvalidArgument(format(op.loc, op.name + " '" + config + "': label '" + std::string(1, l[i]) +
                                                "' has size " + std::to_string(dl) + " in the lhs and " +
                                                std::to_string(dr) + " in the rhs"));
    const bool batch = out.find(l[i]) != std::string::npos;
    (batch ? lb : lc).push_back(static_cast<int64_t>(i));
    (batch ? rb : rc).push_back(static_cast<int64_t>(j));
    if (batch) {
      result += l[i];
      dims.push_back(dl);
    }
  }
  for (size_t i = 0; i < l.size(); ++i)
    if (r.find(l[i]) == std::string::npos) {
      result += l[i];
      dims.push_back(lhs->type.dims[i]);
    }
  for (size_t j = 0; j < r.size(); ++j)
    if (l.find(r[j]) == std::string::npos) {
      result += r[j];
      dims.push_back(rhs->type.dims[j]);
    }
  ir::Value* v = DotGeneral(&ops, op, block, lhs, rhs, lb, rb, lc, rc, dims);
  v = TransposeTo(&ops, op, block, v, result, out);
  KILN_RETURN_IF_ERROR(FinishEinsum(&ops, op, block, v, config, format));
  *n = Splice(block, at, std::move(ops));
  return Status::Ok();
}

// --- torch_index_select --------------------------------------------------------

// torch_index_select(x, index) {dim, batch_dims}: with B = batch_dims,
// result[b.., p.., i.., q..] = x[b.., p.., index[b.., i..], q..] where b are
// the B leading dims x and index share, p the rest of x's dims before dim,
// i index's other dims and q x's dims after dim: a gather on dim with the
// shared dims as batching dims, index's elements as one-element start
// indices (index_vector_dim = its rank).
Status RewriteTorchIndexSelect(ir::Block* block, size_t at, const ErrorFormatter& format, size_t* n) {
  const ir::Operation& op = *block->ops[at];
  KILN_RETURN_IF_ERROR(CheckArity(op, 2, 1, format));
  const ir::Type& x = op.operands[0]->type;
  const ir::Type& index = op.operands[1]->type;
  const ir::Attribute* dim_attr = op.GetAttr("dim");
  const ir::Attribute* batch_attr = op.GetAttr("batch_dims");
  if (!dim_attr || dim_attr->kind != ir::Attribute::Kind::kInt || !batch_attr ||
      batch_attr->kind != ir::Attribute::Kind::kInt)
    return InvalidArgument(format(op.loc, op.name + " needs integer attributes dim and batch_dims"));
  const int64_t xr = x.rank(), ir_ = index.rank();
  // Negative values count from the end, as in PyTorch (dim of the operand,
  // batch_dims of the index).
  const int64_t dim = dim_attr->i < 0 ? dim_attr->i + xr : dim_attr->i;
  const int64_t b = batch_attr->i < 0 ? batch_attr->i + ir_ : batch_attr->i;
  if (!IsInteger(index.element) || index.is_quantized())
    return InvalidArgument(format(op.loc, op.name + ": the index must be an integer tensor, not " + index.ToString()));
  if (b < 0 || b > dim || dim >= xr || b > ir_)
    return InvalidArgument(format(op.loc, op.name + ": needs 0 <= batch_dims <= dim < rank(operand) and batch_dims "
                                                    "<= rank(index); got dim = " +
                                              std::to_string(dim) + ", batch_dims = " + std::to_string(b)));
  std::vector<int64_t> dims(x.dims.begin(), x.dims.begin() + dim);
  dims.insert(dims.end(), index.dims.begin() + b, index.dims.end());
  dims.insert(dims.end(), x.dims.begin() + dim + 1, x.dims.end());
  for (int64_t k = 0; k < b; ++k)
    if (x.dims[k] != index.dims[k])
      return InvalidArgument(format(op.loc, op.name + ": batch dimension " + std::to_string(k) + " has size " +
                                                std::to_string(x.dims[k]) + " in the operand and " +
                                                std::to_string(index.dims[k]) + " in the index"));
  if (dims != op.result()->type.dims || x.element != op.result()->type.element)
    return InvalidArgument(format(op.loc, op.name + " gives tensor " + Dims(dims) + ", but the result is " +
                                              op.result()->type.ToString()));
  std::vector<int64_t> offset, batching(static_cast<size_t>(b)), sizes(x.dims);
  // The result's offset dims: p at [b, dim), then q after index's ir - b
  // non-batch dims, which (with b) are the gather's batch dims.
  for (int64_t k = b; k < dim; ++k) offset.push_back(k);
  for (int64_t k = dim + 1; k < xr; ++k) offset.push_back(k - 1 + ir_ - b);
  std::iota(batching.begin(), batching.end(), 0);
  for (int64_t k = 0; k < b; ++k) sizes[static_cast<size_t>(k)] = 1;
  sizes[static_cast<size_t>(dim)] = 1;
  Ops ops;
  ir::Operation* g = nullptr;
  if (std::all_of(sizes.begin(), sizes.end(), [](int64_t d) { return d >= 0; })) {
    g = NewOp(&ops, op, block, KernelName(KernelId::kGather), {op.operands[0], op.operands[1]}, op.result()->type);
    g->attrs.emplace_back("slice_sizes", ir::IntArrayAttr(sizes));
  } else {
    // An operand dimension known only at run time: dynamic_gather, its
    // slice sizes the operand's sizes read when it runs (1 on the selected
    // and batch dimensions).
    ir::Value* all = ShapeTensor(&ops, op, block, sizes, op.operands[0]);
    g = NewOp(&ops, op, block, "stablehlo.dynamic_gather", {op.operands[0], op.operands[1], all},
              op.result()->type);
  }
  ir::Attribute nums;
  nums.kind = ir::Attribute::Kind::kStruct;
  nums.str = "#stablehlo.gather";
  nums.fields.emplace_back("offset_dims", ir::IntArrayAttr(offset));
  nums.fields.emplace_back("collapsed_slice_dims", ir::IntArrayAttr({dim}));
  nums.fields.emplace_back("operand_batching_dims", ir::IntArrayAttr(batching));
  nums.fields.emplace_back("start_indices_batching_dims", ir::IntArrayAttr(batching));
  nums.fields.emplace_back("start_index_map", ir::IntArrayAttr({dim}));
  nums.fields.emplace_back("index_vector_dim", ir::IntAttr(ir_));
  g->attrs.emplace_back("dimension_numbers", std::move(nums));
  *n = Splice(block, at, std::move(ops));
  return Status::Ok();
}

// --- cross-replica-sum -------------------------------------------------------

// cross-replica-sum(x) {replica_groups} is all_reduce over those groups
// with an add body.
Status RewriteCrossReplicaSum(ir::Block* block, size_t at, const ErrorFormatter& format, size_t* n) {
  ir::Operation& op = *block->ops[at];
  KILN_RETURN_IF_ERROR(CheckArity(op, 1, 1, format));
  if (op.operands[0]->type != op.result()->type || !op.regions.empty())
    return InvalidArgument(format(op.loc, op.name + " returns a tensor of its operand's type and has no body"));
  const ElementType e = op.operands[0]->type.element;
  auto region = std::make_unique<ir::Region>();
  region->parent = &op;
  auto body = std::make_unique<ir::Block>();
  body->parent = region.get();
  for (int k = 0; k < 2; ++k) {
    auto a = std::make_unique<ir::Value>();
    a->type = ir::Type::Tensor(e, {});
    a->index = k;
    a->owner_block = body.get();
    body->args.push_back(std::move(a));
  }
  Ops body_ops;
  ir::Operation* add = NewOp(&body_ops, op, body.get(), ScalarOpName(ScalarOp::kAdd),
                             {body->args[0].get(), body->args[1].get()}, ir::Type::Tensor(e, {}));
  auto ret = std::make_unique<ir::Operation>();
  ret->name = std::string(op_names::kReturn);
  ret->loc = op.loc;
  ret->parent = body.get();
  ret->operands = {add->result()};
  body->ops = std::move(body_ops);
  body->ops.push_back(std::move(ret));
  region->blocks.push_back(std::move(body));
  op.regions.push_back(std::move(region));
  op.name = std::string(op_names::kAllReduce);
  *n = 1;
  return Status::Ok();
}

// One row per deprecated op: its name and the rewrite, which sets *n to
// how many ops stand where it stood (0 when it is removed).
struct Rewrite {
  std::string_view op;
  Status (*rewrite)(ir::Block*, size_t, const ErrorFormatter&, size_t*);
};
constexpr Rewrite kRewrites[] = {
    {"stablehlo.broadcast", &RewriteBroadcast},
    {"stablehlo.trace", &RewriteTrace},
    {"stablehlo.einsum", &RewriteEinsum},
    {"stablehlo.unary_einsum", &RewriteUnaryEinsum},
    {"stablehlo.torch_index_select", &RewriteTorchIndexSelect},
    {"stablehlo.cross-replica-sum", &RewriteCrossReplicaSum},
};

Status LegalizeBlock(ir::Block* block, const ErrorFormatter& format) {
  for (size_t i = 0; i < block->ops.size();) {
    ir::Operation& op = *block->ops[i];
    for (auto& region : op.regions)
      for (auto& b : region->blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format));
    size_t n = 1;
    for (const Rewrite& r : kRewrites)
      if (op.name == r.op) {
        KILN_RETURN_IF_ERROR(r.rewrite(block, i, format, &n));
        break;
      }
    i += n;
  }
  return Status::Ok();
}

}  // namespace

Status LegalizeDeprecatedOps(ir::Module* module, const ErrorFormatter& format_error) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format_error));
  return Status::Ok();
}

}  // namespace kiln::compiler
