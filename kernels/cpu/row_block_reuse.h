// Reuse of a fused producer's values in a row block's tail
// (reduction_row_block.cc): softmax's tail exp(x - max) / sum recomputes the
// exp(x - max) its sum's producer already computed over the same rows. The
// row block keeps the producer's values of the current block (in L2) and
// the tail reads them as an input instead: one exp per element instead of
// two. The values are the same bits (the same interpreter runs the same ops
// on the same inputs), so the result does not change.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/common/kernel.h"

namespace kiln::cpu {

// What a program param reads: the tensor's data and type, and its element
// stride along each axis of the program's output (0 where broadcast).
struct ProgramInput {
  const uint8_t* data = nullptr;
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> strides;
  bool operator==(const ProgramInput& o) const {
    return data == o.data && type == o.type && strides == o.strides;
  }
};

// Whether value `a` of `pa` (its params reading `ia`) computes exactly what
// value `b` of `pb` (reading `ib`) does: the same ops with the same
// attributes and constants over params that read the same elements. Only
// programs of at most kMaxReuseValues values are compared (false otherwise).
constexpr size_t kMaxReuseValues = 256;
bool SameValue(const ScalarProgram& pa, const std::vector<ProgramInput>& ia, size_t a, const ScalarProgram& pb,
               const std::vector<ProgramInput>& ib, size_t b);

// The instruction value of `prog` (reading `ins`) that computes the result
// of `producer` (reading `producer_ins`), or -1.
int64_t FindProducerValue(const ScalarProgram& prog, const std::vector<ProgramInput>& ins,
                          const ScalarProgram& producer, const std::vector<ProgramInput>& producer_ins);

// `prog` with each value of `replaced` (instruction values) read from a new
// param of its type instead, and the instructions and params no result
// needs any more dropped. sources[i] says where the new param i comes from:
// an old param index, or -1 - j for replaced[j].
ScalarProgram ReplaceWithParams(const ScalarProgram& prog, const std::vector<size_t>& replaced,
                                std::vector<int64_t>* sources);

}  // namespace kiln::cpu
