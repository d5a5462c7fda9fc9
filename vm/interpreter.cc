// The bytecode interpreter: Context::Run (a call's frame) and
// Context::Execute (the instruction loop). Operands were range-checked by the
// verifier (vm/verifier.cc), so registers and table indices are used
// directly here; what the verifier cannot know (tensor sizes at run time,
// recursion depth) is checked as the program runs.
//
// Dispatch: every instruction body is written once with KILN_CASE and ends
// in KILN_NEXT or KILN_DISPATCH. Where the compiler has labels as values (GNU
// C++), the bodies are labels reached through one static label table built
// from vm/opcodes.def. KILN_NEXT jumps straight to the next instruction's
// body (threaded dispatch, measured faster than a switch on the scalar-loop
// benchmark, docs/performance.md); a computed goto does not run destructors,
// so only bodies whose locals are all trivially destructible (the scalar
// path's) may use it. KILN_DISPATCH leaves the body's scope with a plain goto,
// which destroys its locals, and dispatches from one shared site. Elsewhere,
// or with -DKILN_INTERPRETER_SWITCH, both are `continue` in a plain switch.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "vm/profiler.h"
#include "kernels/scalar/scalar.h"
#include "vm/context.h"
#include "vm/format_message.h"

#if defined(__GNUC__) && !defined(KILN_INTERPRETER_SWITCH)
#define KILN_COMPUTED_GOTO 1
#else
#define KILN_COMPUTED_GOTO 0
#endif

namespace kiln::vm {

namespace {
constexpr int kMaxCallDepth = 256;

// 64-bit two's complement arithmetic (add.i64, sub.i64, mul.i64 wrap).
inline int64_t WrappingAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t WrappingSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t WrappingMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// stablehlo.divide and remainder on si64 (kernels/scalar/eval.cc):
// x / 0 = -1, x % 0 = x, INT64_MIN / -1 wraps, x % -1 = 0.
int64_t DivideI64(int64_t a, int64_t b) {
  if (b == 0) return -1;
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  return a / b;
}
int64_t RemainderI64(int64_t a, int64_t b) {
  if (b == 0) return a;
  if (b == -1) return 0;
  return a % b;
}

// scalar.op: one integer/boolean op with the reference semantics. The
// verifier checked the op, its types and its operand count.
int64_t EvalScalarOp(const Instruction& ins, const int64_t* regs) {
  const auto& o = ins.operands;
  ScalarInstr in;
  ScalarOpFromCode(static_cast<uint32_t>(o[1].value), &in.op);
  in.type = static_cast<ElementType>(o[2].value);
  const auto operand_type = static_cast<ElementType>(o[3].value);
  in.attr0 = static_cast<int32_t>(o[4].value & 0xffffffffu);
  in.attr1 = static_cast<int32_t>(o[4].value >> 32);
  in.num_operands = static_cast<uint8_t>(o[5].list.size());
  ElementType types[3];
  Scalar values[3];
  for (size_t j = 0; j < in.num_operands; ++j) {
    types[j] = in.op == ScalarOp::kSelect && j == 0 ? ElementType::kI1 : operand_type;
    values[j].i = regs[o[5].list[j]];
  }
  return ref::EvalScalarInstr(in, types, values).i;
}

// dst := a view of `src`'s buffer and type at byte `offset` with dims from
// the registers `dims` (reshape, subview), rewriting the register's previous
// view in place where it can (TakeReusableView): no allocation per loop
// step. `src` may be that very view (R[a] := reshape R[a]): its fields are
// read before any write.
void SetView(RefValue& dst, const hal::BufferView& src, size_t offset, const std::vector<uint32_t>& dims,
             const int64_t* regs, ViewPool& pool) {
  const ElementType type = src.type;
  std::shared_ptr<hal::Buffer> buffer = src.buffer;
  std::shared_ptr<hal::BufferView> view = TakeReusableView(dst, pool);
  view->type = type;
  view->buffer = std::move(buffer);
  view->offset = offset;
  view->dims.resize(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) view->dims[i] = regs[dims[i]];
  dst.kind = RefValue::Kind::kView;
  dst.view = std::move(view);
  dst.list.reset();
}
}  // namespace

Status Context::Run(int function, std::vector<RefValue> args, std::vector<RefValue>* results, int depth) {
  if (depth >= kMaxCallDepth)
    return ResourceExhausted("call stack overflow: more than " + std::to_string(kMaxCallDepth) +
                             " nested calls (runaway recursion?)");
  const LoadedFunction& fn = module_->functions[function];
  if (args.size() > fn.num_ref_registers) return Internal("more arguments than registers");
  std::unique_ptr<Frame> held = TakeFrame();
  Frame& frame = *held;
  frame.function = function;
  frame.i64.assign(fn.num_i64_registers, 0);
  frame.refs.resize(fn.num_ref_registers);
  for (size_t i = 0; i < args.size(); ++i) frame.refs[i] = std::move(args[i]);
  // Results come back in refs[0..n) after a return (see kReturn).
  Status s = Execute(frame, depth);
  KeepArena(frame);
  if (s.ok()) results->assign(frame.refs.begin(), frame.refs.begin() + fn.results.size());
  ReleaseFrame(std::move(held));
  return s;
}

// (Selective builds, held to their size, keep no spare views or frames.)
void ViewPool::Give(std::shared_ptr<hal::BufferView> v) {
  if (KILN_SELECTIVE_BUILD || count_ == kMax) return;
  v->buffer.reset();
  v->type = ElementType::kInvalid;
  v->dims.clear();  // (its storage kept)
  v->offset = 0;
  spare_[count_++] = std::move(v);
}

std::unique_ptr<Context::Frame> Context::TakeFrame() {
  if (KILN_SELECTIVE_BUILD || kept_frames_ == 0) return std::make_unique<Frame>();
  return std::move(frame_pool_[--kept_frames_]);
}

void Context::ReleaseFrame(std::unique_ptr<Frame> frame) {
  if constexpr (KILN_SELECTIVE_BUILD) return;  // (the frame and its views freed)
  // The views only this frame holds lose their buffers here, as they would
  // with the frame (an arena is then free for the next activation).
  for (RefValue& r : frame->refs) {
    if (r.kind == RefValue::Kind::kView && r.view && r.view.use_count() == 1)
      views_.Give(std::const_pointer_cast<hal::BufferView>(std::move(r.view)));
    r = RefValue();
  }
  frame->refs.clear();
  frame->arena.reset();
  if (kept_frames_ < kKeptFrames) frame_pool_[kept_frames_++] = std::move(frame);
}

Status Context::Execute(Frame& frame, int depth) {
  const LoadedFunction& fn = module_->functions[frame.function];
  int64_t* const I = frame.i64.data();
  auto& R = frame.refs;
  auto view_of = [&](uint64_t reg, const hal::BufferView** out) -> Status {
    if (R[reg].kind != RefValue::Kind::kView) return InvalidArgument("register r" + std::to_string(reg) + " holds no tensor");
    *out = R[reg].view.get();
    return Status::Ok();
  };
  auto dims_of = [&](const Operand& list) {
    std::vector<int64_t> dims;
    for (uint32_t r : list.list) dims.push_back(I[r]);
    return dims;
  };
  auto fail = [&](size_t index, const Status& s) {
    std::string loc = fn.LocationOf(index);
    std::string where = module_->source_file.empty() ? fn.name : module_->source_file;
    if (!loc.empty()) where += ":" + loc;
    return Status(s.code(), where + ": " + s.message());
  };
  if (!pending_) pending_ = device_->CreateCommandBuffer();

  // The verifier guarantees the last instruction never falls through and
  // every jump target is an instruction, so `index` stays in range.
  const Instruction* const code = fn.code.data();
  Status s;
  size_t index = 0;
  // Backward jumps until the deadline is next checked; a local, so the
  // scalar loop keeps it in a register.
  int64_t deadline_ticks = kDeadlineTicks;
#if KILN_COMPUTED_GOTO
  // One entry per row of opcodes.def, indexed by code (rows are dense,
  // vm/bytecode.h asserts it); a row without a KILN_CASE body below does not
  // compile ("label used but not defined").
  static void* const kLabels[] = {
      &&op_kInvalid,
#define KILN_OPCODE(name, code, mnemonic, kinds, effect) &&op_##name,
#include "vm/opcodes.def"
#undef KILN_OPCODE
  };
  static_assert(std::size(kLabels) == static_cast<size_t>(kMaxOpcode) + 1, "one label per opcode");
#define KILN_CASE(name) op_##name
#define KILN_NEXT(to)                                       \
  do {                                                      \
    index = (to);                                           \
    goto* kLabels[static_cast<uint8_t>(code[index].op)];   \
  } while (0)
#define KILN_DISPATCH(to) \
  do {                    \
    index = (to);         \
    goto dispatch;        \
  } while (0)
dispatch:
  goto* kLabels[static_cast<uint8_t>(code[index].op)];
#else
  // -Wswitch names a row without a KILN_CASE body.
#define KILN_CASE(name) case Opcode::name
#define KILN_DISPATCH(to) \
  {                       \
    index = (to);         \
    continue;             \
  }
#define KILN_NEXT(to) KILN_DISPATCH(to)
  for (;;) {
    switch (code[index].op) {
#endif

// The i64 instructions of the form I[a] := f(I[b], I[c]).
#define KILN_BINARY_I64(name, expr)               \
  KILN_CASE(name) : {                             \
    const uint32_t* a = code[index].a;            \
    const int64_t x = I[a[1]], y = I[a[2]];       \
    I[a[0]] = (expr);                             \
    KILN_NEXT(index + 1);                         \
  }

  // --- the scalar path: operands read from the Instruction::a cache --------
  KILN_BINARY_I64(kAddI64, WrappingAdd(x, y))
  KILN_BINARY_I64(kSubI64, WrappingSub(x, y))
  KILN_BINARY_I64(kMulI64, WrappingMul(x, y))
  KILN_BINARY_I64(kDivI64, DivideI64(x, y))
  KILN_BINARY_I64(kRemI64, RemainderI64(x, y))
  KILN_BINARY_I64(kAndI64, x & y)
  KILN_BINARY_I64(kOrI64, x | y)
  KILN_BINARY_I64(kXorI64, x ^ y)
  KILN_BINARY_I64(kMinI64, std::min(x, y))
  KILN_BINARY_I64(kMaxI64, std::max(x, y))
  KILN_BINARY_I64(kCmpLtI64, x < y)
  KILN_BINARY_I64(kCmpLeI64, x <= y)
  KILN_BINARY_I64(kCmpEqI64, x == y)
  KILN_BINARY_I64(kCmpNeI64, x != y)
#undef KILN_BINARY_I64
  KILN_CASE(kMovI64) : {
    const uint32_t* a = code[index].a;
    I[a[0]] = I[a[1]];
    KILN_NEXT(index + 1);
  }
  KILN_CASE(kSelectI64) : {
    const uint32_t* a = code[index].a;
    I[a[0]] = I[a[1]] ? I[a[2]] : I[a[3]];
    KILN_NEXT(index + 1);
  }
  KILN_CASE(kScalarOp) : {
    I[code[index].a[0]] = EvalScalarOp(code[index], I);
    KILN_NEXT(index + 1);
  }
  // A backward jump closes a loop: every kDeadlineTicks of them the call's
  // deadline is checked (InvokeOptions::timeout), so an endless loop ends.
  KILN_CASE(kBr) : {
    const uint32_t to = code[index].a[0];
    if (to <= index && --deadline_ticks <= 0) {
      deadline_ticks = kDeadlineTicks;
      if (!(s = CheckDeadline()).ok()) return fail(index, s);
    }
    KILN_NEXT(to);
  }
  KILN_CASE(kBrIf) : {
    const uint32_t* a = code[index].a;
    if (!I[a[0]]) KILN_NEXT(index + 1);
    if (a[1] <= index && --deadline_ticks <= 0) {
      deadline_ticks = kDeadlineTicks;
      if (!(s = CheckDeadline()).ok()) return fail(index, s);
    }
    KILN_NEXT(a[1]);
  }
  KILN_CASE(kConstI64) : {
    const auto& o = code[index].operands;
    I[o[0].value] = static_cast<int64_t>(o[1].value);
    KILN_NEXT(index + 1);
  }

  // --- tensors, lists, calls -------------------------------------------------
  KILN_CASE(kConstRef) : {
    const auto& o = code[index].operands;
    // Constants come to the device on first use (UseConstant).
    const RefValue& k = constants_[o[1].value];
    if (k.kind == RefValue::Kind::kEmpty && !(s = UseConstant(o[1].value)).ok()) return fail(index, s);
    R[o[0].value] = k;
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kAlloc) : {
    const auto& o = code[index].operands;
    if (!(s = AllocateOutput(R[o[0].value], static_cast<ElementType>(o[1].value), o[2].list, I)).ok())
      return fail(index, s);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kArenaView) : {
    if (!(s = ArenaView(code[index], frame)).ok()) return fail(index, s);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kArenaViewInPlace) : {
    if (!(s = ArenaView(code[index], frame)).ok()) return fail(index, s);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kDispatch) : {
    const auto& o = code[index].operands;
    // The views are passed by pointer into the registers and copied into
    // the command buffer's reused storage: recording allocates nothing for
    // the usual few operands.
    constexpr size_t kInline = 16;
    const hal::BufferView* ins_inline[kInline];
    const hal::BufferView* outs_inline[kInline];
    std::vector<const hal::BufferView*> ins_heap, outs_heap;
    const hal::BufferView** ins_v = ins_inline;
    const hal::BufferView** outs_v = outs_inline;
    if (o[1].list.size() > kInline) {
      ins_heap.resize(o[1].list.size());
      ins_v = ins_heap.data();
    }
    if (o[2].list.size() > kInline) {
      outs_heap.resize(o[2].list.size());
      outs_v = outs_heap.data();
    }
    uint64_t output_bytes = 0;
    for (size_t i = 0; i < o[1].list.size(); ++i)
      if (!(s = view_of(o[1].list[i], &ins_v[i])).ok()) return fail(index, s);
    for (size_t i = 0; i < o[2].list.size(); ++i) {
      const hal::BufferView* v;
      if (!(s = view_of(o[2].list[i], &v)).ok()) return fail(index, s);
      // The driver refuses it too (CheckCommand); here the error names the instruction.
      if (v->buffer->read_only() || v->buffer->constant_id() != 0)
        return fail(index, InvalidArgument("a dispatch writes to read-only memory (a module constant or a call's argument)"));
      outs_v[i] = v;
      output_bytes += v->ByteSize();
    }
    if (!pending_) pending_ = device_->CreateCommandBuffer();
    if (options_.profiler) pending_->TagNextDispatch(MakeDispatchTag(frame.function, index));
    pending_->Dispatch(executables_[o[0].value], std::span<const hal::BufferView* const>(ins_v, o[1].list.size()),
                       std::span<const hal::BufferView* const>(outs_v, o[2].list.size()));
    // Bounds the work (and the buffers) a loop that never syncs holds.
    if (!(s = RecordDispatch(output_bytes)).ok()) return fail(index, s);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kReshape) : {
    const auto& o = code[index].operands;
    const hal::BufferView* v;
    if (!(s = view_of(o[1].value, &v)).ok()) return fail(index, s);
    // Dimensions come from registers the module sets: check them and
    // their product before trusting NumElements().
    int64_t count = 1;
    for (uint32_t r : o[2].list)
      if (I[r] < 0 || __builtin_mul_overflow(count, I[r], &count))
        return fail(index, InvalidArgument("reshape to invalid dimensions"));
    if (count != v->NumElements()) return fail(index, InvalidArgument("reshape changes the number of elements"));
    SetView(R[o[0].value], *v, v->offset, o[2].list, I, views_);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kSubview) :
  KILN_CASE(kSubviewAt) : {
    const auto& o = code[index].operands;
    const hal::BufferView* v;
    if (!(s = view_of(o[1].value, &v)).ok()) return fail(index, s);
    // subview's offset is an immediate the loader checked; subview.at's is
    // a register, checked here the same way.
    const int64_t at = code[index].op == Opcode::kSubview ? static_cast<int64_t>(o[2].value) : I[o[2].value];
    if (at < 0 || at % 64 != 0)
      return fail(index, InvalidArgument("subview at byte offset " + std::to_string(at) +
                                         ", not a non-negative multiple of 64"));
    int64_t count = 1;
    for (uint32_t r : o[3].list)
      if (I[r] < 0 || __builtin_mul_overflow(count, I[r], &count))
        return fail(index, InvalidArgument("subview with invalid dimensions"));
    // The view must lie inside its operand's bytes (its size computed
    // without wrapping; the offset checked against the operand's size
    // first, so the difference below cannot wrap either).
    const uint64_t offset = static_cast<uint64_t>(at);
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(count), StorageBytes(v->type), &bytes) ||
        offset > v->ByteSize() || bytes > v->ByteSize() - offset)
      return fail(index, InvalidArgument("subview of " + std::to_string(bytes) + " bytes at offset " +
                                         std::to_string(offset) + " outside its operand of " +
                                         std::to_string(v->ByteSize()) + " bytes"));
    SetView(R[o[0].value], *v, v->offset + static_cast<size_t>(offset), o[3].list, I, views_);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kMovRef) : {
    const auto& o = code[index].operands;
    R[o[0].value] = R[o[1].value];
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kLoadI64) : {
    const auto& o = code[index].operands;
    const hal::BufferView* v;
    if (!(s = view_of(o[1].value, &v)).ok()) return fail(index, s);
    if (v->NumElements() < 1) return fail(index, InvalidArgument("load from an empty tensor"));
    uint8_t bytes[16] = {};
    if (!(s = Sync()).ok() || !(s = CheckDeadline()).ok()) return fail(index, s);
    size_t n = StorageBytes(v->type);
    if (!(s = device_->Download(*v->buffer, v->offset, bytes, n)).ok()) return fail(index, s);
    Scalar sc = ref::LoadScalar(v->type, bytes);
    I[o[0].value] = IsFloat(v->type) || IsComplex(v->type) ? static_cast<int64_t>(sc.re) : sc.i;
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kDim) : {
    const auto& o = code[index].operands;
    const hal::BufferView* v;
    if (!(s = view_of(o[1].value, &v)).ok()) return fail(index, s);
    if (o[2].value >= v->dims.size()) return fail(index, InvalidArgument("dimension index out of range"));
    I[o[0].value] = v->dims[o[2].value];
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kCall) : {
    const auto& o = code[index].operands;
    std::vector<RefValue> args, results;
    if (!(s = CheckDeadline()).ok()) return fail(index, s);
    for (uint32_t r : o[1].list) args.push_back(R[r]);
    s = Run(static_cast<int>(o[0].value), std::move(args), &results, depth + 1);
    if (!s.ok()) return s;
    for (size_t k = 0; k < results.size(); ++k) R[o[2].list[k]] = std::move(results[k]);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kReturn) : {
    // Through a copy: a result register may be another's source
    // (`return [r1, r0]`). Moved out of the frame, which is about to go.
    // (Through the context's vector, whose storage is kept: no allocation.
    // A nested call's return runs only after this one's copy is done.)
    const auto& o = code[index].operands;
    return_values_.clear();
    for (uint32_t r : o[0].list) return_values_.push_back(R[r]);
    for (size_t k = 0; k < return_values_.size(); ++k) R[k] = std::move(return_values_[k]);
    return Status::Ok();  // (return_values_ keeps only moved-from values)
  }
  KILN_CASE(kMakeList) : {
    const auto& o = code[index].operands;
    auto list = std::make_shared<std::vector<RefValue>>();
    for (uint32_t r : o[1].list) list->push_back(R[r]);
    RefValue v;
    v.kind = RefValue::Kind::kList;
    v.list = std::move(list);
    R[o[0].value] = std::move(v);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kListGet) : {
    const auto& o = code[index].operands;
    const RefValue& l = R[o[1].value];
    if (l.kind != RefValue::Kind::kList || o[2].value >= l.list->size())
      return fail(index, InvalidArgument("tuple element index out of range"));
    R[o[0].value] = (*l.list)[o[2].value];
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kMakeToken) : {
    R[code[index].operands[0].value] = RefValue{RefValue::Kind::kToken, nullptr, nullptr};
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kFail) : return fail(index, Unimplemented(module_->strings[code[index].operands[0].value]));
  KILN_CASE(kFailFormat) : {
    const auto& o = code[index].operands;
    return fail(index, InvalidArgument(FormatMessage(module_->strings[o[0].value], dims_of(o[1]))));
  }
  KILN_CASE(kTensorFromI64) : {
    // A rank-0 tensor of `type` holding the register's value (converted
    // as stablehlo.convert from i64 would).
    const auto& o = code[index].operands;
    ElementType type = static_cast<ElementType>(o[2].value);
    HostTensor t;
    t.type = type;
    t.data.resize(StorageBytes(type));
    Scalar v = ref::ConvertScalar(ElementType::kSI64, type, Scalar{I[o[1].value], 0, 0});
    ref::StoreScalar(type, v, t.data.data());
    auto r = Write(t);
    if (!r.ok()) return fail(index, r.status());
    R[o[0].value] = std::move(r.value());
    KILN_DISPATCH(index + 1);
  }

  // --- host-side instructions: ids, printing, checks, collectives -----------
  KILN_CASE(kReplicaId) :
  KILN_CASE(kPartitionId) : {
    const Instruction& ins = code[index];
    HostTensor t;
    t.type = ElementType::kUI32;
    uint32_t id = ins.op == Opcode::kReplicaId ? options_.replica_id : options_.partition_id;
    t.data.resize(4);
    std::memcpy(t.data.data(), &id, 4);
    auto v = Write(t);
    if (!v.ok()) return fail(index, v.status());
    R[ins.operands[0].value] = std::move(v.value());
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kPrint) : {
    auto t = Read(R[code[index].operands[0].value]);
    if (!t.ok()) return fail(index, t.status());
    std::string text = FormatTensor(*t);
    if (options_.print) options_.print(text); else std::printf("%s\n", text.c_str());
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kCheckEq) :
  KILN_CASE(kCheckAlmostEq) :
  KILN_CASE(kCheckClose) :
  KILN_CASE(kCheckSerializedEq) :
  KILN_CASE(kProbe) :
  KILN_CASE(kCheckEqResult) :
  KILN_CASE(kCheckNear) :
  KILN_CASE(kCheckAllTrue) : {
    if (!(s = RunCheck(code[index], frame)).ok()) return fail(index, s);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kGlobalLoad) : {
    const auto& o = code[index].operands;
    if (!(s = LoadGlobal(static_cast<uint32_t>(o[1].value), &R[o[0].value])).ok()) return fail(index, s);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kGlobalStore) : {
    const auto& o = code[index].operands;
    if (!(s = StoreGlobal(static_cast<uint32_t>(o[0].value), R[o[1].value])).ok()) return fail(index, s);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kCollective) :
  KILN_CASE(kCollectiveReduce) : {
    if (!(s = RunCollective(code[index], frame)).ok()) return fail(index, s);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kRunParallel) : {
    if (!(s = RunParallel(code[index], frame, depth)).ok()) return fail(index, s);
    KILN_DISPATCH(index + 1);
  }
  KILN_CASE(kInvalid) : return fail(index, Internal("invalid opcode"));
#if !KILN_COMPUTED_GOTO
    }
    // Only a code outside the table gets here; the verifier refuses those.
    return fail(index, Internal("instruction without a handler"));
  }
#endif
#undef KILN_CASE
#undef KILN_NEXT
#undef KILN_DISPATCH
}

}  // namespace kiln::vm
