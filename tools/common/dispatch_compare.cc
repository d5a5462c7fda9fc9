#include "tools/common/dispatch_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "hal/cpu/break_kernel.h"
#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "kernels/scalar/scalar.h"
#include "vm/bytecode.h"

namespace kiln::tools {
namespace {

StatusOr<vm::HostTensor> Fetch(hal::Device* device, const hal::BufferView& v) {
  vm::HostTensor t;
  t.type = v.type;
  t.dims = v.dims;
  t.data.resize(v.ByteSize());
  if (!t.data.empty()) KILN_RETURN_IF_ERROR(device->Download(*v.buffer, v.offset, t.data.data(), t.data.size()));
  return t;
}

TensorRef Ref(vm::HostTensor& t) {
  return TensorRef{t.type, std::span<const int64_t>(t.dims), t.data.data(), t.data.size(), 0};
}

bool Close(double got, double want, double atol, double rtol) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

// Compares output `o` of `m` (got against want) into m's fields; true if
// some element differs.
bool CompareOutput(DispatchMismatch* m, size_t o, const CompareTolerance& tol) {
  const vm::HostTensor &got = m->got[o], &want = m->want[o];
  const ElementType type = got.type;
  const int64_t n = got.NumElements();
  const size_t bytes = StorageBytes(type);
  const bool real = IsFloat(type), complex = IsComplex(type);
  const double atol = tol.Atol(type), rtol = tol.Rtol(type);
  int64_t differing = 0, first = -1;
  double max_abs = 0, max_rel = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* g = got.data.data() + i * bytes;
    const uint8_t* w = want.data.data() + i * bytes;
    bool same;
    if (real || complex) {
      const Scalar a = ref::LoadScalar(type, g), b = ref::LoadScalar(type, w);
      same = Close(a.re, b.re, atol, rtol) && (!complex || Close(a.im, b.im, atol, rtol));
      const double err = complex ? std::hypot(a.re - b.re, a.im - b.im) : std::fabs(a.re - b.re);
      const double mag = complex ? std::hypot(b.re, b.im) : std::fabs(b.re);
      if (std::isfinite(err)) {
        max_abs = std::max(max_abs, err);
        if (mag > 0) max_rel = std::max(max_rel, err / mag);
      }
    } else {
      same = std::equal(g, g + bytes, w);
      if (!same) {
        const Scalar a = ref::LoadScalar(type, g), b = ref::LoadScalar(type, w);
        const double err = std::fabs(static_cast<double>(a.i) - static_cast<double>(b.i));
        max_abs = std::max(max_abs, err);
        if (b.i != 0) max_rel = std::max(max_rel, err / std::fabs(static_cast<double>(b.i)));
      }
    }
    if (!same) {
      if (first < 0) first = i;
      ++differing;
    }
  }
  if (differing == 0) return false;
  m->output = o;
  m->index = first;
  m->differing = differing;
  m->max_abs = max_abs;
  m->max_rel = max_rel;
  return true;
}

std::string Index(const std::vector<int64_t>& dims, int64_t flat) {
  std::vector<int64_t> idx(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    idx[k] = dims[k] ? flat % dims[k] : 0;
    flat = dims[k] ? flat / dims[k] : 0;
  }
  std::string s = "[";
  for (size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + std::to_string(idx[k]);
  return s + "]";
}

std::string TypeText(const vm::HostTensor& t) {
  std::string s = "tensor<";
  for (int64_t d : t.dims) s += std::to_string(d) + "x";
  return s + std::string(Name(t.type)) + ">";
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

double CompareTolerance::Atol(ElementType t) const {
  if (atol >= 0) return atol;
  const ElementType part = IsComplex(t) ? ComplexPartType(t) : t;
  const int bits = BitWidth(part);
  return bits >= 64 ? 1e-9 : bits >= 32 ? 1e-4 : bits >= 16 ? 1e-2 : 1e-1;
}

double CompareTolerance::Rtol(ElementType t) const {
  if (rtol >= 0) return rtol;
  return Atol(t);  // the same figure per type, relative
}

std::string FusedOps(const KernelParams& params) {
  std::vector<std::string> ops;
  auto add = [&](const std::string& op) {
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  };
  for (const KernelAttr& a : params.attrs) {
    if (a.has_program)
      for (const auto& in : a.program.instrs) add(std::string(ScalarOpName(in.op)));
    const size_t dot = a.name.find('.');
    if (dot != std::string::npos && a.name.compare(dot, std::string::npos, ".kernel") == 0 && !a.str.empty()) add(a.str);
  }
  std::string s;
  for (const auto& op : ops) s += (s.empty() ? "" : ", ") + op;
  return s;
}

DispatchComparer::DispatchComparer(std::shared_ptr<const vm::LoadedModule> module, hal::Device* device,
                                   CompareTolerance tolerance, std::shared_ptr<hal::DispatchObserver> next,
                                   CompareAgainst against)
    : module_(std::move(module)), device_(device), tolerance_(tolerance), next_(std::move(next)), against_(against) {}

void DispatchComparer::BeforeDispatch(const hal::DispatchSpan& span) {
  if (next_) next_->BeforeDispatch(span);
  std::lock_guard<std::mutex> l(mu_);
  have_pending_ = false;
  if (mismatch_ || !error_.ok() || !span.inputs) return;
  pending_inputs_.clear();
  for (const hal::BufferView& v : *span.inputs) {
    auto t = Fetch(device_, v);
    if (!t.ok()) {
      error_ = t.status();
      return;
    }
    pending_inputs_.push_back(std::move(*t));
  }
  have_pending_ = true;
}

void DispatchComparer::OnDispatch(const hal::DispatchSpan& span) {
  if (next_) next_->OnDispatch(span);
  std::lock_guard<std::mutex> l(mu_);
  ++dispatches_;
  if (mismatch_ || !error_.ok() || !have_pending_ || !span.outputs) return;
  have_pending_ = false;
  // The tag names the function and instruction that recorded the dispatch
  // (vm/profiler.h MakeDispatchTag); the instruction names the executable.
  const uint64_t f = span.tag >> 32;
  const uint32_t index = static_cast<uint32_t>(span.tag);
  if (f == 0 || f > module_->functions.size() || index >= module_->functions[f - 1].code.size()) {
    error_ = Internal("a dispatch without the tag of its instruction: it cannot be compared");
    return;
  }
  const vm::LoadedFunction& fn = module_->functions[f - 1];
  const vm::Instruction& in = fn.code[index];
  if (in.op != vm::Opcode::kDispatch || in.operands.empty() || in.operands[0].value >= module_->executables.size()) {
    error_ = Internal("the tag of a dispatch names an instruction that is not a dispatch");
    return;
  }
  const KernelParams& params = module_->executables[in.operands[0].value];
  // As the CPU device chooses (hal/cpu/cpu_device.cc): its fast kernel
  // where one applies, else the reference.
  KernelFn reference = against_ == CompareAgainst::kCpu ? cpu::FindCpuKernel(params) : nullptr;
  if (!reference) reference = ref::FindReferenceKernel(params.kernel);
  if (!reference) {
    ++without_reference_;
    if (std::find(no_reference_kernels_.begin(), no_reference_kernels_.end(), params.kernel) ==
        no_reference_kernels_.end())
      no_reference_kernels_.push_back(params.kernel);
    return;
  }
  DispatchMismatch m;
  m.dispatch = dispatches_;
  m.params = &params;
  m.function = fn.name;
  m.source_file = module_->source_file;
  for (const vm::SourceLoc& loc : fn.locations)  // ascending by pc: the last at or before the instruction
    if (loc.pc <= in.pc) {
      m.line = loc.line;
      m.col = loc.col;
    }
  m.inputs = std::move(pending_inputs_);
  for (const hal::BufferView& v : *span.outputs) {
    auto t = Fetch(device_, v);
    if (!t.ok()) {
      error_ = t.status();
      return;
    }
    m.want.push_back(*t);
    std::fill(m.want.back().data.begin(), m.want.back().data.end(), 0);
    m.got.push_back(std::move(*t));
  }
  std::vector<TensorRef> ins, outs;
  for (auto& t : m.inputs) ins.push_back(Ref(t));
  for (auto& t : m.want) outs.push_back(Ref(t));
  Status s = reference(KernelCall{params, ins, outs, nullptr, /*without_epilogue=*/false, nullptr});
  if (!s.ok()) {
    error_ = Status(s.code(), std::string(against_ == CompareAgainst::kCpu ? "the cpu" : "the reference") +
                                  " kernel of " + params.kernel + " failed: " + s.message());
    return;
  }
  // The test hook breaks the CPU kernel wherever it runs (hal/cpu/break_kernel.h).
  if (against_ == CompareAgainst::kCpu && hal::KernelBrokenForTest(params.kernel)) hal::BreakOutputsForTest(outs);
  ++compared_;
  for (size_t o = 0; o < m.got.size(); ++o)
    if (CompareOutput(&m, o, tolerance_)) {
      mismatch_ = std::move(m);
      return;
    }
}

std::string DispatchComparer::Describe(const DispatchMismatch& m) const {
  const std::string fused = FusedOps(*m.params);
  std::string s = "dispatch " + std::to_string(m.dispatch) + " differs from the " +
                  (against_ == CompareAgainst::kCpu ? "cpu kernel" : "reference") + ": " + m.params->kernel;
  if (!fused.empty()) s += " (fused: " + fused + ")";
  s += " in @" + m.function + " at ";
  std::string where = m.source_file.empty() ? "<unknown file>" : m.source_file;
  if (m.line) where += ":" + std::to_string(m.line) + ":" + std::to_string(m.col);
  s += where + "\n";
  std::string ins;
  for (const auto& t : m.inputs) ins += (ins.empty() ? "" : ", ") + TypeText(t);
  std::string outs;
  for (const auto& t : m.got) outs += (outs.empty() ? "" : ", ") + TypeText(t);
  s += "  inputs: (" + ins + ") -> " + outs + "\n";
  const vm::HostTensor& g = m.got[m.output];
  s += "  output " + std::to_string(m.output) + ", element " + Index(g.dims, m.index) + " (flat " +
       std::to_string(m.index) + "): got " + vm::FormatElement(g, m.index) + (against_ == CompareAgainst::kCpu ? ", cpu " : ", reference ") +
       vm::FormatElement(m.want[m.output], m.index) + "\n";
  s += "  " + std::to_string(m.differing) + " of " + std::to_string(g.NumElements()) +
       " elements differ; max abs error " + Num(m.max_abs) + ", max rel error " + Num(m.max_rel);
  if (IsFloat(g.type) || IsComplex(g.type))
    s += " (atol " + Num(tolerance_.Atol(g.type)) + ", rtol " + Num(tolerance_.Rtol(g.type)) + ")";
  return s + "\n";
}

std::string DispatchComparer::Report() const {
  if (mismatch_) return Describe(*mismatch_);
  std::string s = std::string(against_ == CompareAgainst::kCpu ? "compare-with=cpu: " : "compare-with=reference: ") +
                  std::to_string(compared_) + " of " + std::to_string(dispatches_) +
                  " dispatches compared, all within tolerance";
  if (without_reference_) {
    std::string names;
    for (const auto& k : no_reference_kernels_) names += (names.empty() ? "" : ", ") + k;
    s += "; " + std::to_string(without_reference_) + " without a host kernel in this build (" + names + ")";
  }
  return s + "\n";
}

}  // namespace kiln::tools
