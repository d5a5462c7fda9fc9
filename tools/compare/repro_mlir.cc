#include "tools/compare/repro_mlir.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/parse/parser.h"
#include "compiler/passes/fuse_elementwise.h"

namespace kiln::tools {
namespace {

// The op of `block` (or of a block nested in it) at line:col.
ir::Operation* FindOp(ir::Block& block, uint32_t line, uint32_t col) {
  for (auto& op : block.ops) {
    if (!op) continue;
    if (op->loc.line == static_cast<int>(line) && op->loc.col == static_cast<int>(col)) return op.get();
    for (auto& region : op->regions)
      for (auto& b : region->blocks)
        if (ir::Operation* found = FindOp(*b, line, col)) return found;
  }
  return nullptr;
}

bool Matches(const ir::Type& source, const vm::HostTensor& t) {
  if (!source.is_tensor() || source.element != t.type || source.dims.size() != t.dims.size()) return false;
  for (size_t k = 0; k < t.dims.size(); ++k)
    if (source.dims[k] != ir::Type::kDynamic && source.dims[k] != t.dims[k]) return false;
  return true;
}

std::string TypeText(const vm::HostTensor& t) {
  std::string s = "tensor<";
  for (int64_t d : t.dims) s += std::to_string(d) + "x";
  return s + std::string(Name(t.type)) + ">";
}

}  // namespace

StatusOr<ReproProgram> BuildReproMlir(std::string_view source, std::string_view file_name, std::string_view function,
                                      uint32_t line, uint32_t col, const std::vector<vm::HostTensor>& inputs) {
  if (line == 0) return NotFound("the module records no source location for the dispatch");
  // The file may hold several programs (`// -----` chunks): the one that
  // holds the line.
  std::string chunk_text(source);
  int first_line = 1;
  for (const auto& chunk : ir::SplitChunks(source))
    if (chunk.first_line <= static_cast<int>(line)) {
      chunk_text = chunk.text;
      first_line = chunk.first_line;
    }
  KILN_ASSIGN_OR_RETURN(auto module, ir::ParseModule(chunk_text, file_name, first_line));
  ir::Function* fn = module->FindFunction(function);
  if (!fn) return NotFound("no function @" + std::string(function) + " in " + std::string(file_name));
  if (fn->body.blocks.empty()) return NotFound("@" + std::string(function) + " has no body");
  ir::Operation* root = FindOp(*fn->body.blocks[0], line, col);
  const std::string where = std::string(file_name) + ":" + std::to_string(line) + ":" + std::to_string(col);
  if (!root) return NotFound("no op at " + where + " in @" + std::string(function));
  KILN_ASSIGN_OR_RETURN(compiler::ElementwiseFusion fusion, compiler::ElementwiseFusion::Plan(*fn));

  // The region's arguments (leaves) and its ops (members). Fused by the
  // elementwise plan: the group's inputs, then any other value its ops
  // read from outside (a reduce's init value); else the op's operands.
  std::vector<ir::Value*> leaves;
  std::set<const ir::Operation*> members{root};
  auto add_leaf = [&](ir::Value* v) {
    if (std::find(leaves.begin(), leaves.end(), v) == leaves.end()) leaves.push_back(v);
  };
  if (const compiler::FusedGroup* group = fusion.GroupAt(root)) {
    for (const ir::Value* v : group->inputs) add_leaf(const_cast<ir::Value*>(v));
    std::vector<ir::Operation*> work{root};
    while (!work.empty()) {
      ir::Operation* op = work.back();
      work.pop_back();
      for (ir::Value* v : op->operands) {
        if (std::find(leaves.begin(), leaves.end(), v) != leaves.end()) continue;
        if (!v->def || v->def->parent != root->parent) {
          add_leaf(v);
          continue;
        }
        if (members.insert(v->def).second) work.push_back(v->def);
      }
    }
  } else {
    for (ir::Value* v : root->operands) add_leaf(v);
  }
  // The dispatch may hold more than that: a matrix product with its
  // epilogue (the dispatch is at the epilogue's last op) reads the
  // product's operands. Until the arguments are the dispatch's inputs, the
  // first argument that an op of the block computes (not a constant) gives
  // way to that op's operands.
  auto matches = [&](bool exact) {
    if (leaves.size() > inputs.size() || (exact && leaves.size() != inputs.size())) return false;
    for (size_t i = 0; i < leaves.size(); ++i)
      if (!Matches(leaves[i]->type, inputs[i])) return false;
    return true;
  };
  for (int step = 0; step < 64 && !matches(true); ++step) {
    auto it = std::find_if(leaves.begin(), leaves.end(), [&](ir::Value* v) {
      return v->def && v->def->parent == root->parent && v->def->name != "stablehlo.constant";
    });
    if (it == leaves.end()) break;
    ir::Operation* def = (*it)->def;
    members.insert(def);
    std::vector<ir::Value*> in;
    for (ir::Value* v : def->operands)
      if (std::find(leaves.begin(), leaves.end(), v) == leaves.end() && !(v->def && members.count(v->def)) &&
          std::find(in.begin(), in.end(), v) == in.end())
        in.push_back(v);
    it = leaves.erase(it);
    leaves.insert(it, in.begin(), in.end());
  }
  if (!matches(false)) {
    std::string want, have;
    for (const auto& t : inputs) want += (want.empty() ? "" : ", ") + TypeText(t);
    for (const ir::Value* v : leaves) have += (have.empty() ? "" : ", ") + v->type.ToString();
    return FailedPrecondition("the op at " + where + " reads (" + have + "), which is not how the dispatch's inputs (" +
                              want + ") can be read");
  }
  std::map<const ir::Value*, size_t> arg_of;
  for (size_t i = 0; i < leaves.size(); ++i) arg_of[leaves[i]] = i;

  // The new function: the members, moved out of the parsed one in block
  // order, reading the new arguments.
  auto out = std::make_unique<ir::Module>();
  out->file_name = "repro.mlir";
  auto f = std::make_unique<ir::Function>();
  f->name = "main";
  f->is_public = true;
  f->body.blocks.push_back(std::make_unique<ir::Block>());
  ir::Block* body = f->body.blocks[0].get();
  body->parent = &f->body;
  for (size_t i = 0; i < leaves.size(); ++i) {
    auto v = std::make_unique<ir::Value>();
    // A dynamic source type becomes the dispatch's static one.
    v->type = leaves[i]->type.HasStaticShape() ? leaves[i]->type : ir::Type::Tensor(inputs[i].type, inputs[i].dims);
    v->index = static_cast<int>(i);
    v->owner_block = body;
    f->arg_types.push_back(v->type);
    body->args.push_back(std::move(v));
  }
  ReproProgram program;
  program.num_args = leaves.size();
  ir::Block* from = root->parent;
  for (auto& op : from->ops) {
    if (!op || !members.count(op.get())) continue;
    for (ir::Value*& v : op->operands) {
      auto it = arg_of.find(v);
      if (it != arg_of.end()) {
        v = body->args[it->second].get();
      } else if (!v->def || !members.count(v->def)) {
        return FailedPrecondition("the op at " + where + " reads a value from outside the dispatch");
      }
    }
    program.ops.push_back(op->name + " (line " + std::to_string(op->loc.line) + ")");
    op->parent = body;
    body->ops.push_back(std::move(op));
  }
  auto ret = std::make_unique<ir::Operation>();
  ret->name = "func.return";
  ret->parent = body;
  for (auto& r : root->results) {
    ret->operands.push_back(r.get());
    f->result_types.push_back(r->type);
  }
  body->ops.push_back(std::move(ret));
  out->functions.push_back(std::move(f));
  program.mlir = "// A repro written by vm-run --compare-with: the dispatch at " + where + " (@" +
                 std::string(function) + ").\n" + ir::PrintModule(*out);
  return program;
}

}  // namespace kiln::tools
