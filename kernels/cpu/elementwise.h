// The fast elementwise program interpreter of kernels/cpu/elementwise.cc as
// a building block: kiln.elementwise runs it over its output, and the fast
// reduce (reduction.cc) runs a fused producer ("input" program) through it
// into a cache-sized scratch block right before folding that block.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/common/kernel.h"

namespace kiln::cpu {

constexpr size_t kBlock = 512;  // elements per interpreted block; a multiple of every lane count

struct ElementwiseProblem {
  const ScalarProgram* program = nullptr;
  std::vector<const uint8_t*> inputs;  // per param: its first element read
  // Per param: bytes from the input's data to inputs[i] (a statically
  // sliced input, "input_slices"), applied where the data pointers are set.
  std::vector<int64_t> input_offsets;
  std::vector<bool> input_is_scalar;   // rank 0, broadcast
  // Per param: empty, or its stride along each output axis (a broadcast of
  // a lower-rank operand fused into the program, read by GatherBlock).
  std::vector<std::vector<int64_t>> gather_strides;
  std::vector<int64_t> out_dims;
  std::vector<uint8_t*> outputs;        // per result
  ElementType type = ElementType::kF32; // the program's float type (f32 or f64)
  size_t n = 0;                         // elements per output
  // Element `e` of the logical output is stored at outputs[o][e - out_base]
  // (a scratch block holding elements [out_base, ...)).
  size_t out_base = 0;
  // Non-temporal stores for full aligned blocks: right for results that go
  // to memory, wrong for a scratch block read back at once or a result the
  // next op reads from cache (kiln.elementwise streams only results of at
  // least half the last-level cache).
  bool stream = true;
};

// Fills `p` (all but outputs) for running `prog` over an output of `dims`,
// reading call.inputs as its params through `map` ("input_broadcast", may
// be null) exactly as the reference kiln.elementwise does; false when the
// fast interpreter does not take this program or these inputs.
bool MakeElementwiseProblem(const KernelCall& call, const ScalarProgram* prog, const KernelAttr* map,
                            std::span<const int64_t> dims, ElementwiseProblem* p);

// Computes output elements [begin, end) on the calling thread.
void RunElementwiseRange(const ElementwiseProblem& p, size_t begin, size_t end);

// The same over the pool, in disjoint ranges of 32K elements (each output
// element depends on its own inputs only, so the split changes no bit): how
// the convolutions run a fused epilogue over a result they have written.
void RunElementwiseRangeParallel(const ElementwiseProblem& p, size_t begin, size_t end, TaskRunner* runner);

}  // namespace kiln::cpu
