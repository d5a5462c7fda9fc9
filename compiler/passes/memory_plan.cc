// Memory planning over a function's bytecode (see memory_plan.h for the
// rules): decode, find the static allocs, ref-register liveness over the
// control-flow graph, classes of registers that may hold one tensor,
// occupancy per class, greedy-by-size placement, then re-encode with
// arena.view in place of the planned allocs and every jump target and
// source location moved to its instruction's new offset.
#include "compiler/passes/memory_plan.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <optional>
#include <span>

#include "kernels/common/element_type.h"
#include "vm/bytecode.h"

namespace kiln::compiler {
namespace {

using vm::Instruction;
using vm::Opcode;

struct Bits {
  std::vector<uint64_t> w;
  explicit Bits(size_t n = 0) : w((n + 63) / 64, 0) {}
  void Set(size_t i) { w[i / 64] |= uint64_t{1} << (i % 64); }
  void Clear(size_t i) { w[i / 64] &= ~(uint64_t{1} << (i % 64)); }
  bool Get(size_t i) const { return (w[i / 64] >> (i % 64)) & 1; }
  bool Intersects(const Bits& o) const {
    for (size_t k = 0; k < w.size(); ++k)
      if (w[k] & o.w[k]) return true;
    return false;
  }
};

// How an instruction touches ref registers.
struct RefEffect {
  std::vector<uint32_t> defs, uses;
  std::vector<uint32_t> escapes;                     // uses through which a tensor leaves our sight
  std::vector<std::pair<uint32_t, uint32_t>> alias;  // (dst, src): dst may hold src's tensor
};

RefEffect EffectOf(const Instruction& ins, const std::vector<bool>& returns_argument) {
  RefEffect e;
  const auto& o = ins.operands;
  auto reg = [&](size_t k) { return static_cast<uint32_t>(o[k].value); };
  auto all_escape = [&] {
    for (const auto& op : o) {
      if (op.kind == 'r') e.uses.push_back(static_cast<uint32_t>(op.value)), e.escapes.push_back(e.uses.back());
      if (op.kind == 'R')
        for (uint32_t r : op.list) e.uses.push_back(r), e.escapes.push_back(r);
    }
  };
  switch (ins.op) {
    case Opcode::kConstRef:
    case Opcode::kAlloc:
    case Opcode::kArenaView:
    case Opcode::kArenaViewInPlace:
    case Opcode::kMakeToken:
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
    case Opcode::kTensorFromI64:
    case Opcode::kGlobalLoad:
      e.defs.push_back(reg(0));
      break;
    case Opcode::kGlobalStore:  // stores a copy
      e.uses.push_back(reg(1));
      break;
    case Opcode::kDispatch:  // outputs are written through the registers, which are read
      for (int k : {1, 2}) e.uses.insert(e.uses.end(), o[k].list.begin(), o[k].list.end());
      break;
    case Opcode::kReshape:
    case Opcode::kSubview:
    case Opcode::kSubviewAt:
    case Opcode::kMovRef:
      e.defs.push_back(reg(0));
      e.uses.push_back(reg(1));
      e.alias.push_back({reg(0), reg(1)});
      break;
    case Opcode::kLoadI64:
    case Opcode::kDim:
      e.uses.push_back(reg(1));
      break;
    case Opcode::kListGet:
      e.defs.push_back(reg(0));
      e.uses.push_back(reg(1));
      break;
    case Opcode::kCheckEq:
    case Opcode::kCheckAlmostEq:
    case Opcode::kCheckClose:
    case Opcode::kCheckNear:
      e.uses.push_back(reg(0));
      e.uses.push_back(reg(1));
      break;
    case Opcode::kCheckSerializedEq:
    case Opcode::kCheckAllTrue:
    case Opcode::kProbe:  // probes keep a host copy
    case Opcode::kPrint:
      e.uses.push_back(reg(0));
      break;
    case Opcode::kCheckEqResult:
      e.uses.push_back(reg(0));
      e.uses.push_back(reg(1));
      e.defs.push_back(reg(2));
      break;
    case Opcode::kCall:
      // The callee only reads its arguments (no instruction writes an
      // argument) and runs on its own arena; if it may return an argument
      // (or is unknown), each result may hold each argument's tensor.
      e.uses.insert(e.uses.end(), o[1].list.begin(), o[1].list.end());
      e.defs.insert(e.defs.end(), o[2].list.begin(), o[2].list.end());
      if (o[0].value >= returns_argument.size() || returns_argument[o[0].value])
        for (uint32_t d : o[2].list)
          for (uint32_t a : o[1].list) e.alias.push_back({d, a});
      break;
    case Opcode::kMakeList:
      e.defs.push_back(reg(0));
      for (uint32_t r : o[1].list) e.uses.push_back(r), e.escapes.push_back(r);
      break;
    default:  // return, collectives, run_parallel, and anything newer
      all_escape();
      break;
  }
  return e;
}

// Union-find over ref registers.
struct Classes {
  std::vector<uint32_t> parent;
  explicit Classes(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  uint32_t Find(uint32_t r) {
    while (parent[r] != r) r = parent[r] = parent[parent[r]];
    return r;
  }
  void Join(uint32_t a, uint32_t b) { parent[Find(a)] = Find(b); }
};

uint64_t Align(uint64_t n) { return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

// Appends `ins` re-encoded; records where its jump target operands are.
void Encode(const Instruction& ins, std::vector<uint8_t>* out, std::vector<size_t>* targets) {
  auto put = [&](const void* p, size_t n) {
    auto b = static_cast<const uint8_t*>(p);
    out->insert(out->end(), b, b + n);
  };
  out->push_back(static_cast<uint8_t>(ins.op));
  for (const auto& o : ins.operands) {
    if (o.kind == 'k') {
      put(&o.value, 8);
    } else if (o.kind == 'I' || o.kind == 'R') {
      uint32_t n = static_cast<uint32_t>(o.list.size());
      put(&n, 4);
      for (uint32_t r : o.list) put(&r, 4);
    } else {
      if (o.kind == 'p') targets->push_back(out->size());
      uint32_t v = static_cast<uint32_t>(o.value);
      put(&v, 4);
    }
  }
}

Status Decode(const FunctionOut& f, std::vector<Instruction>* ins, std::map<uint32_t, size_t>* index_of_pc) {
  const std::span<const uint8_t> code(f.bytecode);
  for (uint32_t pc = 0; pc < code.size();) {
    Instruction in;
    if (!vm::DecodeInstruction(code, pc, &in)) return Internal(f.name + ": memory planning cannot decode its bytecode");
    (*index_of_pc)[pc] = ins->size();
    pc = in.next_pc;
    ins->push_back(std::move(in));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<bool>> FunctionsReturningArguments(const std::vector<FunctionOut>& functions) {
  std::vector<std::vector<Instruction>> code(functions.size());
  for (size_t i = 0; i < functions.size(); ++i) {
    std::map<uint32_t, size_t> unused;
    KILN_RETURN_IF_ERROR(Decode(functions[i], &code[i], &unused));
  }
  // Monotone: a function is marked once a return may hold an argument, given
  // the marks so far; repeat until nothing changes (recursion included).
  std::vector<bool> marked(functions.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < functions.size(); ++i) {
      if (marked[i]) continue;
      const size_t nregs = functions[i].num_ref_registers;
      Classes cls(nregs);
      std::vector<uint32_t> returned;
      for (const auto& in : code[i]) {
        RefEffect e = EffectOf(in, marked);
        for (auto [d, s] : e.alias)
          if (d < nregs && s < nregs) cls.Join(d, s);
        if (in.op == Opcode::kReturn) returned.insert(returned.end(), in.operands[0].list.begin(), in.operands[0].list.end());
      }
      for (uint32_t r : returned)
        for (uint32_t a = 0; a < functions[i].args.size() && a < nregs && r < nregs && !marked[i]; ++a)
          if (cls.Find(r) == cls.Find(a)) marked[i] = changed = true;
    }
  }
  return marked;
}

std::vector<bool> InPlaceExecutables(const std::vector<KernelParams>& executables) {
  std::vector<bool> out;
  // (Not one that reads an input through a slice: its reads and writes are
  // not at the same positions.)
  for (const auto& e : executables) out.push_back(e.kernel == "kiln.elementwise" && !e.Find("input_slices"));
  return out;
}

Status PlanFunctionMemory(FunctionOut* f, bool plan, const std::vector<bool>& returns_argument,
                          const std::vector<bool>& in_place) {
  const std::span<const uint8_t> code(f->bytecode);
  std::vector<Instruction> ins;
  std::map<uint32_t, size_t> index_of_pc;
  KILN_RETURN_IF_ERROR(Decode(*f, &ins, &index_of_pc));
  const size_t n = ins.size(), nregs = f->num_ref_registers;

  // i64 registers set exactly once, by const.i64.
  std::vector<int> i64_defs(f->num_i64_registers, 0);
  std::vector<int64_t> i64_value(f->num_i64_registers, 0);
  for (const auto& in : ins) {
    const std::string_view kinds = vm::GetOpcodeInfo(static_cast<uint8_t>(in.op)).kinds;
    if (kinds.empty() || kinds[0] != 'i' || in.op == Opcode::kBrIf) continue;
    uint32_t r = static_cast<uint32_t>(in.operands[0].value);
    if (r >= i64_defs.size()) return Internal(f->name + ": i64 register out of range");
    ++i64_defs[r];
    if (in.op == Opcode::kConstI64) i64_value[r] = static_cast<int64_t>(in.operands[1].value);
    else i64_defs[r] = 2;  // written by something else: not a constant
  }

  // The bytes of an alloc whose dimensions are all constants, or nullopt.
  auto static_bytes = [&](const Instruction& in) -> std::optional<uint64_t> {
    const auto type = ElementTypeFromCode(static_cast<uint32_t>(in.operands[1].value));
    if (!type) return std::nullopt;
    uint64_t elems = 1;
    for (uint32_t r : in.operands[2].list)
      if (r >= i64_defs.size() || i64_defs[r] != 1 || i64_value[r] < 0 ||
          __builtin_mul_overflow(elems, static_cast<uint64_t>(i64_value[r]), &elems) || elems > (uint64_t{1} << 40))
        return std::nullopt;
    return elems * StorageBytes(*type);
  };
  struct Candidate {
    size_t at;       // instruction index
    uint32_t reg;
    uint64_t bytes;  // aligned
    uint64_t offset = 0;
  };
  std::vector<Candidate> cands;
  for (size_t i = 0; i < n; ++i) {
    if (ins[i].op != Opcode::kAlloc) continue;
    const auto bytes = static_bytes(ins[i]);
    if (!bytes) {
      ++f->memory.dynamic_allocs;
      continue;
    }
    f->memory.transient_bytes += *bytes;
    f->memory.pool_bytes += *bytes;  // until planned
    if (*bytes > 0) cands.push_back(Candidate{i, static_cast<uint32_t>(ins[i].operands[0].value), Align(*bytes)});
  }
  if (!plan || cands.empty()) return Status::Ok();

  // Effects, classes, escapes.
  std::vector<RefEffect> eff(n);
  Classes cls(nregs);
  for (size_t i = 0; i < n; ++i) {
    eff[i] = EffectOf(ins[i], returns_argument);
    for (const auto* list : {&eff[i].defs, &eff[i].uses})
      for (uint32_t r : *list)
        if (r >= nregs) return Internal(f->name + ": ref register out of range");
    for (auto [d, s] : eff[i].alias) cls.Join(d, s);
  }
  std::vector<bool> escapes(nregs, false);
  for (const auto& e : eff)
    for (uint32_t r : e.escapes) escapes[cls.Find(r)] = true;

  // Successors, then ref-register liveness to a fixpoint.
  std::vector<std::vector<size_t>> succ(n);
  for (size_t i = 0; i < n; ++i) {
    const Opcode op = ins[i].op;
    if (op != Opcode::kBr && op != Opcode::kReturn && op != Opcode::kFail && op != Opcode::kFailFormat && i + 1 < n) succ[i].push_back(i + 1);
    for (const auto& o : ins[i].operands)
      if (o.kind == 'p') {
        auto it = index_of_pc.find(static_cast<uint32_t>(o.value));
        if (it == index_of_pc.end()) return Internal(f->name + ": a jump target is not an instruction");
        succ[i].push_back(it->second);
      }
  }
  std::vector<Bits> live_in(n, Bits(nregs)), live_out(n, Bits(nregs));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = n; k-- > 0;) {
      Bits out(nregs);
      for (size_t s : succ[k])
        for (size_t w = 0; w < out.w.size(); ++w) out.w[w] |= live_in[s].w[w];
      Bits in = out;
      for (uint32_t r : eff[k].defs) in.Clear(r);
      for (uint32_t r : eff[k].uses) in.Set(r);
      if (in.w != live_in[k].w || out.w != live_out[k].w) {
        changed = true;
        live_in[k] = std::move(in);
        live_out[k] = std::move(out);
      }
    }
  }

  // Occupancy: the instructions at which a register of a candidate's class
  // is live before or after.
  std::map<uint32_t, Bits> occupancy;  // by class
  for (auto& c : cands) {
    uint32_t k = cls.Find(c.reg);
    if (!escapes[k]) occupancy.emplace(k, Bits(n));
  }
  for (size_t i = 0; i < n; ++i)
    for (const Bits* b : {&live_in[i], &live_out[i]})
      for (size_t w = 0; w < b->w.size(); ++w)
        for (uint64_t word = b->w[w]; word; word &= word - 1) {
          uint32_t r = static_cast<uint32_t>(w * 64 + __builtin_ctzll(word));
          auto it = occupancy.find(cls.Find(r));
          if (it != occupancy.end()) it->second.Set(i);
        }
  std::vector<size_t> order;
  for (size_t j = 0; j < cands.size(); ++j) {
    const Candidate& c = cands[j];
    const uint32_t k = cls.Find(c.reg);
    if (escapes[k]) continue;
    // Live before its own alloc: an earlier execution's tensor is still read.
    bool self_conflict = false;
    for (uint32_t r = 0; r < nregs && !self_conflict; ++r)
      self_conflict = live_in[c.at].Get(r) && cls.Find(r) == k;
    if (self_conflict) continue;
    occupancy.at(k).Set(c.at);
    order.push_back(j);
  }
  // In-place reuse: groups of candidates that share one range (each group
  // a chain: an output over the input it replaces, and so on).
  std::vector<size_t> group(cands.size());
  std::iota(group.begin(), group.end(), size_t{0});
  std::vector<bool> over_input(cands.size(), false);  // takes an input's bytes: arena.view.inplace
  {
    std::map<uint32_t, std::vector<size_t>> by_class;  // plannable candidates per class
    for (size_t j : order) by_class[cls.Find(cands[j].reg)].push_back(j);
    auto only = [&](uint32_t r) -> std::optional<size_t> {
      auto it = by_class.find(cls.Find(r));
      if (it == by_class.end() || it->second.size() != 1) return std::nullopt;
      return it->second[0];
    };
    auto root = [&](size_t j) {
      while (group[j] != j) j = group[j];
      return j;
    };
    std::vector<bool> given(cands.size(), false);  // an input already taken over
    for (size_t i = 0; i < n; ++i) {
      const Instruction& d = ins[i];
      if (d.op != Opcode::kDispatch || d.operands[2].list.size() != 1) continue;
      if (d.operands[0].value >= in_place.size() || !in_place[d.operands[0].value]) continue;
      const uint32_t out_reg = d.operands[2].list[0];
      const auto out = only(out_reg);
      if (!out || over_input[*out] || cands[*out].at >= i) continue;
      const Instruction& out_alloc = ins[cands[*out].at];
      const auto out_type = ElementTypeFromCode(static_cast<uint32_t>(out_alloc.operands[1].value));
      const auto out_bytes = static_bytes(out_alloc);
      // Whole 32-bit words per element: the Vulkan shaders store narrower
      // elements into shared words, which another invocation may still read.
      if (!out_type || StorageBytes(*out_type) < 4 || !out_bytes) continue;
      // The output's view comes straight before the dispatch in the same
      // block: nothing between them touches the output or branches.
      bool straight = true;
      for (size_t k = cands[*out].at + 1; k < i && straight; ++k) {
        straight = succ[k].size() == 1 && succ[k][0] == k + 1;
        for (const auto* list : {&eff[k].defs, &eff[k].uses})
          for (uint32_t r : *list) straight = straight && cls.Find(r) != cls.Find(out_reg);
      }
      if (!straight || succ[cands[*out].at].size() != 1) continue;
      for (uint32_t in_reg : d.operands[1].list) {
        const auto in = only(in_reg);
        if (!in || given[*in] || cls.Find(in_reg) == cls.Find(out_reg)) continue;
        const Instruction& in_alloc = ins[cands[*in].at];
        const auto in_type = ElementTypeFromCode(static_cast<uint32_t>(in_alloc.operands[1].value));
        if (!in_type || StorageBytes(*in_type) != StorageBytes(*out_type) || static_bytes(in_alloc) != out_bytes) continue;
        // Dies here: no register of its class is live after the dispatch.
        bool dies = true;
        for (uint32_t r = 0; r < nregs && dies; ++r) dies = !(live_out[i].Get(r) && cls.Find(r) == cls.Find(in_reg));
        // Read once by this dispatch: a second operand slot holding the same
        // tensor through another register would be read at another layout.
        int reads = 0;
        for (uint32_t r : d.operands[1].list) reads += cls.Find(r) == cls.Find(in_reg);
        if (!dies || reads != 1) continue;
        given[*in] = true;
        over_input[*out] = true;
        group[root(*out)] = root(*in);
        break;
      }
    }
    for (size_t j = 0; j < cands.size(); ++j) group[j] = root(j);
  }
  // Per group: the union of its members' occupancies.
  std::map<size_t, Bits> group_occ;
  for (size_t j : order) {
    auto [it, fresh] = group_occ.emplace(group[j], Bits(n));
    const Bits& occ = occupancy.at(cls.Find(cands[j].reg));
    for (size_t w = 0; w < occ.w.size(); ++w) it->second.w[w] |= occ.w[w];
  }
  std::vector<size_t> heads;  // one candidate per group
  for (size_t j : order)
    if (group[j] == j) heads.push_back(j);

  // Greedy by size: largest first, at the lowest offset clear of every
  // interfering group already placed.
  std::stable_sort(heads.begin(), heads.end(), [&](size_t a, size_t b) { return cands[a].bytes > cands[b].bytes; });
  std::vector<size_t> placed;
  uint64_t arena = 0;
  for (size_t j : heads) {
    Candidate& c = cands[j];
    const Bits& occ = group_occ.at(j);
    std::vector<std::pair<uint64_t, uint64_t>> busy;  // [begin, end) of interfering placed tensors
    for (size_t p : placed)
      if (group_occ.at(p).Intersects(occ)) busy.push_back({cands[p].offset, cands[p].offset + cands[p].bytes});
    std::sort(busy.begin(), busy.end());
    uint64_t at = 0;
    for (auto [b, e] : busy) {
      if (at + c.bytes <= b) break;
      at = std::max(at, e);
    }
    c.offset = at;
    arena = std::max(arena, at + c.bytes);
    placed.push_back(j);
  }
  if (placed.empty()) return Status::Ok();
  f->memory.arena_bytes = arena;

  // Rewrite: arena.view r, type, offset, dims (arena.view.inplace for an
  // output over its input's bytes).
  for (size_t j : order) {
    Instruction& in = ins[cands[j].at];
    vm::Operand off;
    off.kind = 'k';
    off.value = cands[group[j]].offset;
    in.op = over_input[j] ? Opcode::kArenaViewInPlace : Opcode::kArenaView;
    in.operands.insert(in.operands.begin() + 2, std::move(off));
  }
  // What stays in the pool: the static allocs left as they were.
  f->memory.pool_bytes = 0;
  for (const auto& in : ins)
    if (in.op == Opcode::kAlloc) f->memory.pool_bytes += static_bytes(in).value_or(0);
  std::vector<uint8_t> out;
  std::vector<size_t> targets;
  std::map<uint32_t, uint32_t> new_pc;
  for (const auto& in : ins) {
    new_pc[in.pc] = static_cast<uint32_t>(out.size());
    Encode(in, &out, &targets);
  }
  new_pc[static_cast<uint32_t>(code.size())] = static_cast<uint32_t>(out.size());
  for (size_t at : targets) {
    uint32_t t;
    std::memcpy(&t, out.data() + at, 4);
    t = new_pc.at(t);
    std::memcpy(out.data() + at, &t, 4);
  }
  for (auto& l : f->locations) {
    auto it = new_pc.lower_bound(l.pc);
    l.pc = it == new_pc.end() ? static_cast<uint32_t>(out.size()) : it->second;
  }
  f->bytecode = std::move(out);
  return Status::Ok();
}

}  // namespace kiln::compiler
