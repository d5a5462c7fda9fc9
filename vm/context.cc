// The bytecode interpreter. Operands were range-checked by the verifier,
// so registers and table indices are used directly here; what the verifier
// cannot know (tensor sizes at run time, recursion depth) is checked as the
// program runs.
#include "vm/context.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "kernels/scalar/scalar.h"

namespace kiln::vm {

namespace {
constexpr int kMaxCallDepth = 256;
constexpr auto kWaitTimeout = std::chrono::hours(1);

// stablehlo.divide and remainder on si64 (kernels/reference/scalar_eval.cc):
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
}  // namespace

Context::Context(std::shared_ptr<const LoadedModule> module, hal::Device* device)
    : module_(std::move(module)), device_(device) {}

Context::~Context() {
  // Let submitted work finish before buffers and executables go away.
  if (pending_ || timeline_) (void)Sync();
}

StatusOr<std::unique_ptr<Context>> Context::Create(std::shared_ptr<const LoadedModule> module,
                                                   hal::Device* device) {
  std::unique_ptr<Context> c(new Context(std::move(module), device));
  KILN_RETURN_IF_ERROR(c->Instantiate());
  return c;
}

Status Context::Instantiate() {
  timeline_ = device_->CreateSemaphore(0);
  for (size_t i = 0; i < module_->executables.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(auto exe, device_->PrepareModuleExecutable(module_->executables[i], module_->vulkan_shaders[i]));
    executables_.push_back(std::move(exe));
  }
  for (const auto& c : module_->constants) {
    HostTensor t;
    t.type = c.type;
    t.dims = c.dims;
    t.data.assign(c.data, c.data + c.size);
    KILN_ASSIGN_OR_RETURN(RefValue v, Write(t));
    constants_.push_back(std::move(v));
  }
  return Status::Ok();
}

namespace {

// The bytes of a tensor of `dims`, refusing negative and absurd dimensions.
StatusOr<size_t> TensorBytes(ElementType type, const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("negative dimension " + std::to_string(d));
    if (d != 0 && n > (uint64_t{1} << 40) / static_cast<uint64_t>(d))
      return ResourceExhausted("tensor too large");
    n *= static_cast<uint64_t>(d);
  }
  return static_cast<size_t>(n) * StorageBytes(type);
}

}  // namespace

StatusOr<RefValue> Context::AllocateView(ElementType type, std::vector<int64_t> dims, const HostTensor* init,
                                         bool wrap) {
  KILN_ASSIGN_OR_RETURN(const size_t bytes, TensorBytes(type, dims));
  if (init != nullptr && init->data.size() != bytes)
    return InvalidArgument("tensor data holds " + std::to_string(init->data.size()) + " bytes, its shape needs " +
                           std::to_string(bytes));
  auto view = std::make_shared<hal::BufferView>();
  view->type = type;
  view->dims = std::move(dims);
  if (init == nullptr) {
    KILN_ASSIGN_OR_RETURN(view->buffer, device_->Allocate(bytes));
  } else if (wrap) {
    KILN_ASSIGN_OR_RETURN(view->buffer, device_->WrapHostMemory(init->data.data(), bytes));
  } else {
    KILN_ASSIGN_OR_RETURN(view->buffer, device_->AllocateCopy(init->data.data(), bytes));
  }
  RefValue v;
  v.kind = RefValue::Kind::kView;
  v.view = std::move(view);
  return v;
}

StatusOr<RefValue> Context::WriteArgument(const HostTensor& t) {
  if (t.is_token || t.is_tuple) return Write(t);
  return AllocateView(t.type, t.dims, &t, /*wrap=*/true);
}

StatusOr<RefValue> Context::Write(const HostTensor& t) {
  if (t.is_token) {
    RefValue v;
    v.kind = RefValue::Kind::kToken;
    return v;
  }
  if (t.is_tuple) {
    auto list = std::make_shared<std::vector<RefValue>>();
    for (const auto& e : t.tuple_elements) {
      KILN_ASSIGN_OR_RETURN(RefValue ev, Write(e));
      list->push_back(std::move(ev));
    }
    RefValue v;
    v.kind = RefValue::Kind::kList;
    v.list = std::move(list);
    return v;
  }
  return AllocateView(t.type, t.dims, &t);
}

StatusOr<HostTensor> Context::Read(const RefValue& v) {
  HostTensor t;
  if (v.kind == RefValue::Kind::kToken) {
    t.is_token = true;
    return t;
  }
  if (v.kind == RefValue::Kind::kList) {
    t.is_tuple = true;
    for (const auto& e : *v.list) {
      KILN_ASSIGN_OR_RETURN(HostTensor et, Read(e));
      t.tuple_elements.push_back(std::move(et));
    }
    return t;
  }
  if (v.kind != RefValue::Kind::kView) return Internal("read of an empty register");
  KILN_RETURN_IF_ERROR(Sync());
  t.type = v.view->type;
  t.dims = v.view->dims;
  t.data.resize(v.view->ByteSize());
  KILN_RETURN_IF_ERROR(device_->Download(*v.view->buffer, v.view->offset, t.data.data(), t.data.size()));
  return t;
}

Status Context::Flush() {
  if (!pending_ || pending_->empty()) return Status::Ok();
  ++timeline_value_;
  return device_->Submit(std::move(pending_), {}, hal::SemaphorePoint{timeline_, timeline_value_});
}

Status Context::Sync() {
  KILN_RETURN_IF_ERROR(Flush());
  Status s = timeline_->Wait(timeline_value_, kWaitTimeout);
  if (!s.ok()) {
    // The timeline stays failed; a fresh one lets the context be reused.
    timeline_ = device_->CreateSemaphore(0);
    timeline_value_ = 0;
  }
  return s;
}

StatusOr<std::vector<HostTensor>> Context::Invoke(const std::string& name, const std::vector<HostTensor>& inputs,
                                                  const InvokeOptions& options) {
  options_ = options;
  local_grid_.reset();
  int f = module_->FindFunction(name);
  if (f < 0) return InvalidArgument("no function named '" + name + "' in the module");
  const LoadedFunction& fn = module_->functions[f];
  for (const auto& u : fn.unavailable)
    if (device_->name().rfind(u.device, 0) == 0)
      return Unimplemented("function '" + name + "' cannot run on the " + u.device + " device: " + u.op + " (" +
                           u.type + "): " + u.reason);
  if (inputs.size() != fn.args.size())
    return InvalidArgument("function '" + name + "' takes " + std::to_string(fn.args.size()) + " inputs, got " +
                           std::to_string(inputs.size()));
  std::vector<RefValue> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ValueSig& sig = fn.args[i];
    const HostTensor& in = inputs[i];
    bool shape_ok = sig.kind == ValueSig::Kind::kTensor && !in.is_token && !in.is_tuple &&
                    in.type == sig.type && in.dims.size() == sig.dims.size();
    for (size_t d = 0; shape_ok && d < sig.dims.size(); ++d)
      shape_ok = sig.dims[d] < 0 || sig.dims[d] == in.dims[d];
    if (sig.kind != ValueSig::Kind::kTensor) shape_ok = (sig.kind == ValueSig::Kind::kToken) == in.is_token;
    if (!shape_ok) {
      HostTensor probe = in;
      probe.data.clear();
      return InvalidArgument("input " + std::to_string(i) + " of '" + name + "' must be " + sig.ToString() +
                             ", got " + (in.is_token ? std::string("a token") : FormatTensor(probe)));
    }
    KILN_ASSIGN_OR_RETURN(RefValue v, WriteArgument(in));
    args.push_back(std::move(v));
  }
  std::vector<RefValue> results;
  Status s = Run(f, std::move(args), &results, 0);
  if (!s.ok()) {
    pending_.reset();
    (void)Sync();
    return s;
  }
  // Arguments may be read in place (WriteArgument): no work may still use
  // them when this returns.
  KILN_RETURN_IF_ERROR(Sync());
  std::vector<HostTensor> out;
  for (const auto& r : results) {
    KILN_ASSIGN_OR_RETURN(HostTensor t, Read(r));
    out.push_back(std::move(t));
  }
  return out;
}

Status Context::Run(int function, std::vector<RefValue> args, std::vector<RefValue>* results, int depth) {
  if (depth >= kMaxCallDepth)
    return ResourceExhausted("call stack overflow: more than " + std::to_string(kMaxCallDepth) +
                             " nested calls (runaway recursion?)");
  const LoadedFunction& fn = module_->functions[function];
  Frame frame;
  frame.function = function;
  frame.i64.assign(fn.num_i64_registers, 0);
  frame.refs.resize(fn.num_ref_registers);
  if (args.size() > frame.refs.size()) return Internal("more arguments than registers");
  for (size_t i = 0; i < args.size(); ++i) frame.refs[i] = std::move(args[i]);
  // Results come back in refs[0..n) after a return (see kReturn).
  KILN_RETURN_IF_ERROR(Execute(frame, depth));
  results->assign(frame.refs.begin(), frame.refs.begin() + fn.results.size());
  return Status::Ok();
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

  // Threaded dispatch (measured faster than one switch on the scalar loop
  // benchmark, docs/performance.md): each scalar instruction jumps straight
  // to the next one's handler; every other instruction goes through `slow`.
  // The verifier guarantees the last instruction never falls through and
  // every jump target is an instruction, so `index` stays in range.
  const Instruction* const code = fn.code.data();
  void* fast[kMaxOpcode + 1];
  for (auto& f : fast) f = &&slow;
  fast[static_cast<uint8_t>(Opcode::kMovI64)] = &&op_kMovI64;
  fast[static_cast<uint8_t>(Opcode::kAddI64)] = &&op_kAddI64;
  fast[static_cast<uint8_t>(Opcode::kSubI64)] = &&op_kSubI64;
  fast[static_cast<uint8_t>(Opcode::kMulI64)] = &&op_kMulI64;
  fast[static_cast<uint8_t>(Opcode::kSelectI64)] = &&op_kSelectI64;
  fast[static_cast<uint8_t>(Opcode::kCmpLtI64)] = &&op_kCmpLtI64;
  fast[static_cast<uint8_t>(Opcode::kCmpEqI64)] = &&op_kCmpEqI64;
  fast[static_cast<uint8_t>(Opcode::kDivI64)] = &&op_kDivI64;
  fast[static_cast<uint8_t>(Opcode::kRemI64)] = &&op_kRemI64;
  fast[static_cast<uint8_t>(Opcode::kCmpLeI64)] = &&op_kCmpLeI64;
  fast[static_cast<uint8_t>(Opcode::kCmpNeI64)] = &&op_kCmpNeI64;
  fast[static_cast<uint8_t>(Opcode::kAndI64)] = &&op_kAndI64;
  fast[static_cast<uint8_t>(Opcode::kOrI64)] = &&op_kOrI64;
  fast[static_cast<uint8_t>(Opcode::kXorI64)] = &&op_kXorI64;
  fast[static_cast<uint8_t>(Opcode::kMinI64)] = &&op_kMinI64;
  fast[static_cast<uint8_t>(Opcode::kMaxI64)] = &&op_kMaxI64;
  fast[static_cast<uint8_t>(Opcode::kScalarOp)] = &&op_kScalarOp;
  fast[static_cast<uint8_t>(Opcode::kBr)] = &&op_kBr;
  fast[static_cast<uint8_t>(Opcode::kBrIf)] = &&op_kBrIf;
  Status s;
  size_t index = 0;
#define KILN_NEXT(to)                                      \
  do {                                                     \
    index = (to);                                          \
    goto* fast[static_cast<uint8_t>(code[index].op)];      \
  } while (0)
  KILN_NEXT(0);
  op_kMovI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = I[a[1]];
    KILN_NEXT(index + 1);
  }
  op_kAddI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = static_cast<int64_t>(static_cast<uint64_t>(I[a[1]]) + static_cast<uint64_t>(I[a[2]]));
    KILN_NEXT(index + 1);
  }
  op_kSubI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = static_cast<int64_t>(static_cast<uint64_t>(I[a[1]]) - static_cast<uint64_t>(I[a[2]]));
    KILN_NEXT(index + 1);
  }
  op_kMulI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = static_cast<int64_t>(static_cast<uint64_t>(I[a[1]]) * static_cast<uint64_t>(I[a[2]]));
    KILN_NEXT(index + 1);
  }
  op_kSelectI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = I[a[1]] ? I[a[2]] : I[a[3]];
    KILN_NEXT(index + 1);
  }
  op_kCmpLtI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = I[a[1]] < I[a[2]];
    KILN_NEXT(index + 1);
  }
  op_kCmpEqI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = I[a[1]] == I[a[2]];
    KILN_NEXT(index + 1);
  }
  op_kDivI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = DivideI64(I[a[1]], I[a[2]]);
    KILN_NEXT(index + 1);
  }
  op_kRemI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = RemainderI64(I[a[1]], I[a[2]]);
    KILN_NEXT(index + 1);
  }
  op_kCmpLeI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = I[a[1]] <= I[a[2]];
    KILN_NEXT(index + 1);
  }
  op_kCmpNeI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = I[a[1]] != I[a[2]];
    KILN_NEXT(index + 1);
  }
  op_kAndI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = I[a[1]] & I[a[2]];
    KILN_NEXT(index + 1);
  }
  op_kOrI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = I[a[1]] | I[a[2]];
    KILN_NEXT(index + 1);
  }
  op_kXorI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = I[a[1]] ^ I[a[2]];
    KILN_NEXT(index + 1);
  }
  op_kMinI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = std::min(I[a[1]], I[a[2]]);
    KILN_NEXT(index + 1);
  }
  op_kMaxI64: {
    const uint32_t* a = code[index].a;
    I[a[0]] = std::max(I[a[1]], I[a[2]]);
    KILN_NEXT(index + 1);
  }
  op_kScalarOp:
    I[code[index].a[0]] = EvalScalarOp(code[index], I);
    KILN_NEXT(index + 1);
  op_kBr: KILN_NEXT(code[index].a[0]);
  op_kBrIf: {
    const uint32_t* a = code[index].a;
    KILN_NEXT(I[a[0]] ? a[1] : index + 1);
  }
slow: {
    const Instruction& ins = code[index];
    const auto& o = ins.operands;
    size_t next = index + 1;
    switch (ins.op) {
      case Opcode::kConstI64:
        I[o[0].value] = static_cast<int64_t>(o[1].value);
        break;
      case Opcode::kConstRef:
        R[o[0].value] = constants_[o[1].value];
        break;
      case Opcode::kAlloc: {
        auto v = AllocateView(static_cast<ElementType>(o[1].value), dims_of(o[2]));
        if (!v.ok()) return fail(index, v.status());
        R[o[0].value] = std::move(v.value());
        break;
      }
      case Opcode::kDispatch: {
        std::vector<hal::BufferView> ins_v, outs_v;
        for (uint32_t r : o[1].list) {
          const hal::BufferView* v;
          if (!(s = view_of(r, &v)).ok()) return fail(index, s);
          ins_v.push_back(*v);
        }
        for (uint32_t r : o[2].list) {
          const hal::BufferView* v;
          if (!(s = view_of(r, &v)).ok()) return fail(index, s);
          outs_v.push_back(*v);
        }
        if (!pending_) pending_ = device_->CreateCommandBuffer();
        pending_->Dispatch(executables_[o[0].value], std::move(ins_v), std::move(outs_v));
        break;
      }
      case Opcode::kReshape: {
        const hal::BufferView* v;
        if (!(s = view_of(o[1].value, &v)).ok()) return fail(index, s);
        auto nv = std::make_shared<hal::BufferView>(*v);
        nv->dims = dims_of(o[2]);
        // Dimensions come from registers the module sets: check them and
        // their product before trusting NumElements().
        int64_t count = 1;
        for (int64_t d : nv->dims)
          if (d < 0 || __builtin_mul_overflow(count, d, &count))
            return fail(index, InvalidArgument("reshape to invalid dimensions"));
        if (count != v->NumElements())
          return fail(index, InvalidArgument("reshape changes the number of elements"));
        RefValue rv;
        rv.kind = RefValue::Kind::kView;
        rv.view = std::move(nv);
        R[o[0].value] = std::move(rv);
        break;
      }
      case Opcode::kMovRef:
        R[o[0].value] = R[o[1].value];
        break;
      case Opcode::kLoadI64: {
        const hal::BufferView* v;
        if (!(s = view_of(o[1].value, &v)).ok()) return fail(index, s);
        if (v->NumElements() < 1) return fail(index, InvalidArgument("load from an empty tensor"));
        uint8_t bytes[16] = {};
        if (!(s = Sync()).ok()) return fail(index, s);
        size_t n = StorageBytes(v->type);
        if (!(s = device_->Download(*v->buffer, v->offset, bytes, n)).ok()) return fail(index, s);
        Scalar sc = ref::LoadScalar(v->type, bytes);
        I[o[0].value] = IsFloat(v->type) || IsComplex(v->type) ? static_cast<int64_t>(sc.re) : sc.i;
        break;
      }
      case Opcode::kDim: {
        const hal::BufferView* v;
        if (!(s = view_of(o[1].value, &v)).ok()) return fail(index, s);
        if (o[2].value >= v->dims.size()) return fail(index, InvalidArgument("dimension index out of range"));
        I[o[0].value] = v->dims[o[2].value];
        break;
      }
      case Opcode::kCall: {
        std::vector<RefValue> args, results;
        for (uint32_t r : o[1].list) args.push_back(R[r]);
        s = Run(static_cast<int>(o[0].value), std::move(args), &results, depth + 1);
        if (!s.ok()) return s;
        for (size_t k = 0; k < results.size(); ++k) R[o[2].list[k]] = std::move(results[k]);
        break;
      }
      case Opcode::kReturn: {
        std::vector<RefValue> values;
        for (uint32_t r : o[0].list) values.push_back(R[r]);
        for (size_t k = 0; k < values.size(); ++k) R[k] = std::move(values[k]);
        return Status::Ok();
      }
      case Opcode::kMakeList: {
        auto list = std::make_shared<std::vector<RefValue>>();
        for (uint32_t r : o[1].list) list->push_back(R[r]);
        RefValue v;
        v.kind = RefValue::Kind::kList;
        v.list = std::move(list);
        R[o[0].value] = std::move(v);
        break;
      }
      case Opcode::kListGet: {
        const RefValue& l = R[o[1].value];
        if (l.kind != RefValue::Kind::kList || o[2].value >= l.list->size())
          return fail(index, InvalidArgument("tuple element index out of range"));
        R[o[0].value] = (*l.list)[o[2].value];
        break;
      }
      case Opcode::kMakeToken:
        R[o[0].value] = RefValue{RefValue::Kind::kToken, nullptr, nullptr};
        break;
      case Opcode::kFail:
        return fail(index, Unimplemented(module_->strings[o[0].value]));
      case Opcode::kPrint: {
        auto t = Read(R[o[0].value]);
        if (!t.ok()) return fail(index, t.status());
        std::string text = FormatTensor(*t);
        if (options_.print) options_.print(text); else std::printf("%s\n", text.c_str());
        break;
      }
      case Opcode::kReplicaId:
      case Opcode::kPartitionId: {
        HostTensor t;
        t.type = ElementType::kUI32;
        uint32_t id = ins.op == Opcode::kReplicaId ? options_.replica_id : options_.partition_id;
        t.data.resize(4);
        std::memcpy(t.data.data(), &id, 4);
        auto v = Write(t);
        if (!v.ok()) return fail(index, v.status());
        R[o[0].value] = std::move(v.value());
        break;
      }
      case Opcode::kTensorFromI64: {
        // A rank-0 tensor of `type` holding the register's value (converted
        // as stablehlo.convert from i64 would).
        ElementType type = static_cast<ElementType>(o[2].value);
        HostTensor t;
        t.type = type;
        t.data.resize(StorageBytes(type));
        Scalar v = ref::ConvertScalar(ElementType::kSI64, type, Scalar{I[o[1].value], 0, 0});
        ref::StoreScalar(type, v, t.data.data());
        auto r = Write(t);
        if (!r.ok()) return fail(index, r.status());
        R[o[0].value] = std::move(r.value());
        break;
      }
      case Opcode::kCheckEq:
      case Opcode::kCheckAlmostEq:
      case Opcode::kCheckClose:
      case Opcode::kCheckSerializedEq:
      case Opcode::kProbe:
      case Opcode::kCheckEqResult:
        if (!(s = RunCheck(ins, frame)).ok()) return fail(index, s);
        break;
      case Opcode::kCollective:
      case Opcode::kCollectiveReduce:
        if (!(s = RunCollective(ins, frame)).ok()) return fail(index, s);
        break;
      case Opcode::kRunParallel:
        if (!(s = RunParallel(ins, frame, depth)).ok()) return fail(index, s);
        break;
      case Opcode::kInvalid:
        return fail(index, Internal("invalid opcode"));
      default:
        return fail(index, Internal("instruction without a handler"));
    }
    KILN_NEXT(next);
  }
#undef KILN_NEXT
}

}  // namespace kiln::vm
