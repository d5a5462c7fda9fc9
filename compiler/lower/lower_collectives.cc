// Collectives and interpreter.run_parallel: from op attributes to the
// descriptors of the VM's collective and run_parallel instructions.
#include "compiler/lower/lower_collectives.h"
#include "compiler/op_names.h"

#include <set>

#include "compiler/lower/function_lowering.h"
#include "compiler/lower/kernel_params.h"
#include "vm/collectives/collectives.h"

namespace kiln::compiler {

StatusOr<ScalarProgram> RegionToScalarProgram(const ir::Region& region, bool lanewise);  // kernel_params.cc

namespace {

bool Flag(const ir::Operation& op, std::string_view name) {
  const ir::Attribute* a = op.GetAttr(name);
  if (!a) return false;
  if (a->kind == ir::Attribute::Kind::kUnit) return true;
  if (a->kind == ir::Attribute::Kind::kBool) return a->b;
  if (a->kind == ir::Attribute::Kind::kInt) return a->i != 0;
  return false;
}

int64_t IntAttr(const ir::Operation& op, std::string_view name, int64_t fallback = 0) {
  const ir::Attribute* a = op.GetAttr(name);
  return a && a->kind == ir::Attribute::Kind::kInt ? a->i : fallback;
}

// A 2-D integer attribute (replica_groups, source_target_pairs) as rows.
Status Rows(const ir::Operation& op, std::string_view name, vm::CollectiveDesc* d) {
  const ir::Attribute* a = op.GetAttr(name);
  if (!a) return Status::Ok();
  if (a->kind != ir::Attribute::Kind::kDense)
    return Unimplemented(op.name + ": " + std::string(name) + " other than a dense integer tensor (e.g. mesh axes) is not supported yet");
  auto v = a->AsInts();
  if (!v || a->type.rank() != 2) return InvalidArgument(op.name + ": " + std::string(name) + " must be a 2-D integer tensor");
  int64_t rows = a->type.dims[0], cols = a->type.dims[1];
  d->has_groups = true;
  for (int64_t r = 0; r < rows; ++r)
    d->groups.emplace_back(v->begin() + r * cols, v->begin() + (r + 1) * cols);
  return Status::Ok();
}

}  // namespace

StatusOr<CollectiveLowering> DescribeCollective(const ir::Operation& op) {
  vm::CollectiveDesc d;
  d.op = op.name;
  if (const ir::Attribute* ch = op.GetAttr("channel_handle"); ch && ch->kind == ir::Attribute::Kind::kStruct) {
    if (const ir::Attribute* h = ch->Field("handle")) d.channel = h->i;
    if (const ir::Attribute* t = ch->Field("type")) d.channel_type = t->i;
  } else {
    d.channel = IntAttr(op, "channel_id", IntAttr(op, "handle"));
  }
  d.use_global_device_ids = Flag(op, "use_global_device_ids");
  d.has_dynamic_root = Flag(op, "has_dynamic_root");
  d.is_host_transfer = Flag(op, "is_host_transfer");
  KILN_RETURN_IF_ERROR(Rows(op, "replica_groups", &d));
  KILN_RETURN_IF_ERROR(Rows(op, "source_target_pairs", &d));
  d.dim = IntAttr(op, op.name == op_names::kAllGather ? "all_gather_dim" : "scatter_dimension");
  d.split_dimension = IntAttr(op, "split_dimension");
  d.concat_dimension = IntAttr(op, "concat_dimension");
  d.split_count = IntAttr(op, "split_count");
  // Per-tensor quantized values travel as their storage integers; a
  // reduction body dequantizes, computes and quantizes per step
  // (compiler/lower/quantized_scalar.h). The spec defines collectives on
  // per-tensor quantized tensors only.
  for (const auto* v : op.operands)
    if (v->type.is_quantized() && (v->type.quant->quantized_dimension >= 0 || v->type.quant->scales.size() != 1))
      return Unimplemented(op.name + " on per-axis quantized operands (" + v->type.ToString() + ") is not supported");
    else if (v->type.is_tuple())
      return Unimplemented(op.name + " on tuple operands is not supported");

  CollectiveLowering out;
  out.descriptor = d.Serialize();
  bool reduces = op_names::IsReducingCollective(op.name);
  if (!reduces) return out;
  if (op.regions.empty()) return InvalidArgument(op.name + " needs a reduction body");
  auto prog = RegionToScalarProgram(*op.regions[0], false);
  if (!prog.ok()) return Unimplemented(op.name + ": its body: " + prog.status().message());
  if (prog->param_types.size() != 2 || prog->results.size() != 1)
    return Unimplemented(op.name + ": a reduction body of other than two arguments and one result");
  // The body runs on the operands' values as they are: the spec's promotion
  // to the body's element type is not implemented yet.
  size_t n = op.operands.size() - (d.has_dynamic_root ? 1 : 0);
  for (size_t i = 0; i < n; ++i)
    if (op.operands[i]->type.element != prog->param_types[0])
      return Unimplemented(op.name + " (" + op.operands[i]->type.ToString() + "): a reduction body of element type " +
                           std::string(Name(prog->param_types[0])) +
                           " on other operand types is not supported yet");
  out.reduction = ElementwiseKernel(std::move(prog.value()));
  return out;
}

StatusOr<std::string> DescribeRunParallel(const ir::Operation& op, const ir::Module& module) {
  const ir::Attribute* programs = op.GetAttr("programs");
  if (!programs || programs->kind != ir::Attribute::Kind::kArray || programs->elements.empty())
    return InvalidArgument("interpreter.run_parallel needs programs = [[@f, ...], ...]");
  size_t partitions = 0, args = 0, results = 0;
  std::string names;
  for (const auto& row : programs->elements) {
    if (row.kind != ir::Attribute::Kind::kArray || row.elements.empty())
      return InvalidArgument("interpreter.run_parallel: each entry of programs must be a non-empty list of functions");
    if (partitions && row.elements.size() != partitions)
      return InvalidArgument("interpreter.run_parallel: every replica must list the same number of partitions");
    partitions = row.elements.size();
    for (const auto& f : row.elements) {
      if (f.kind != ir::Attribute::Kind::kSymbol) return InvalidArgument("interpreter.run_parallel: programs must name functions");
      const ir::Function* fn = module.FindFunction(f.str);
      if (!fn) return InvalidArgument("interpreter.run_parallel names an unknown function @" + f.str);
      args += fn->arg_types.size();
      results += fn->result_types.size();
      names += (names.empty() ? "" : ",") + f.str;
    }
  }
  if (args != op.operands.size() || results != op.results.size())
    return InvalidArgument("interpreter.run_parallel: its programs take " + std::to_string(args) + " operands and return " +
                           std::to_string(results) + " results, the op has " + std::to_string(op.operands.size()) +
                           " and " + std::to_string(op.results.size()));
  std::string desc = "grid=" + std::to_string(programs->elements.size()) + "x" + std::to_string(partitions) +
                     ";programs=" + names;
  if (const ir::Attribute* infeed = op.GetAttr("infeed")) {
    std::string q;
    if (infeed->kind != ir::Attribute::Kind::kArray) return InvalidArgument("interpreter.run_parallel: infeed must list functions");
    for (const auto& f : infeed->elements) {
      if (f.kind != ir::Attribute::Kind::kSymbol || !module.FindFunction(f.str))
        return InvalidArgument("interpreter.run_parallel: infeed names an unknown function");
      q += (q.empty() ? "" : ",") + f.str;
    }
    desc += ";infeed=" + q;
  }
  return desc;
}

// The FunctionLowering part (compiler/lower/function_lowering.h).

// A collective (compiler/lower/lower_collectives.cc): tensor operands in,
// preallocated tensor results out; tokens are VM tokens.
Status FunctionLowering::LowerCollective(const ir::Operation& op) {
  KILN_ASSIGN_OR_RETURN(CollectiveLowering c, DescribeCollective(op));
  std::vector<uint32_t> ins, outs;
  for (const auto* v : op.operands)
    if (!v->type.is_token()) ins.push_back(Ref(v));
  for (const auto& r : op.results) {
    uint32_t reg = Define(r.get());
    if (r->type.is_token()) {
      body_.Emit(Opcode::kMakeToken, reg);
      continue;
    }
    KILN_RETURN_IF_ERROR(EmitAlloc(r.get(), reg, op));
    outs.push_back(reg);
  }
  uint32_t reduction = 0;
  if (c.reduction) {
    // The body combines two tensors shaped like each result, on the device.
    reduction = mb_->AddExecutable(std::move(*c.reduction));
    for (const auto& r : op.results)
      if (r->type.is_tensor()) {
        std::pair<ElementType, size_t> sig{r->type.element, static_cast<size_t>(r->type.rank())};
        NoteDispatch(reduction, op.name, {sig, sig}, {sig});
      }
  }
  const uint32_t desc = mb_->AddString(c.descriptor);
  if (c.reduction)
    body_.Emit(Opcode::kCollectiveReduce, desc, reduction, ins, outs);
  else
    body_.Emit(Opcode::kCollective, desc, ins, outs);
  return Status::Ok();
}

Status FunctionLowering::LowerRunParallel(const ir::Operation& op) {
  KILN_ASSIGN_OR_RETURN(std::string desc, DescribeRunParallel(op, module_));
  std::vector<uint32_t> results = DefineResults(op);
  body_.Emit(Opcode::kRunParallel, mb_->AddString(desc), Refs(op.operands), results);
  return Status::Ok();
}

}  // namespace kiln::compiler
