// Memory planning: packs a function's statically sized transient tensors
// into one arena by liveness, after lowering (it works on the function's
// bytecode, where every tensor's life is explicit in ref registers).
//
// A candidate is an `alloc` whose dimensions are all i64 registers set once,
// by const.i64, to a non-negative value. It is planned unless it may escape
// the activation or outlive its own next execution:
//   - escape: a register that may hold it (its register and every register
//     it reaches through mov.ref, reshape and call (to a callee that may
//     return its argument), merged into one class) is a return value, a list element,
//     or an operand of a collective or run_parallel (their payloads cross
//     processes), or of any instruction this pass does not know. A callee
//     reads its arguments in place, from the caller's arena;
//   - a register of its class is live just before the alloc runs (a loop
//     carrying it into the next iteration, whose alloc would reuse the same
//     bytes while the old value is still read).
// Two candidates may share bytes only if no instruction has registers of
// both classes live (before or after it), or if one is the single output of
// an in-place-safe dispatch (kiln.elementwise: every block of its inputs is
// read before the same block of its output is written) and the other an
// input of it with the same element count and element size, which dies
// there and is not touched between the output's view and the dispatch (the
// output then takes the input's bytes: arena.view.inplace, never poisoned,
// since the input is still in them). Planned offsets then come from
// TFLite's greedy-by-size placement (largest first, lowest offset that fits
// beside every interfering one already placed), each 64-byte aligned.
// Planned allocs become arena.view; the rest keep `alloc` (the device's pool).
// Each activation of a function takes its own arena (vm/interpreter.cc), so
// recursion and re-entrant calls never share one.
#pragma once
#include <cstdint>
#include <vector>

#include "compiler/module_builder.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// Every arena offset and size is a multiple of this (the CPU kernels'
// alignment; whole 32-bit words for the Vulkan shaders).
inline constexpr uint64_t kArenaAlignment = 64;

// Per function of the module: whether a value it returns may be (a view
// of) one of its arguments. A call to a function that may not has results
// unrelated to its arguments, so they need not keep the arguments alive.
StatusOr<std::vector<bool>> FunctionsReturningArguments(const std::vector<FunctionOut>& functions);

// Rewrites `f`'s planned allocs to arena.view and records its memory
// figures (FunctionOut::memory). With `plan` false only the figures of the
// unplanned function are recorded (arena 0). `returns_argument`: from
// FunctionsReturningArguments (a callee it does not cover counts as one that may).
// `in_place`: per executable of the module, whether its single output may
// be written over an input of the same layout (InPlaceExecutables).
Status PlanFunctionMemory(FunctionOut* f, bool plan, const std::vector<bool>& returns_argument,
                          const std::vector<bool>& in_place = {});

// Per executable: whether a dispatch of it may write its output over a
// same-sized input. Only kiln.elementwise (plain and fused): its CPU kernels
// (reference, vector) read an element's (a block's) inputs before writing
// it and never read another element of a same-layout input after writing
// one. For CPU-only modules: the Vulkan shaders bind tensors `restrict`.
std::vector<bool> InPlaceExecutables(const std::vector<KernelParams>& executables);

}  // namespace kiln::compiler
