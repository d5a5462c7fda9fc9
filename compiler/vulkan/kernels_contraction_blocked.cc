// The vulkan target's register-blocked dot_general (kernels/vulkan/
// dot_general_blocked.glsl): f32 contractions whose operands are already
// laid out as [batch, M, K] x [batch, K, N] or [batch, N, K] in memory, the
// forms of dense layers and batched matmuls. DotGeneral (kernels_
// contraction.cc) sends every other layout and type to its generic shader.
#include "compiler/vulkan/kernels.h"

namespace kiln::compiler::vulkan {

namespace {

// Invocation tile (TM x TN outputs) and work-group shape (WX x WY
// invocations): 8x16 outputs per invocation in 8-wide groups along N (one
// lavapipe SIMD row per group). Measured at 1024^3 on lavapipe, loaded
// machine, one run: 8x8 472-552 ms, 8x16 310-389, 16x8 327-417, 16x16
// 250-346 but 3.3 s of JIT at the first dispatch (8x16: 1.2 s, 8x8: 0.7 s),
// which every test and first call pays (benchmarks/vulkan_gemm.sh).
constexpr uint32_t kTm = 8, kTn = 16, kWx = 8, kWy = 1;

bool IsRun(const std::vector<int64_t>& v, int64_t first) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != first + static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

std::optional<int> BlockedDotLayout(const DispatchUse& u, int lr, int rr, const std::vector<int64_t>& lb,
                                    const std::vector<int64_t>& rb, const std::vector<int64_t>& lc,
                                    const std::vector<int64_t>& rc, const std::vector<int64_t>& lfree,
                                    const std::vector<int64_t>& rfree) {
  if (u.in_types.size() < 2 || u.out_types.size() != 1) return std::nullopt;
  if (u.in_types[0] != ElementType::kF32 || u.in_types[1] != ElementType::kF32 || u.out_types[0] != ElementType::kF32)
    return std::nullopt;
  const int64_t nb = static_cast<int64_t>(lb.size());
  if (!IsRun(lb, 0) || !IsRun(rb, 0)) return std::nullopt;
  // lhs: [batch, free, contracting].
  if (!IsRun(lfree, nb) || !IsRun(lc, nb + static_cast<int64_t>(lfree.size())) ||
      nb + static_cast<int64_t>(lfree.size() + lc.size()) != lr)
    return std::nullopt;
  if (nb + static_cast<int64_t>(rfree.size() + rc.size()) != rr) return std::nullopt;
  // rhs: [batch, contracting, free] (0) or [batch, free, contracting] (1).
  if (IsRun(rc, nb) && IsRun(rfree, nb + static_cast<int64_t>(rc.size()))) return 0;
  if (IsRun(rfree, nb) && IsRun(rc, nb + static_cast<int64_t>(rfree.size()))) return 1;
  return std::nullopt;
}

StatusOr<ShaderSource> DotGeneralBlocked(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w, int layout,
                                         size_t batch_dims, size_t m_dims, const std::string& m, const std::string& n,
                                         const std::string& k) {
  KILN_ASSIGN_OR_RETURN(std::string store, StoreResult(kp, u, w, 2, "v", true));
  w.extensions.push_back("GL_EXT_control_flow_attributes");  // [[unroll]]
  // Both operands are also bound as texel buffers, after the storage bindings
  // (the parameters, the inputs, the output).
  const int64_t texel_binding = 1 + static_cast<int64_t>(w.num_inputs()) + 1;
  std::string body = Fill(Template("dot_general_blocked.glsl"),
                          {{"FUNCTIONS", ""},
                           {"TM", S(kTm)},
                           {"TN", S(kTn)},
                           {"BT", S(layout)},
                           {"M", m},
                           {"N", n},
                           {"K", k},
                           {"AOFF", S(w.OffsetWord(0))},
                           {"ATEX", S(texel_binding)},
                           {"BTEX", S(texel_binding + 1)},
                           {"BOFF", S(w.OffsetWord(1))},
                           {"STORE", "const uint i = (b * M + m) * N + n;\n" + store}});
  ShaderSource s = w.Finish(body, kWx, kWy);
  s.grid = hal::ShaderGrid::kTiles;
  s.features |= hal::kTexelInputs;
  s.texel_inputs = 0b11;
  s.grid_args = {static_cast<uint32_t>(batch_dims), static_cast<uint32_t>(m_dims), kWy * kTm, kWx * kTn};
  return s;
}

}  // namespace kiln::compiler::vulkan
