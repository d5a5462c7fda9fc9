// The vulkan target's shader for kiln.row_block (docs/kernels.md, "Row
// blocks"; kernels/reference/row_block.h): softmax, log-softmax, layer and
// RMS norms in one dispatch, in one of two shapes (hal::ShaderGrid::kPerRow):
// - a row per invocation, for short rows (at most kShortRow elements, as a
//   softmax over 10 classes or 64 keys) and for many rows (at least
//   kManyRows, as a layer norm over a sequence): each reduce is a
//   sequential fold of the row, with no shared memory and no barrier; 64
//   rows per work group, 16 where that gives fewer than 4 groups (lavapipe
//   splits a dispatch's groups between its workers);
// - a work group of 64 invocations per row, for a few long rows: the row's
//   reduces are strided partial folds combined pairwise in shared memory
//   (ReduceGroup's order), every per-row value is computed by all 64
//   invocations into a register (the same value everywhere, so no broadcast
//   through memory), and the tail program writes the row.
// Shared-memory trees and barriers are what a CPU-hosted device (lavapipe)
// pays most for: a layer norm over 64 rows of 256 took 2.0 ms as a group
// per row and 0.66 ms as a row per invocation (docs/performance.md).
// The input row is read once per reduce and once by the tail, never written
// in between; no intermediate tensor exists. Rows of whole vec4 texels read
// their f32 inputs a texel at a time and store f32 results 16 bytes at a
// time where the tensors are aligned (RowLoop).
#include <algorithm>
#include <bit>

#include "compiler/vulkan/kernels.h"
#include "kernels/reference/row_block.h"

namespace kiln::compiler::vulkan {

namespace {

constexpr int64_t kGroup = 64;
// Rows of at most kShortRow elements, or at least kManyRows rows, take an
// invocation per row rather than a work group.
constexpr int64_t kShortRow = 64;
constexpr int64_t kManyRows = 64;

struct RowBlockShader {
  const DispatchUse& u;
  ShaderWriter& w;
  std::vector<ref::RowBlockUnit> units;
  std::vector<ElementType> types;  // of every value: dispatch inputs, then units
  std::vector<int64_t> full, rows;
  int r = 0;
  int64_t row_count = 1, n = 0;
  // Invocations per row: kGroup (a work group per row) or 1; rows per work
  // group when 1.
  int64_t lanes = kGroup, rows_per_group = 1;
  std::string Lanes() const { return Uint(lanes); }
  // vec4 mode (rows of whole texels): f32 inputs read at the row's elements
  // (dims those of the row block, read in place) are fetched as vec4
  // texels, four elements at a time (RowLoop), and an f32 result is stored
  // four at a time (vec4_store: the tail did so). `texel_inputs`: the
  // inputs so read anywhere; `loop_inputs`: in the loop being generated.
  bool vec4 = false, vec4_store = false;
  mutable uint32_t texel_inputs = 0, loop_inputs = 0;

  size_t num_inputs() const { return u.in_types.size(); }
  bool IsRowDims(const std::vector<int64_t>& d) const {
    std::vector<int64_t> keep = rows;
    keep.push_back(1);
    return d == rows || d == keep;
  }
  // The position names of a result of dims `d` at the current row: of a
  // per-row unit (rows or rows + [1]: 0 on the last axis), or, `whole`, of
  // the tail or a reduced operand, at element "j" of the row.
  std::vector<std::string> Positions(const std::vector<int64_t>& d, bool whole) const {
    std::vector<std::string> pos = Names("o", static_cast<size_t>(r - 1));
    if (whole) pos.push_back("j");
    else if (static_cast<int>(d.size()) == r) pos.push_back("0u");
    return pos;
  }

  // GLSL reading value `v` for a unit at positions `pos`, through the axis
  // map segment `map` (input rank, then that many axes of the unit's result;
  // empty: same rank or rank 0). A unit's per-row value is its register,
  // valid only when it is read at the current row.
  StatusOr<std::string> Read(int64_t v, std::span<const int64_t> map, const std::vector<std::string>& pos) const {
    const bool is_unit = v >= static_cast<int64_t>(num_inputs());
    if (!is_unit && ReadsTexels(v, map, pos)) {
      texel_inputs |= 1u << v;
      loop_inputs |= 1u << v;
      return "kiln_rb" + S(v) + "[c]";
    }
    const std::vector<int64_t>* unit_dims = is_unit ? &units[v - num_inputs()].dims : nullptr;
    const int rank = is_unit ? static_cast<int>(unit_dims->size()) : w.rank(static_cast<size_t>(v));
    std::vector<std::string> dims;
    if (is_unit)
      for (int64_t d : *unit_dims) dims.push_back(Uint(d));
    else
      dims = DimsOf(w, static_cast<size_t>(v));
    std::vector<std::string> idx;
    if (map.empty()) {
      if (rank != 0 && rank != static_cast<int>(pos.size())) return Refuse(u, "a unit input of another rank");
      for (int d = 0; d < rank; ++d) idx.push_back(is_unit && (*unit_dims)[d] == 1 ? "0u" : pos[d]);
    } else {
      if (map.size() != static_cast<size_t>(rank)) return Refuse(u, "input_broadcast does not match the operands");
      for (int d = 0; d < rank; ++d) {
        const int64_t axis = map[d];
        if (axis < 0 || axis >= static_cast<int64_t>(pos.size())) return Refuse(u, "input_broadcast axis out of range");
        idx.push_back(is_unit ? ((*unit_dims)[d] == 1 ? "0u" : pos[axis]) : "(" + dims[d] + " == 1u ? 0u : " + pos[axis] + ")");
      }
    }
    if (!is_unit) return w.Load(static_cast<size_t>(v), idx.empty() ? "0u" : Linear(idx, dims));
    if (!IsRowDims(*unit_dims)) return Refuse(u, "a unit value that is not per row");
    for (int d = 0; d < rank; ++d) {
      const bool ok = d < r - 1 ? (idx[d] == "o" + S(d) || (*unit_dims)[d] == 1) : idx[d] == "0u";
      if (!ok) return Refuse(u, "a unit reads another row's value");
    }
    return "u" + S(v);
  }

  // Whether input v is read as vec4 texels at `pos` (vec4 mode): an f32
  // input with the row block's static dims, read at the row's element j
  // through no map or the identity map, so at element row * n + j.
  bool ReadsTexels(int64_t v, std::span<const int64_t> map, const std::vector<std::string>& pos) const {
    const size_t t = static_cast<size_t>(v);
    if (!vec4 || v >= 32 || u.in_types[t] != ElementType::kF32 || t >= u.in_dims.size() || u.in_dims[t] != full ||
        pos.size() != full.size() || pos.back() != "j")
      return false;
    if (!map.empty()) {
      if (map.size() != full.size()) return false;
      for (size_t d = 0; d < map.size(); ++d)
        if (map[d] != static_cast<int64_t>(d)) return false;
    }
    return true;
  }

  // A loop over the row's elements j running `body` (which declares what
  // it reads, through Read, into loop_inputs): element by element, or in
  // vec4 mode a texel of each input in loop_inputs per four elements, the
  // elements still in order, then `after_four` per four elements. With a
  // work group per row, invocation lid takes elements lid, lid + 64, ...,
  // or in vec4 mode texels lid, lid + 64, ... of the row.
  std::string RowLoop(const std::string& body, const std::string& after_four = "") const {
    if (!vec4) return "    for (uint j = lid; j < " + Uint(n) + "; j += " + Lanes() + ") {\n" + body + "    }\n";
    std::string fetch;
    for (uint32_t m = loop_inputs; m != 0; m &= m - 1) {
      const std::string V = S(static_cast<int64_t>(std::countr_zero(m)));
      fetch += "      const vec4 kiln_rb" + V + " = texelFetch(kiln_tex" + V + ", int((p[" +
               S(w.OffsetWord(static_cast<size_t>(std::countr_zero(m)))) + "] / 4u + row * " + Uint(n) + " + j4) / 4u));\n";
    }
    return "    for (uint j4 = lid * 4u; j4 < " + Uint(n) + "; j4 += " + Uint(4 * lanes) + ") {\n" + fetch +
           "      [[unroll]] for (uint c = 0u; c < 4u; ++c) {\n      const uint j = j4 + c;\n" + body + "      }\n" +
           after_four + "    }\n";
  }

  // Params of `prog` from `inputs`, read through "input_broadcast"-style map `map`.
  Status Params(const ScalarProgram& prog, std::span<const int64_t> inputs, std::span<const int64_t> map,
                const std::vector<std::string>& pos, std::vector<std::string>* params) const {
    if (prog.param_types.size() != inputs.size()) return Refuse(u, "a unit program does not match its inputs");
    size_t at = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (types[inputs[i]] != prog.param_types[i]) return Refuse(u, "a unit input type does not match its program");
      std::span<const int64_t> seg;
      if (!map.empty()) {
        if (at >= map.size() || map[at] < 0 || at + 1 + map[at] > map.size())
          return Refuse(u, "input_broadcast does not match the operands");
        const int64_t v = inputs[i];
        const int64_t rank = v >= static_cast<int64_t>(num_inputs()) ? static_cast<int64_t>(units[v - num_inputs()].dims.size())
                                                                     : w.rank(static_cast<size_t>(v));
        if (map[at] != rank) return Refuse(u, "input_broadcast does not match the operands");
        seg = map.subspan(at + 1, static_cast<size_t>(map[at]));
        at += 1 + static_cast<size_t>(map[at]);
      }
      KILN_ASSIGN_OR_RETURN(std::string e, Read(inputs[i], seg, pos));
      params->push_back(e);
    }
    if (!map.empty() && at != map.size()) return Refuse(u, "input_broadcast does not match the operands");
    return Status::Ok();
  }

  // body(a, b) assigned (converted to the accumulator type) to `dst`.
  StatusOr<std::string> Apply(const ScalarProgram& body, const GType& acc, const std::string& a, const std::string& b,
                              const std::string& dst, const std::string& prefix) const {
    std::string code;
    std::vector<std::string> res;
    KILN_RETURN_IF_ERROR(EmitScalarProgram(body, {a, b}, prefix, &code, &res, &w.features));
    KILN_ASSIGN_OR_RETURN(GType rt, GlslType(body.ValueType(body.results[0])));
    KILN_ASSIGN_OR_RETURN(std::string back, ConvertExpr(rt, acc, res[0]));
    return "{\n" + code + "  " + dst + " = " + back + ";\n}\n";
  }

  // A reduce of the row's elements into register u<v>.
  Status Reduce(size_t k, std::string* shared, int64_t* shared_bytes, std::string* code) const {
    const ref::RowBlockUnit& unit = units[k];
    const std::string K = S(static_cast<int64_t>(num_inputs() + k));
    const ScalarProgram* body = unit.params.Program("body");
    auto red = unit.params.Ints("dimensions");
    if (!body || body->param_types.size() != 2 || body->results.size() != 1 || body->param_types[0] != body->param_types[1] ||
        red.size() != 1 || red[0] != r - 1 || unit.dims != rows || unit.inputs.size() < 2)
      return Refuse(u, "a row-block reduce other than one operand over the innermost axis");
    KILN_ASSIGN_OR_RETURN(GType acc, GlslType(body->param_types[0]));
    const int64_t init = unit.inputs.back();
    if (init >= static_cast<int64_t>(num_inputs()) || w.rank(static_cast<size_t>(init)) != 0)
      return Refuse(u, "a row-block reduce whose init value is not a scalar input");
    const std::vector<std::string> pos = Positions(full, true);
    loop_inputs = 0;
    std::string x_code, x;
    ElementType x_type;
    if (const ScalarProgram* input = unit.params.Program("input")) {
      auto in_dims = unit.params.Ints("input_dims");
      if (input->results.size() != 1 || std::vector<int64_t>(in_dims.begin(), in_dims.end()) != full)
        return Refuse(u, "a row-block reduce's producer of another shape");
      std::vector<std::string> params;
      KILN_RETURN_IF_ERROR(Params(*input, std::span<const int64_t>(unit.inputs).first(unit.inputs.size() - 1),
                                  unit.params.Ints("input_broadcast"), pos, &params));
      std::vector<std::string> res;
      KILN_RETURN_IF_ERROR(EmitScalarProgram(*input, params, "p" + K + "_", &x_code, &res, &w.features));
      x = res[0];
      x_type = input->ValueType(input->results[0]);
    } else {
      if (unit.inputs.size() != 2) return Refuse(u, "a variadic row-block reduce");
      KILN_ASSIGN_OR_RETURN(x, Read(unit.inputs[0], {}, pos));
      x_type = types[unit.inputs[0]];
    }
    KILN_ASSIGN_OR_RETURN(GType xt, GlslType(x_type));
    KILN_ASSIGN_OR_RETURN(x, ConvertExpr(xt, acc, x));
    KILN_ASSIGN_OR_RETURN(GType it, GlslType(types[init]));
    KILN_ASSIGN_OR_RETURN(std::string init_v, ConvertExpr(it, acc, w.Load(static_cast<size_t>(init), "0u")));
    KILN_ASSIGN_OR_RETURN(std::string fold, Apply(*body, acc, "acc", "x", "acc", "f" + K + "_"));
    KILN_ASSIGN_OR_RETURN(GType out, GlslType(types[num_inputs() + k]));
    KILN_ASSIGN_OR_RETURN(std::string back, ConvertExpr(acc, out, "res"));
    *code += "  " + out.name + " u" + K + ";\n  {\n    " + acc.name + " acc = " + acc.name + "(0);\n    bool has = false;\n";
    *code += RowLoop(x_code + "      " + acc.name + " x = " + x + ";\n      if (has) " + fold +
                     "      else acc = x;\n      has = true;\n");
    if (lanes == 1) {
      // The row's fold is the whole reduce: the init value folded in last,
      // as the work-group form does.
      KILN_ASSIGN_OR_RETURN(std::string finish, Apply(*body, acc, "res", "acc", "res", "e" + K + "_"));
      *code += "    " + acc.name + " res = " + init_v + ";\n    if (has) " + finish;
      *code += "    u" + K + " = " + back + ";\n  }\n";
      return Status::Ok();
    }
    *shared += "shared " + acc.name + " part" + K + "[64];\nshared bool has" + K + "[64];\n";
    *shared_bytes += kGroup * (acc.storage + 4);
    // Vulkan guarantees 16 KiB of shared memory; a row block needing more
    // (dozens of reduces) is left to the other device.
    if (*shared_bytes > 16384) return Refuse(u, "a row block whose reduces need more than 16 KiB of shared memory");
    KILN_ASSIGN_OR_RETURN(std::string combine, Apply(*body, acc, "part" + K + "[lid]", "part" + K + "[lid + s]",
                                                     "part" + K + "[lid]", "c" + K + "_"));
    KILN_ASSIGN_OR_RETURN(std::string finish, Apply(*body, acc, "res", "part" + K + "[0]", "res", "e" + K + "_"));
    *code += "    part" + K + "[lid] = acc;\n    has" + K + "[lid] = has;\n    barrier();\n";
    *code += "    for (uint s = 32u; s > 0u; s >>= 1) {\n      if (lid < s && has" + K + "[lid + s]) {\n";
    *code += "        if (has" + K + "[lid]) " + combine + "        else part" + K + "[lid] = part" + K + "[lid + s];\n";
    *code += "        has" + K + "[lid] = true;\n      }\n      barrier();\n    }\n";
    *code += "    " + acc.name + " res = " + init_v + ";\n    if (has" + K + "[0]) " + finish;
    *code += "    u" + K + " = " + back + ";\n  }\n";
    return Status::Ok();
  }

  // The units' code after the row's decomposition: per-row values into
  // registers u<v>, the tail's loop storing the row.
  Status EmitUnits(std::string* shared, int64_t* shared_bytes, std::string* code) {
    for (size_t k = 0; k < units.size(); ++k) {
      const ref::RowBlockUnit& unit = units[k];
      const std::string K = S(static_cast<int64_t>(num_inputs() + k));
      const bool last = k + 1 == units.size();
      if (!last && !IsRowDims(unit.dims)) return Refuse(u, "a unit that is not per row before the tail");
      if (unit.params.kernel == "stablehlo.reduce") {
        KILN_RETURN_IF_ERROR(Reduce(k, shared, shared_bytes, code));
        continue;
      }
      KILN_ASSIGN_OR_RETURN(GType out, GlslType(types[num_inputs() + k]));
      if (unit.params.kernel != "kiln.elementwise") {
        // broadcast_in_dim or reshape inserting size-1 dims into a per-row
        // value: the same element, so the same register.
        if (unit.inputs.size() != 1 || types[unit.inputs[0]] != types[num_inputs() + k])
          return Refuse(u, "a row-block reshape or broadcast of another type");
        const int64_t v = unit.inputs[0];
        std::string e;
        if (v >= static_cast<int64_t>(num_inputs())) {
          e = "u" + S(v);
        } else {
          const auto& d = u.in_dims[static_cast<size_t>(v)];
          int64_t count = 1;
          for (int64_t x : d) count = x < 0 ? -1 : count * x;
          if (count != row_count) return Refuse(u, "a row-block reshape of a value not per row");
          e = w.Load(static_cast<size_t>(v), "row");
        }
        *code += "  " + out.name + " u" + K + " = " + e + ";\n";
        continue;
      }
      const ScalarProgram* body = unit.params.Program("body");
      if (!body || body->results.size() != 1) return Refuse(u, "a malformed row-block program");
      std::vector<std::string> params;
      const std::vector<std::string> pos = Positions(unit.dims, last);
      loop_inputs = 0;
      KILN_RETURN_IF_ERROR(Params(*body, unit.inputs, unit.params.Ints("input_broadcast"), pos, &params));
      std::string prog;
      std::vector<std::string> res;
      KILN_RETURN_IF_ERROR(EmitScalarProgram(*body, params, "b" + K + "_", &prog, &res, &w.features));
      KILN_ASSIGN_OR_RETURN(GType rt, GlslType(body->ValueType(body->results[0])));
      KILN_ASSIGN_OR_RETURN(std::string v, ConvertExpr(rt, out, res[0]));
      if (!last) {
        *code += "  " + out.name + " u" + K + ";\n  {\n" + prog + "  u" + K + " = " + v + ";\n  }\n";
        continue;
      }
      if (unit.dims != full) return Refuse(u, "a row block whose tail is per row");
      if (vec4 && u.out_types[0] == ElementType::kF32) {
        // Four results gathered and stored as one 16-byte word (the output
        // view t<O>v; its alignment is part of the vec4 mode's condition).
        *code += "    float kiln_y[4];\n" +
                 RowLoop(prog + "    kiln_y[c] = " + v + ";\n",
                         "      if (live) " +
                             w.Vec4Store(w.Out(0), "row * " + Uint(n) + " + j4",
                                         "vec4(kiln_y[0], kiln_y[1], kiln_y[2], kiln_y[3])") +
                             "\n");
        vec4_store = true;
        continue;
      }
      *code += RowLoop(prog + "    if (live) " + w.Store(w.Out(0), "row * " + Uint(n) + " + j", v) + "\n");
    }
    return Status::Ok();
  }

  StatusOr<ShaderSource> Generate(const KernelParams& kp) {
    KILN_RETURN_IF_ERROR(ref::ParseRowBlock(kp, num_inputs(), &units));
    if (u.out_types.size() != 1) return Refuse(u, "a row block has one result");
    types = u.in_types;
    for (const auto& unit : units) {
      ElementType t = ref::RowBlockUnitType(unit, types);
      if (t == ElementType::kInvalid) return Refuse(u, "a unit of unknown type");
      types.push_back(t);
    }
    full = units.back().dims;
    r = static_cast<int>(full.size());
    if (r < 1 || w.rank(w.Out(0)) != r || units.back().params.kernel != "kiln.elementwise" ||
        types.back() != u.out_types[0])
      return Refuse(u, "a row block whose last unit is not its output");
    rows.assign(full.begin(), full.end() - 1);
    n = full.back();
    for (int64_t d : rows) row_count *= d;
    if (row_count * n > UINT32_MAX) return Refuse(u, "a row block of more than 2^32 elements");
    if ((n <= kShortRow || row_count >= kManyRows) && row_count <= UINT32_MAX - kGroup) {
      lanes = 1;
      rows_per_group = row_count >= 4 * kGroup ? kGroup : 16;
    }
    std::string shared, code;
    int64_t shared_bytes = 0;
    code += Decompose("row", [&] {
      std::vector<std::string> d;
      for (int64_t x : rows) d.push_back(Uint(x));
      return d;
    }(), Names("o", rows.size()), "rem_row");
    std::string plain, vec_code;
    KILN_RETURN_IF_ERROR(EmitUnits(&shared, &shared_bytes, &plain));
    // Rows of whole texels: the same code again with the inputs read at the
    // row's elements fetched as vec4 texels, taken where each such input is
    // 16-byte aligned and its texel view reaches its end (uniform over the
    // dispatch). A softmax over 512 rows of 1024 f32 took 2.4 ms read
    // element by element, over 4 rows of 65536 1.6 ms (lavapipe runs each
    // storage-buffer load as a loop over the lanes). (The shared memory the
    // second pass would declare again is the first's. Without an f32
    // tensor the pass would change nothing: skipped.)
    const bool any_f32 = u.out_types[0] == ElementType::kF32 ||
                         std::find(u.in_types.begin(), u.in_types.end(), ElementType::kF32) != u.in_types.end();
    if (n % 4 == 0 && any_f32) {
      vec4 = true;
      std::string shared_again;
      int64_t shared_bytes_again = 0;
      KILN_RETURN_IF_ERROR(EmitUnits(&shared_again, &shared_bytes_again, &vec_code));
      vec4 = false;
    }
    std::string texel_decls;
    if (texel_inputs != 0 || vec4_store) {
      std::string fast = "true";
      if (vec4_store) {
        const size_t o = w.Out(0);
        texel_decls += w.Vec4OutputDecl(o);
        fast += " && (p[" + S(w.OffsetWord(o)) + "] & 15u) == 0u";
      }
      for (uint32_t m = texel_inputs; m != 0; m &= m - 1) {
        const size_t v = static_cast<size_t>(std::countr_zero(m));
        const std::string tex = "kiln_tex" + S(static_cast<int64_t>(v));
        texel_decls += w.TexelInputDecl(texel_inputs, v, tex);
        fast += " && " + w.TexelViewCovers(v, tex, Uint(row_count * n));
      }
      w.extensions.push_back("GL_EXT_control_flow_attributes");  // [[unroll]]
      code += "  if (" + fast + ") {\n" + vec_code + "  } else {\n" + plain + "  }\n";
    } else {
      code += plain;
    }
    // The shader indexes with the shapes the units were planned for; a
    // dispatch whose tensors have others (a hostile module) does nothing
    // rather than read or write out of bounds. Uniform over the work group.
    std::string shapes_ok = "true";
    if (u.in_dims.size() != num_inputs()) return Refuse(u, "a row block without static input shapes");
    for (size_t t = 0; t < num_inputs(); ++t) {
      if (static_cast<int>(u.in_dims[t].size()) != w.rank(t)) return Refuse(u, "a row block without static input shapes");
      auto dims = DimsOf(w, t);
      for (size_t d = 0; d < dims.size(); ++d) {
        if (u.in_dims[t][d] < 0) return Refuse(u, "a row block without static input shapes");
        shapes_ok += " && " + dims[d] + " == " + Uint(u.in_dims[t][d]);
      }
    }
    auto out_dims = DimsOf(w, w.Out(0));
    for (size_t d = 0; d < out_dims.size(); ++d) shapes_ok += " && " + out_dims[d] + " == " + Uint(full[d]);
    // A work group per row: row = the group; one invocation per row:
    // rows_per_group rows per group, lane 0 of each.
    const std::string row = lanes == 1 ? "(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * " + Uint(rows_per_group) +
                                             " + gl_LocalInvocationID.x"
                                       : "gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x";
    const std::string lid = lanes == 1 ? "0u" : "gl_LocalInvocationID.x";
    std::string body = texel_decls + shared + "void main() {\n  uint row = " + row + ";\n  uint lid = " + lid + ";\n" +
                       "  // no early return: every invocation reaches the barriers\n" +
                       "  bool live = row < " + Uint(row_count) + ";\n  if (!live) row = 0u;\n" +
                       "  if (!(" + shapes_ok + ")) return;\n" + code + "}\n";
    ShaderSource s = w.Finish(body, static_cast<uint32_t>(lanes == 1 ? rows_per_group : kGroup));
    s.grid = hal::ShaderGrid::kPerRow;
    // grid_args {rows per work group}; none: one (hal::ShaderGrid::kPerRow).
    if (lanes == 1) s.grid_args = {static_cast<uint32_t>(rows_per_group)};
    if (texel_inputs != 0) {
      s.features |= hal::kTexelInputs;
      s.texel_inputs = texel_inputs;
    }
    return s;
  }
};

}  // namespace

StatusOr<ShaderSource> RowBlock(const KernelParams& kp, const DispatchUse& u, ShaderWriter& w) {
  RowBlockShader g{u, w, {}, {}, {}, {}};
  auto s = g.Generate(kp);
  // A malformed row block is refused like any shader the target cannot make.
  if (!s.ok() && s.status().code() == StatusCode::kInvalidArgument) return Refuse(u, s.status().message());
  return s;
}

}  // namespace kiln::compiler::vulkan
