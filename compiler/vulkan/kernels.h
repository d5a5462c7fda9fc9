// Internal to the vulkan target's code generator (compiler/vulkan/codegen.cc):
// the GLSL-building helpers every kernel family uses, and each family's
// shader generators, which live in one file per family:
// (the families of kernels/kernels.def):
//   kernels_elementwise.cc    elementwise, map, quantization
//   kernels_data_movement.cc  index maps (every data-movement kernel without its own)
//   kernels_indexing.cc       gather, scatter
//   kernels_contraction.cc    dot_general, convolution
//   kernels_contraction_blocked.cc  the register-blocked f32 dot_general
//   kernels_reduction.cc      reduce, reduce_window, select_and_scatter
//   kernels_row_block.cc      kiln.row_block
//   kernels_linalg.cc         triangular_solve
//   kernels_numeric.cc        fft, sort
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compiler/vulkan/codegen.h"
#include "kernels/kernel_table.h"

namespace kiln::compiler::vulkan {

// Whether a dispatch runs kernel `id` (kernels/kernels.def): kernel names are
// compared through the table, never spelled here.
inline bool IsKernel(const KernelParams& kp, KernelId id) { return kp.kernel == KernelName(id); }

// --- GLSL text helpers (codegen.cc) ------------------------------------

std::string S(int64_t v);     // "12"
std::string Uint(int64_t v);  // "12u"
// Replaces every "$KEY" of `text` (longer keys first).
std::string Fill(std::string text, const std::map<std::string, std::string>& values);
// "op (types)" of a dispatch, for messages.
std::string SigType(const DispatchUse& u);
// Unimplemented, naming the op, its types and `why`.
Status Refuse(const DispatchUse& u, const std::string& why);
// GLSL that splits linear index `linear` over `dims` (row-major) into the
// variables named by `names`, with `tmp` as scratch.
std::string Decompose(const std::string& linear, const std::vector<std::string>& dims,
                      const std::vector<std::string>& names, const std::string& tmp);
// Row-major linear index of multi-index `idx` in a tensor of `dims`.
std::string Linear(const std::vector<std::string>& idx, const std::vector<std::string>& dims);
// The dims of tensor `t` as GLSL expressions (parameter words).
std::vector<std::string> DimsOf(const ShaderWriter& w, size_t t);
// prefix0, prefix1, ...
std::vector<std::string> Names(const std::string& prefix, size_t n);
// The output's multi-index o0..oR-1 of invocation i.
std::string OutputIndex(const ShaderWriter& w);
// Output elements per invocation of the per-element shaders: a 4M-element
// add on lavapipe took 77 ms at one, 36 at four, 33-40 at 8 or 16
// (vm-bench --profile, one core busy; before texel reads).
constexpr uint32_t kPerInvocation = 4;
// A shader running `body` for each output element i, kPerInvocation
// consecutive elements per invocation where the body has no early return.
ShaderSource PerElement(ShaderWriter& w, const std::string& body);
// The same with `per` consecutive elements per invocation (body: element
// i = kiln_first + kiln_k), `prefetch` before its elements and `after`
// after them (kernels/vulkan/per_elements.glsl), `decls` (bindings) before
// main. Callers that pass code must not let the body return early. A body
// that does not store (`body_stores` false: `after` writes its results, for
// the elements that exist) runs with i clamped to the last element instead
// of leaving the loop there: no test per element. `unroll` asks the driver
// to unroll the loop over the elements (faster, but its compile time grows
// with the body times `per`).
ShaderSource PerElements(ShaderWriter& w, const std::string& body, uint32_t per, const std::string& prefetch = "",
                         const std::string& decls = "", const std::string& after = "", bool body_stores = true,
                         bool unroll = false);
// GLSL expressions reading dispatch inputs [first, first + types.size()) as
// program params for output invocation "i", at that index, at element 0, or
// through an input_broadcast-style axis map (needs OutputIndex declared),
// and through kiln.elementwise's "input_slices" (`slices`, may be empty;
// with a map only).
Status ReadInputs(const DispatchUse& u, ShaderWriter& w, std::span<const int64_t> map, size_t first,
                  const std::vector<ElementType>& types, std::vector<std::string>* params,
                  std::span<const int64_t> slices = {});
// A contraction's accumulator `acc` (in the result's compute type) as a
// value of the result type: rounded to a narrow float, wrapped to a narrow
// integer.
std::string AccumulatorValue(const GType& rt);
// A register-blocked tile's column, for its fused epilogue: `axis` is the
// output axis whose coordinate a tile column holds (-1: none), `start`
// the GLSL that declares that coordinate as o<axis> at the top of a column
// (leaving the loop past the output's edge); StoreResult adds to `code`
// the epilogue's reads that depend on that axis alone, made once per
// column instead of once per element.
struct EpilogueColumn {
  int64_t axis = -1;
  std::string start;
  std::string code;
};
// How a producer stores its result `value` at output index "i": directly or
// through its fused epilogue (kernels/reference/epilogue.h); with `column`,
// the reads by column go there.
StatusOr<std::string> StoreResult(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w, size_t first_extra,
                                  const std::string& value, bool declare_index, EpilogueColumn* column = nullptr);
// The store loop of a register-blocked shader: every result of its
// `rows` x `cols` tile (`acc`, an expression in r and c) that `coords` and
// `guard` place inside the output goes through `store` (which sees it as
// `v`). Unrolled for a plain store; with a fused epilogue the tile is staged
// in an array and stored by a rolled loop, so that the driver compiles the
// epilogue once instead of once per element (KernelParams::Program).
// With a column's code (EpilogueColumn), that rolled loop goes column by
// column. `acc_type`: the GLSL type of the accumulators (int for integer
// contractions).
std::string StoreTile(const KernelParams& kp, const std::string& rows, const std::string& cols,
                      const std::string& acc, const std::string& coords, const std::string& guard,
                      const std::string& store, const EpilogueColumn& column = {},
                      const std::string& acc_type = "float");

// --- the kernel families --------------------------------------------------------

using ShaderGenerator = StatusOr<ShaderSource>(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w);

ShaderGenerator Elementwise, Map, Quantization;             // kernels_elementwise.cc
ShaderGenerator IndexMap;                                   // kernels_data_movement.cc
ShaderGenerator Gather, Scatter;                            // kernels_indexing.cc
ShaderGenerator DotGeneral, Convolution;                    // kernels_contraction.cc

// The register-blocked f32 dot_general (kernels_contraction_blocked.cc).
// BlockedDotLayout says whether a dot_general's operands fit it: lhs
// [batch, free, contracting] and rhs [batch, contracting, free] (0) or
// [batch, free, contracting] (1), all f32; nullopt sends it to the generic
// shader. DotGeneralBlocked writes the shader; m, n, k are GLSL expressions of
// the output's M and N and the contracted size.
std::optional<int> BlockedDotLayout(const DispatchUse& u, int lr, int rr, const std::vector<int64_t>& lb,
                                    const std::vector<int64_t>& rb, const std::vector<int64_t>& lc,
                                    const std::vector<int64_t>& rc, const std::vector<int64_t>& lfree,
                                    const std::vector<int64_t>& rfree);
StatusOr<ShaderSource> DotGeneralBlocked(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w, int layout,
                                         size_t batch_dims, size_t m_dims, const std::string& m, const std::string& n,
                                         const std::string& k);
// Whether DotGeneralStrided takes a product: f32 throughout, or 8- and
// 16-bit integer operands into i32 (summed in int accumulators).
bool StridedDotTakes(const DispatchUse& u);
// The same tile for f32 operands of any other layout (kernels/vulkan/
// dot_general_strided.glsl): each operand read through its dims' strides,
// the contraction as one loop per contracting dim.
StatusOr<ShaderSource> DotGeneralStrided(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w,
                                         const std::vector<int64_t>& lb, const std::vector<int64_t>& rb,
                                         const std::vector<int64_t>& lc, const std::vector<int64_t>& rc,
                                         const std::vector<int64_t>& lfree, const std::vector<int64_t>& rfree);
// A convolution's window and dimension numbers as Convolution parses them
// (spatial vectors one entry per spatial dim, padding two: lo, hi).
struct ConvWindow {
  std::vector<int64_t> strides, lhs_dil, rhs_dil, reversal, padding, isp, ksp, osp;
  int64_t ib = 0, ifd = 0, kif = 0, kof = 0, ob = 0, ofd = 0, fgc = 1, bgc = 1;
  bool dynamic = false;
};
// The result layouts the register-blocked convolution writes.
enum class ConvOutputLayout { kFeatureLast, kFeatureMajor };  // [b, spatial..., f], [b, f, spatial...]
// The register-blocked convolution (kernels_contraction_blocked.cc):
// BlockedConvLayout says whether a convolution fits it (f32, or 8- and
// 16-bit integers into i32; one batch group, any feature groups, any lhs
// dilation, static padding, a result of either layout; any input and
// kernel layout); nullopt sends it to the generic shader.
std::optional<ConvOutputLayout> BlockedConvLayout(const DispatchUse& u, const ConvWindow& c);
StatusOr<ShaderSource> ConvolutionBlocked(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w,
                                          const ConvWindow& c, ConvOutputLayout layout);
ShaderGenerator Reduce, ReduceWindow, SelectAndScatter;     // kernels_reduction.cc
ShaderGenerator RowBlock;                                   // kernels_row_block.cc
ShaderGenerator TriangularSolve;                            // kernels_linalg.cc
ShaderGenerator Cholesky;                                   // kernels_linalg.cc
ShaderGenerator BitcastConvert;                             // kernels_data_movement.cc
ShaderGenerator BatchNorm;                                  // kernels_reduction.cc
ShaderGenerator RaggedDot;                                  // kernels_contraction.cc
ShaderGenerator Scan;                                       // kernels_reduction.cc
ShaderGenerator Qr;                                         // kernels_linalg.cc
ShaderGenerator Lu;                                         // kernels_linalg.cc
ShaderGenerator Gtsv;                                       // kernels_linalg.cc
ShaderGenerator Sytrd;                                      // kernels_linalg.cc
ShaderGenerator Syevd;                                      // kernels_linalg.cc
ShaderGenerator Geqp3;                                      // kernels_linalg.cc
ShaderGenerator Svd;                                        // kernels_linalg.cc (kiln.gesdd, kiln.gesvd)
ShaderGenerator Gehrd;                                      // kernels_linalg.cc
ShaderGenerator Fft, Sort, TopK, RngBitGenerator, Rng;      // kernels_numeric.cc

}  // namespace kiln::compiler::vulkan
