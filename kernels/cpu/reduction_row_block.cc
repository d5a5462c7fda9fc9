// Fast kiln.row_block (kernels/reference/row_block.h) for f32 and f64 row
// blocks of the shape the compiler forms (softmax, log-softmax, layer and
// RMS norms): every unit but the last computes a per-row value (one value
// per row of the output, the output's innermost axis being the row), as a
// reduce of the innermost axis (its operand computed on the fly by its
// "input" program), an elementwise program over the per-row values, or a
// reshape of one; the last unit is the elementwise tail over the whole
// output.
//
// The rows are cut into blocks of about kBlockElements output elements
// (L2-resident), and each block goes through all the units before the next:
// the full-size inputs are read from memory once and then from cache, and
// the output is written once. Every unit computes exactly what its own
// dispatch would (the same reducer, elementwise interpreter and order, rows
// never split), so the bits are the reference's at every thread count.
// Anything else (another shape, a unit reading another row's value, other
// types) runs the reference kernel.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "kernels/cpu/aligned_scratch.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernels.h"
#include "kernels/cpu/reduction.h"
#include "kernels/cpu/row_block_reuse.h"
#include "kernels/reference/elementwise_inputs.h"
#include "kernels/reference/row_block.h"

namespace kiln::cpu {
namespace {

// Output elements per block: 128 KB of f32, so a block's full-size inputs
// and output stay in a core's L2 while all units run over it.
constexpr size_t kBlockElements = 32 * 1024;

enum class StepKind { kReduce, kRows, kAlias, kTail };

struct Step {
  StepKind kind = StepKind::kAlias;
  ElementType type = ElementType::kF32;
  ReduceProblem reduce;
  ElementwiseProblem elementwise;  // kRows, kTail, or a reduce's producer
  bool has_producer = false;
  // A reduce whose producer values the tail reads again: the index of its
  // per-block buffer (see row_block_reuse.h), else -1.
  int cache = -1;
  // The tail reading cached values: its rewritten program, and for each
  // cache the index of the tail input that reads it.
  ScalarProgram reuse_program;
  std::vector<size_t> cache_input;
};

// What each param of `prog` reads over an output of `space` (false if the
// axis map does not apply).
bool ProgramInputs(const KernelParams& params, std::span<const TensorRef> ins, const KernelAttr* map,
                   std::span<const int64_t> space, std::vector<ProgramInput>* out) {
  const TensorRef shape{ElementType::kF32, space, nullptr, 0};
  const KernelCall as_output{params, ins, std::span<const TensorRef>(&shape, 1), nullptr};
  std::vector<std::vector<int64_t>> strides;
  if (!ref::ElementwiseInputStrides(as_output, map, &strides).ok() || strides.size() != ins.size()) return false;
  out->clear();
  for (size_t i = 0; i < ins.size(); ++i) out->push_back(ProgramInput{ins[i].data, ins[i].type, strides[i]});
  return true;
}


// A row block's steps for one signature of shapes and addresses (see
// RowBlock), with the scratch the steps write their per-row values to.
struct RowBlockPlan : KernelPlan {
  bool fast = false;  // false: the reference runs this call
  std::vector<ref::RowBlockUnit> units;  // the steps' programs point into these
  std::vector<Step> steps;
  std::vector<hwy::AlignedFreeUniquePtr<uint8_t[]>> buffers;
  size_t n = 0, outer = 0;
  size_t caches = 0;  // per-block buffers of reused producer values (ReuseProducerValues)
  // Per worker: copies of the steps' problems whose buffers change per block
  // (cached producers and the tail reading them), kept with the plan (a
  // plan serves one call at a time) so that a call copies nothing.
  std::vector<std::vector<ElementwiseProblem>> work;
};

// Whether every input that is a per-row value (`per_row`) is read at the
// element of the output's row only: within `space`, its stride along the
// first `row_axes` axes is the row-major stride of those axes, and 0 along
// the others. Values of other rows may not have been computed yet.
bool RowLocal(const KernelParams& params, std::span<const TensorRef> ins, const std::vector<bool>& per_row,
              const KernelAttr* map, std::span<const int64_t> space, size_t row_axes) {
  const TensorRef shape{ElementType::kF32, space, nullptr, 0};
  const KernelCall as_output{params, ins, std::span<const TensorRef>(&shape, 1), nullptr};
  std::vector<std::vector<int64_t>> strides;
  if (!ref::ElementwiseInputStrides(as_output, map, &strides).ok()) return false;
  std::vector<int64_t> dense(row_axes, 1);
  for (size_t a = row_axes; a-- > 1;) dense[a - 1] = dense[a] * space[a];
  for (size_t i = 0; i < ins.size(); ++i) {
    if (!per_row[i]) continue;
    for (size_t a = 0; a < space.size(); ++a) {
      if (space[a] == 1) continue;
      if (strides[i][a] != (a < row_axes ? dense[a] : 0)) return false;
    }
  }
  return true;
}

bool IsFloatType(ElementType t) { return t == ElementType::kF32 || t == ElementType::kF64; }

// Finds the reduce producers whose values the tail computes again and
// rewrites the tail to read them from per-block buffers (row_block_reuse.h):
// sets those steps' `cache` and the tail's `reuse_program` / `cache_input`,
// and returns the number of buffers (0: nothing reused).
size_t ReuseProducerValues(std::vector<Step>* steps_ptr, const std::vector<std::vector<ProgramInput>>& reads) {
  std::vector<Step>& steps = *steps_ptr;
  Step& tail = steps.back();
  if (tail.kind != StepKind::kTail || reads.back().empty()) return 0;
  std::vector<size_t> replaced, from_step;
  for (size_t k = 0; k + 1 < steps.size(); ++k) {
    const Step& s = steps[k];
    if (s.kind != StepKind::kReduce || !s.has_producer || s.type != tail.type || reads[k].empty()) continue;
    const int64_t v = FindProducerValue(*tail.elementwise.program, reads.back(), *s.elementwise.program, reads[k]);
    if (v < 0 || std::find(replaced.begin(), replaced.end(), static_cast<size_t>(v)) != replaced.end()) continue;
    replaced.push_back(static_cast<size_t>(v));
    from_step.push_back(k);
  }
  if (replaced.empty()) return 0;
  std::vector<int64_t> sources;
  tail.reuse_program = ReplaceWithParams(*tail.elementwise.program, replaced, &sources);
  ElementwiseProblem e = tail.elementwise;
  e.program = &tail.reuse_program;
  e.inputs.clear();
  e.input_is_scalar.clear();
  e.gather_strides.clear();
  tail.cache_input.assign(replaced.size(), 0);
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i] >= 0) {
      const size_t old = static_cast<size_t>(sources[i]);
      e.inputs.push_back(tail.elementwise.inputs[old]);
      e.input_is_scalar.push_back(tail.elementwise.input_is_scalar[old]);
      e.gather_strides.push_back(tail.elementwise.gather_strides[old]);
    } else {
      // A value no result needs any more (inside another reused one) keeps
      // no buffer: its step stays uncached.
      const size_t j = static_cast<size_t>(-1 - sources[i]);
      steps[from_step[j]].cache = static_cast<int>(j);
      steps[from_step[j]].elementwise.outputs = {nullptr};  // the block's buffer, set per block
      tail.cache_input[j] = i;
      e.inputs.push_back(nullptr);  // set per block
      e.input_is_scalar.push_back(false);
      e.gather_strides.emplace_back();
    }
  }
  tail.elementwise = std::move(e);
  return replaced.size();
}

// Per-thread buffer `index` of at least `bytes`, kept between dispatches.
uint8_t* CacheBuffer(size_t index, size_t bytes) {
  thread_local std::vector<hwy::AlignedFreeUniquePtr<uint8_t[]>> buffers;
  thread_local std::vector<size_t> sizes;
  // Exception-safe (a failed allocation leaves both lists usable): sizes
  // grows first, and a size is recorded only with its buffer.
  if (buffers.size() <= index) {
    sizes.resize(index + 1, 0);
    buffers.resize(index + 1);
  }
  if (sizes[index] < bytes) {
    buffers[index] = AllocateAlignedOrThrow<uint8_t>(bytes);
    sizes[index] = bytes;
  }
  return buffers[index].get();
}

}  // namespace

namespace {

// Builds the steps of `call` into `plan` (their scratch buffers and the
// units their programs point into included); false where the fast path
// does not take the call.
bool PlanRowBlock(const KernelCall& call, RowBlockPlan* plan) {
  std::vector<ref::RowBlockUnit>& units = plan->units;
  if (!ref::ParseRowBlock(call.params, call.inputs.size(), &units).ok() || call.outputs.size() != 1) return false;
  const TensorRef& out = call.outputs[0];
  const std::span<const int64_t> dims = out.dims;
  if (dims.empty() || units.back().params.kernel != "kiln.elementwise" ||
      !std::equal(dims.begin(), dims.end(), units.back().dims.begin(), units.back().dims.end()))
    return false;
  for (int64_t d : dims)
    if (d <= 0) return false;  // nothing to gain; the reference checks
  const size_t n = static_cast<size_t>(dims.back());
  size_t& outer = plan->outer;
  outer = 1;
  for (size_t a = 0; a + 1 < dims.size(); ++a) outer *= static_cast<size_t>(dims[a]);
  const int64_t rank = static_cast<int64_t>(dims.size());

  std::vector<TensorRef> values(call.inputs.begin(), call.inputs.end());
  std::vector<bool> per_row(values.size(), false);
  std::vector<hwy::AlignedFreeUniquePtr<uint8_t[]>>& buffers = plan->buffers;
  std::vector<Step>& steps = plan->steps;
  steps.assign(units.size(), Step{});
  std::vector<std::vector<ProgramInput>> reads(units.size());  // producers' and the tail's params
  for (size_t k = 0; k < units.size(); ++k) {
    const ref::RowBlockUnit& u = units[k];
    const bool tail = k + 1 == units.size();
    Step& s = steps[k];
    std::vector<TensorRef> ins;
    std::vector<bool> ins_per_row;
    for (int64_t v : u.inputs) {
      ins.push_back(values[static_cast<size_t>(v)]);
      ins_per_row.push_back(per_row[static_cast<size_t>(v)]);
    }
    size_t count = 1;
    for (int64_t d : u.dims) count *= static_cast<size_t>(d);
    if (!tail && count != outer) return false;
    const std::string& kernel = u.params.kernel;
    TensorRef result{ElementType::kInvalid, u.dims, nullptr, 0};
    if (kernel == "stablehlo.reduce" && !tail) {
      const ScalarProgram* body = u.params.Program("body");
      const ScalarProgram* input = u.params.Program("input");
      const auto axes = u.params.Ints("dimensions");
      if (body == nullptr || !ReduceBodyOp(*body, &s.reduce.op, &s.type) || ins.size() < 2 ||
          axes.size() != 1 || axes[0] != rank - 1)
        return false;
      const TensorRef& init = ins.back();
      if (!StorageOk(init, s.type) || init.rank() != 0) return false;
      const std::span<const TensorRef> operands(ins.data(), ins.size() - 1);
      if (input != nullptr) {
        const auto in_dims = u.params.Ints("input_dims");
        const KernelAttr* map = u.params.Find("input_broadcast");
        const KernelCall sub{u.params, operands, {}, call.runner};
        if (!std::equal(in_dims.begin(), in_dims.end(), dims.begin(), dims.end()) || input->results.size() != 1 ||
            input->ValueType(input->results[0]) != s.type ||
            !MakeElementwiseProblem(sub, input, map, dims, &s.elementwise) ||
            !RowLocal(u.params, operands, std::vector<bool>(ins_per_row.begin(), ins_per_row.end() - 1), map, dims,
                      dims.size() - 1))
          return false;
        s.elementwise.stream = false;
        s.has_producer = true;
        if (!ProgramInputs(u.params, operands, map, dims, &reads[k])) reads[k].clear();
      } else {
        if (operands.size() != 1 || ins_per_row[0] || !StorageOk(operands[0], s.type) ||
            !std::equal(dims.begin(), dims.end(), operands[0].dims.begin(), operands[0].dims.end()))
          return false;
        s.reduce.in = operands[0].data;
      }
      s.kind = StepKind::kReduce;
      s.reduce.init = init.data;
      s.reduce.outer = outer;
      s.reduce.r = n;
      s.reduce.inner = 1;
    } else if (kernel == "kiln.elementwise") {
      const ScalarProgram* body = u.params.Program("body");
      const KernelAttr* map = u.params.Find("input_broadcast");
      const KernelCall sub{u.params, ins, {}, call.runner};
      if (body == nullptr || body->results.size() != 1 ||
          !MakeElementwiseProblem(sub, body, map, u.dims, &s.elementwise) ||
          !RowLocal(u.params, ins, ins_per_row, map, u.dims, tail ? u.dims.size() - 1 : u.dims.size()))
        return false;
      s.type = s.elementwise.type;
      s.kind = tail ? StepKind::kTail : StepKind::kRows;
      if (tail && !ProgramInputs(u.params, ins, map, u.dims, &reads[k])) reads[k].clear();
      s.elementwise.stream = tail;
    } else if ((kernel == "stablehlo.broadcast_in_dim" || kernel == "stablehlo.reshape") && !tail) {
      // A reshape of a per-row value (jax's keepdims: [R] -> [R, 1]) reads
      // the same elements in the same order: its result is its operand.
      if (ins.size() != 1 || !ins_per_row[0] || !IsFloatType(ins[0].type)) return false;
      if (kernel == "stablehlo.broadcast_in_dim") {
        const auto bd = u.params.Ints("broadcast_dimensions");
        if (bd.size() != ins[0].dims.size()) return false;
        for (size_t i = 0; i < bd.size(); ++i)
          if (bd[i] < 0 || bd[i] >= static_cast<int64_t>(u.dims.size()) || (i > 0 && bd[i] <= bd[i - 1]) ||
              ins[0].dims[i] != u.dims[static_cast<size_t>(bd[i])])
            return false;
      }
      s.kind = StepKind::kAlias;
      s.type = ins[0].type;
      result = TensorRef{s.type, u.dims, ins[0].data, ins[0].byte_size};
    } else {
      return false;
    }
    if (!IsFloatType(s.type)) return false;
    if (tail) {
      if (!StorageOk(out, s.type)) return false;
      s.elementwise.outputs = {out.data};
    } else if (s.kind != StepKind::kAlias) {
      const size_t bytes = outer * StorageBytes(s.type);
      buffers.push_back(AllocateAlignedOrThrow<uint8_t>(std::max<size_t>(bytes, 64)));
      plan->bytes += std::max<size_t>(bytes, 64);
      result = TensorRef{s.type, u.dims, buffers.back().get(), bytes};
      if (s.kind == StepKind::kReduce) s.reduce.out = result.data;
      else s.elementwise.outputs = {result.data};
    }
    values.push_back(result);
    per_row.push_back(true);
  }
  // Producers point into `steps`, whose size no longer changes.
  for (Step& s : steps)
    if (s.kind == StepKind::kReduce && s.has_producer) s.reduce.producer = &s.elementwise;

  plan->n = n;
  plan->caches = n <= kBlockElements ? ReuseProducerValues(&steps, reads) : 0;
  return true;
}

}  // namespace

Status RowBlock(const KernelCall& call) {
  // The plan (units parsed, shapes checked, stride tables, scratch) is a
  // function of the attributes, the shapes and the data addresses, all in
  // its key: with an arena and constants those repeat from call to call, so
  // a repeated dispatch runs straight from the executable's state.
  PlanKey key(kPlanRowBlock);
  for (const TensorRef& t : call.inputs) {
    AddShape(key, t);
    key.AddPointer(t.data);
  }
  for (const TensorRef& t : call.outputs) {
    AddShape(key, t);
    key.AddPointer(t.data);
  }
  PlanLease<RowBlockPlan> lease(call.state, key);
  if (lease.get() == nullptr) {
    auto plan = std::make_unique<RowBlockPlan>();
    plan->fast = PlanRowBlock(call, plan.get());
    if (!plan->fast) {
      plan->units.clear();
      plan->steps.clear();
      plan->buffers.clear();
    }
    lease.Set(std::move(plan));
  }
  if (!lease.get()->fast) return RunReference(call);
  const std::vector<Step>& steps = lease.get()->steps;
  const size_t n = lease.get()->n, outer = lease.get()->outer;
  const size_t rows_per_block = std::max<size_t>(1, kBlockElements / n);
  const size_t caches = lease.get()->caches;
  const size_t block_bytes = rows_per_block * n * StorageBytes(steps.back().type);
  const size_t elem = StorageBytes(steps.back().type);
  std::vector<std::vector<ElementwiseProblem>>& work = lease.get()->work;
  if (caches > 0 && work.size() < static_cast<size_t>(NumWorkers(call.runner))) {
    std::vector<ElementwiseProblem> one;
    for (const Step& s : steps) one.push_back(s.elementwise);
    work.assign(static_cast<size_t>(NumWorkers(call.runner)), one);
  }
  const int64_t tasks = static_cast<int64_t>((outer + rows_per_block - 1) / rows_per_block);
  ParallelFor(call.runner, tasks, [&](int64_t task, int worker) {
    const size_t o0 = static_cast<size_t>(task) * rows_per_block;
    const size_t o1 = std::min(outer, o0 + rows_per_block);
    for (size_t k = 0; k < steps.size(); ++k) {
      const Step& s = steps[k];
      switch (s.kind) {
        case StepKind::kReduce: {
          ReduceProblem q = s.reduce;
          q.row_begin = o0;
          q.row_end = o1;
          if (s.cache >= 0) {
            // The producer's values of this block go to a buffer the reduce
            // folds and the tail reads.
            uint8_t* buf = CacheBuffer(static_cast<size_t>(s.cache), block_bytes);
            ElementwiseProblem& e = work[static_cast<size_t>(worker)][k];
            e.outputs[0] = buf;
            e.out_base = o0 * n;
            RunElementwiseRange(e, o0 * n, o1 * n);
            q.producer = nullptr;
            q.in = buf;
            q.out = static_cast<uint8_t*>(q.out) + o0 * elem;
            q.row_begin = 0;
            q.row_end = o1 - o0;
            // The tail reads input element e at in + e: the buffer holds
            // elements [o0 * n, o1 * n). (Integer arithmetic: the pointer
            // itself lies before the buffer, only elements inside are read.)
            work[static_cast<size_t>(worker)].back().inputs[steps.back().cache_input[static_cast<size_t>(s.cache)]] =
                reinterpret_cast<const uint8_t*>(reinterpret_cast<uintptr_t>(buf) - o0 * n * elem);
          }
          RunReduceRows(q, s.type);
          break;
        }
        case StepKind::kRows: RunElementwiseRange(s.elementwise, o0, o1); break;
        case StepKind::kTail:
          RunElementwiseRange(caches > 0 ? work[static_cast<size_t>(worker)].back() : s.elementwise, o0 * n, o1 * n);
          break;
        case StepKind::kAlias: break;
      }
    }
  });
  return Status::Ok();
}

}  // namespace kiln::cpu
