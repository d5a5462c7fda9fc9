// XLA's linear-algebra custom calls that JAX emits on the CPU
// (compiler/passes/legalize.h): LAPACK's Cholesky factorization
// (@lapack_{s,d,c,z}potrf_ffi) becomes stablehlo.cholesky plus the values
// LAPACK defines around it; its LU and QR factorizations
// (@lapack_?getrf_ffi, ?geqrf_ffi, ?orgqr_ffi / ?ungqr_ffi, and XLA's
// ProductOfElementaryHouseholderReflectors) the kernels kiln.lu, kiln.geqrf
// and kiln.orgqr, its symmetric and Hermitian eigendecompositions
// (@lapack_{s,d}syevd_ffi, @lapack_{c,z}heevd_ffi) kiln.syevd and its SVD
// (@lapack_?gesdd_ffi, @lapack_?gesvd_ffi) kiln.gesdd and kiln.gesvd, its general eigendecomposition
// (@lapack_?geev_ffi) kiln.geev, its tridiagonal solve (@lapack_?gtsv_ffi)
// kiln.gtsv, its pivoted QR (@lapack_?geqp3_ffi) kiln.geqp3, its Hessenberg and tridiagonal
// reductions (@lapack_?gehrd_ffi, @lapack_{s,d}sytrd_ffi,
// @lapack_{c,z}hetrd_ffi) kiln.gehrd and kiln.sytrd, its Schur
// decomposition (@lapack_?gees_ffi) kiln.gees; BLAS's triangular solve
// (@blas_?trsm_ffi) becomes stablehlo.triangular_solve; any other lapack_
// or blas_ target is refused, naming what Kiln runs.
#include <string>
#include <vector>

#include "compiler/op_names.h"
#include "compiler/passes/legacy_linalg_calls.h"
#include "compiler/passes/legalize.h"
#include "compiler/passes/rewrite_util.h"

namespace kiln::compiler {
namespace {

ir::Value* Compare(Ops* ops, const ir::Operation& at, ir::Block* block, ir::Value* a, ir::Value* b,
                   const char* direction) {
  ir::Operation* c = NewOp(ops, at, block, ScalarOpName(ScalarOp::kCompare), {a, b},
                           ir::Type::Tensor(ElementType::kI1, a->type.dims));
  c->attrs.emplace_back("comparison_direction", ir::EnumAttr(direction));
  return c->result();
}

// Float or complex matrices (rank >= 2, batches first), not quantized, of
// static shape but for the batch dimensions, which may be `?` (JAX's
// shape-polymorphic exports under vmap; the kernels take the batch from
// their operand at run time, compiler/lower/dynamic_dims.cc kLeadingBatch):
// what every LAPACK and BLAS target here factors or solves.
bool FloatMatrices(const ir::Type& t) {
  if (!t.is_tensor() || t.rank() < 2 || t.is_quantized() || !(IsFloat(t.element) || IsComplex(t.element)))
    return false;
  return t.dims[t.rank() - 1] != ir::Type::kDynamic && t.dims[t.rank() - 2] != ir::Type::kDynamic;
}

ir::Value* Iota(Ops* ops, const ir::Operation& at, ir::Block* block, const std::vector<int64_t>& dims, int64_t d) {
  ir::Operation* i = NewOp(ops, at, block, KernelName(KernelId::kIota), {}, ir::Type::Tensor(ElementType::kSI32, dims));
  i->attrs.emplace_back("iota_dimension", ir::IntAttr(d));
  return i->result();
}

// LAPACK ?potrf as JAX calls it (jaxlib's potrf_hlo): one operand a of
// [batch..., n, n], results (factor, info) of [batch..., n, n] and
// [batch...] i32, attribute mhlo.backend_config = {uplo = 76 ('L') | 85
// ('U')}. LAPACK writes the factor into uplo's triangle and leaves the other
// triangle as a holds it; info is 0, or k when the leading minor of order k
// is not positive definite. Here: the factor is stablehlo.cholesky's (whose
// j-th diagonal entry is positive exactly while the leading minors up to j
// are: a failed pivot makes it and all later ones NaN or zero) selected
// with a in the other triangle; info counts the positive diagonal entries c
// (a dot_general with ones) and is 0 when c = n, else c + 1.
Status RewritePotrf(ir::Block* block, size_t at, const std::string& target, const ErrorFormatter& format,
                    size_t* n_ops) {
  const ir::Operation& op = *block->ops[at];
  const std::string what = "stablehlo.custom_call @" + target + " (LAPACK's Cholesky factorization): ";
  if (op.operands.size() != 1 || op.results.size() != 2)
    return InvalidArgument(format(op.loc, what + "expects one operand and two results (factor, info)"));
  const ir::Type& a = op.operands[0]->type;
  const int64_t r = a.rank();
  if (!FloatMatrices(a) || a.dims[r - 1] != a.dims[r - 2])
    return InvalidArgument(format(op.loc, what + "the operand must be square float or complex matrices of static "
                                                 "shape (the batch may be dynamic), not " +
                                              a.ToString()));
  std::vector<int64_t> batch(a.dims.begin(), a.dims.end() - 2);
  if (op.results[0]->type != a || op.results[1]->type != ir::Type::Tensor(ElementType::kSI32, batch))
    return InvalidArgument(format(op.loc, what + "the results must be " + a.ToString() + " and " +
                                              ir::Type::Tensor(ElementType::kSI32, batch).ToString()));
  const ir::Attribute* config = op.GetAttr("mhlo.backend_config");
  const ir::Attribute* uplo = config && config->kind == ir::Attribute::Kind::kDict ? config->Field("uplo") : nullptr;
  if (!uplo || uplo->kind != ir::Attribute::Kind::kInt || (uplo->i != 'L' && uplo->i != 'U'))
    return InvalidArgument(format(op.loc, what + "needs mhlo.backend_config = {uplo = 76 : ui8} ('L') or 85 ('U')"));
  const bool lower = uplo->i == 'L';
  const int64_t n = a.dims[r - 1];
  Ops ops;
  ir::Value* x = op.operands[0];
  ir::Operation* chol = NewOp(&ops, op, block, KernelName(KernelId::kCholesky), {x}, a);
  chol->attrs.emplace_back("lower", ir::BoolAttr(lower));
  ir::Value* l = chol->result();
  // The triangle's and the diagonal's masks over one matrix, broadcast to
  // a's shape (to the batch a has when it runs, if that is dynamic).
  ir::Value* row = Iota(&ops, op, block, {n, n}, 0);
  ir::Value* col = Iota(&ops, op, block, {n, n}, 1);
  auto over_batch = [&](ir::Value* mask) { return BroadcastTo(&ops, op, block, mask, a.dims, {r - 2, r - 1}, x); };
  ir::Value* tri = over_batch(Compare(&ops, op, block, row, col, lower ? "GE" : "LE"));
  ir::Operation* factor = NewOp(&ops, op, block, ScalarOpName(ScalarOp::kSelect), {tri, l, x}, a);
  ir::Value* diag = over_batch(Compare(&ops, op, block, row, col, "EQ"));
  ir::Value* re = l;
  ElementType real = a.element;
  if (IsComplex(a.element)) {
    real = ComplexPartType(a.element);
    re = NewOp(&ops, op, block, ScalarOpName(ScalarOp::kReal), {l}, ir::Type::Tensor(real, a.dims))->result();
  }
  ir::Value* positive = Compare(&ops, op, block, re, Splat(&ops, op, block, real, a.dims, 0, x), "GT");
  ir::Value* ok = NewOp(&ops, op, block, ScalarOpName(ScalarOp::kAnd), {diag, positive},
                        ir::Type::Tensor(ElementType::kI1, a.dims))
                      ->result();
  ir::Value* ones = NewOp(&ops, op, block, ScalarOpName(ScalarOp::kConvert), {ok},
                          ir::Type::Tensor(ElementType::kSI32, a.dims))
                        ->result();
  ir::Value* count = DotGeneral(&ops, op, block, ones, Splat(&ops, op, block, ElementType::kSI32, {n, n}, 1), {}, {},
                                {r - 2, r - 1}, {0, 1}, batch);
  const ir::Type info_type = ir::Type::Tensor(ElementType::kSI32, batch);
  ir::Value* all = Compare(&ops, op, block, count, Splat(&ops, op, block, ElementType::kSI32, batch, n, x), "EQ");
  ir::Value* next =
      NewOp(&ops, op, block, ScalarOpName(ScalarOp::kAdd), {count, Splat(&ops, op, block, ElementType::kSI32, batch, 1, x)},
            info_type)
          ->result();
  ir::Operation* info = NewOp(&ops, op, block, ScalarOpName(ScalarOp::kSelect),
                              {all, Splat(&ops, op, block, ElementType::kSI32, batch, 0, x), next}, info_type);
  *n_ops = SpliceTakingOver(block, at, std::move(ops), {factor, info});
  return Status::Ok();
}

// LAPACK ?getrf as JAX calls it (jaxlib's getrf_hlo): one operand a of
// [batch..., m, n], results (lu, ipiv, info) of a's type, [batch...,
// min(m, n)] i32 and [batch...] i32, no attributes that matter. Becomes
// kiln.lu, which returns exactly those (kernels/reference/linalg.cc).
Status RewriteGetrf(ir::Block* block, size_t at, const std::string& target, const ErrorFormatter& format,
                    size_t* n_ops) {
  const ir::Operation& op = *block->ops[at];
  const std::string what = "stablehlo.custom_call @" + target + " (LAPACK's LU factorization): ";
  if (op.operands.size() != 1 || op.results.size() != 3)
    return InvalidArgument(format(op.loc, what + "expects one operand and three results (lu, ipiv, info)"));
  const ir::Type& a = op.operands[0]->type;
  const int64_t r = a.rank();
  if (!FloatMatrices(a))
    return InvalidArgument(format(op.loc, what + "the operand must be float or complex matrices of static shape "
                                                 "(the batch may be dynamic), not " +
                                              a.ToString()));
  std::vector<int64_t> batch(a.dims.begin(), a.dims.end() - 2), pivots = batch;
  pivots.push_back(std::min(a.dims[r - 2], a.dims[r - 1]));
  const ir::Type ipiv = ir::Type::Tensor(ElementType::kSI32, pivots), info = ir::Type::Tensor(ElementType::kSI32, batch);
  if (op.results[0]->type != a || op.results[1]->type != ipiv || op.results[2]->type != info)
    return InvalidArgument(format(op.loc, what + "the results must be " + a.ToString() + ", " + ipiv.ToString() +
                                              " and " + info.ToString()));
  Ops ops;
  NewOp(&ops, op, block, KernelName(KernelId::kLu), {op.operands[0]}, a);
  *n_ops = Splice(block, at, std::move(ops));  // kiln.lu takes over all three results
  return Status::Ok();
}

// Results of static shapes but for their first `batch` dimensions (the
// operand's batch), which may be dynamic: what every factorization kernel
// needs (its reference checks their dims against the operand's at run
// time; compiler/lower/dynamic_dims.cc, kLeadingBatch, sizes the batch).
Status StaticResults(const ir::Operation& op, const std::string& what, const ErrorFormatter& format,
                     int64_t batch) {
  for (const auto& res : op.results) {
    bool ok = res->type.is_tensor();
    for (int64_t d = batch; ok && d < res->type.rank(); ++d) ok = res->type.dims[d] != ir::Type::kDynamic;
    if (!ok) return InvalidArgument(format(op.loc, what + "results must have static shapes"));
  }
  return Status::Ok();
}

// The operand of syevd / heevd and gesdd: float or complex matrices of
// static shape that result 0 (LAPACK's overwritten a) shares; result 1
// (the eigenvalues or singular values) of their real type.
Status MatrixAndRealValues(const ir::Operation& op, const std::string& what, const ErrorFormatter& format) {
  const ir::Type& a = op.operands[0]->type;
  if (!FloatMatrices(a) || op.results[0]->type != a)
    return InvalidArgument(format(op.loc, what + "the operand and result 0 must be float or complex matrices of one "
                                                 "static shape (the batch may be dynamic), not " +
                                              a.ToString()));
  const ElementType real = IsComplex(a.element) ? ComplexPartType(a.element) : a.element;
  if (!op.results[1]->type.is_tensor() || op.results[1]->type.element != real)
    return InvalidArgument(format(op.loc, what + "result 1 must be of the operand's real type, " +
                                              std::string(Name(real)) + ", not " + op.results[1]->type.ToString()));
  return StaticResults(op, what, format, a.rank() - 2);
}

// LAPACK ?geqrf (jaxlib's geqrf_hlo): (a) -> (a', tau, info, workspace),
// and ?orgqr / ?ungqr (orgqr_hlo): (a, tau) -> (q, info, workspace); XLA's
// ProductOfElementaryHouseholderReflectors: (a, tau) -> q. Become kiln.geqrf
// and kiln.orgqr with the same operands and results (kernels/reference/
// linalg.cc checks the shapes; info and the workspace come back zero).
Status RewriteQr(ir::Block* block, size_t at, const std::string& target, bool form_q, const ErrorFormatter& format,
                 size_t* n_ops) {
  const ir::Operation& op = *block->ops[at];
  const std::string what = "stablehlo.custom_call @" + target + " (" +
                           (form_q ? "the Q of a QR factorization" : "LAPACK's QR factorization") + "): ";
  const size_t operands = form_q ? 2 : 1;
  if (op.operands.size() != operands || op.results.empty() || op.results.size() > (form_q ? 3u : 4u) ||
      (!form_q && op.results.size() < 2))
    return InvalidArgument(format(op.loc, what + (form_q ? "expects (a, tau) and (q[, info, workspace])"
                                                         : "expects one operand and (a, tau[, info, workspace])")));
  const ir::Type& a = op.operands[0]->type;
  if (!FloatMatrices(a) || op.results[0]->type != a)
    return InvalidArgument(format(op.loc, what + "the operand and result 0 must be float or complex matrices of one "
                                                 "static shape (the batch may be dynamic), not " +
                                              a.ToString()));
  KILN_RETURN_IF_ERROR(StaticResults(op, what, format, a.rank() - 2));
  Ops ops;
  NewOp(&ops, op, block, KernelName(form_q ? KernelId::kOrgqr : KernelId::kGeqrf),
        std::vector<ir::Value*>(op.operands.begin(), op.operands.end()), a);
  *n_ops = Splice(block, at, std::move(ops));  // the kernel takes over every result
  return Status::Ok();
}

// An integer field of a custom call's mhlo.backend_config dict, or -1.
int64_t ConfigField(const ir::Operation& op, const char* name) {
  const ir::Attribute* config = op.GetAttr("mhlo.backend_config");
  const ir::Attribute* f = config && config->kind == ir::Attribute::Kind::kDict ? config->Field(name) : nullptr;
  return f && f->kind == ir::Attribute::Kind::kInt ? f->i : -1;
}

// LAPACK ?syevd for real matrices and ?heevd for complex ones (jaxlib's
// syevd_hlo, jnp.linalg.eigh): (a) -> (v, w, info[, workspace,
// iworkspace]), w real, with mhlo.backend_config =
// {mode, uplo}: 'V' (86) computes the eigenvectors, 'N' (78) only the
// eigenvalues; uplo 'L' (76) / 'U' (85) names the triangle read. Becomes
// kiln.syevd (kernels/reference/linalg.cc) with attrs compute_v and lower.
Status RewriteSyevd(ir::Block* block, size_t at, const std::string& target, const ErrorFormatter& format,
                    size_t* n_ops) {
  const ir::Operation& op = *block->ops[at];
  const std::string what = "stablehlo.custom_call @" + target + " (LAPACK's " +
                           (target.find("heevd") != std::string::npos ? "Hermitian" : "symmetric") +
                           " eigendecomposition): ";
  if (op.operands.size() != 1 || op.results.size() < 3 || op.results.size() > 6)
    return InvalidArgument(format(op.loc, what + "expects one operand and (v, w, info[, workspaces])"));
  KILN_RETURN_IF_ERROR(MatrixAndRealValues(op, what, format));
  const ir::Type& a = op.operands[0]->type;
  const int64_t mode = ConfigField(op, "mode"), uplo = ConfigField(op, "uplo");
  if ((mode != 'V' && mode != 'N') || (uplo != 'L' && uplo != 'U'))
    return InvalidArgument(format(op.loc, what + "needs mhlo.backend_config = {mode, uplo} as LAPACK characters "
                                                 "('V'/'N', 'L'/'U')"));
  Ops ops;
  ir::Operation* eig = NewOp(&ops, op, block, KernelName(KernelId::kSyevd), {op.operands[0]}, a);
  eig->attrs.emplace_back("compute_v", ir::BoolAttr(mode == 'V'));
  eig->attrs.emplace_back("lower", ir::BoolAttr(uplo == 'L'));
  *n_ops = Splice(block, at, std::move(ops));  // the kernel takes over every result
  return Status::Ok();
}

// LAPACK ?gesdd for real and complex matrices (jaxlib's gesdd_hlo,
// jnp.linalg.svd and what builds on it: pinv, lstsq, matrix_rank,
// norm(ord=2)), and ?gesvd (jnp.linalg.svd with algorithm=QR): (a) -> (a',
// s, u, vt, info[, workspaces]), s real, vt = V^H, with
// mhlo.backend_config = {mode}: 'A' (65) full U and V^T, 'S' (83) thin
// ones, 'N' (78) singular values only. Becomes kiln.gesdd or kiln.gesvd
// (kernels/reference/linalg_gesdd.cc) with attr mode.
Status RewriteGesdd(ir::Block* block, size_t at, const std::string& target, const ErrorFormatter& format,
                    size_t* n_ops) {
  const ir::Operation& op = *block->ops[at];
  const bool qr_iteration = target.find("gesvd") != std::string::npos;
  const std::string what = "stablehlo.custom_call @" + target + " (LAPACK's singular value decomposition): ";
  if (op.operands.size() != 1 || op.results.size() < 5 || op.results.size() > 8)
    return InvalidArgument(format(op.loc, what + "expects one operand and (a, s, u, vt, info[, workspaces])"));
  KILN_RETURN_IF_ERROR(MatrixAndRealValues(op, what, format));
  const ir::Type& a = op.operands[0]->type;
  const int64_t mode = ConfigField(op, "mode");
  if (mode != 'A' && mode != 'S' && mode != 'N')
    return InvalidArgument(format(op.loc, what + "needs mhlo.backend_config = {mode} as a LAPACK character ('A', 'S' "
                                                 "or 'N')"));
  Ops ops;
  ir::Operation* svd =
      NewOp(&ops, op, block, KernelName(qr_iteration ? KernelId::kGesvd : KernelId::kGesdd), {op.operands[0]}, a);
  svd->attrs.emplace_back("mode", ir::IntArrayAttr({mode}));
  *n_ops = Splice(block, at, std::move(ops));  // the kernel takes over every result
  return Status::Ok();
}

// geev's and gees's operand: one, square f32, f64 or complex matrices of
// static shape (LAPACK's types; the batch may be dynamic).
Status OneSquareLapackOperand(const ir::Operation& op, const std::string& what, const ErrorFormatter& format) {
  if (op.operands.size() != 1) return InvalidArgument(format(op.loc, what + "expects one operand"));
  const ir::Type& a = op.operands[0]->type;
  const int64_t r = a.rank();
  if (!FloatMatrices(a) || a.dims[r - 1] != a.dims[r - 2] ||
      (a.element != ElementType::kF32 && a.element != ElementType::kF64 && !IsComplex(a.element)))
    return InvalidArgument(format(op.loc, what + "the operand must be square f32, f64 or complex matrices of static "
                                                 "shape (the batch may be dynamic), not " +
                                              a.ToString()));
  return Status::Ok();
}

// LAPACK ?gees (jaxlib's gees_hlo, jax.scipy.linalg.schur): a -> the
// Schur form T, the Schur vectors vs, the eigenvalues (wr, wi real; w
// complex), sdim and info, with mhlo.backend_config = {mode ('V' or 'N':
// vs computed), sort ('N'; JAX never sorts)}. Three result orders: the
// _ffi form (t, vs, wr, wi, sdim, info) / (t, vs, w, sdim, info); jaxlib's
// first FFI calls under the old name (t, wr, wi, vs, sdim, info) / (t, w,
// vs, sdim, info, rwork); the legacy form (legacy_linalg_calls.cc) (t, wr,
// wi, vs, sdim, info) / (t, rwork, w, vs, sdim, info). The results are put
// in the _ffi order (a workspace last) and kiln.gees (kernels/reference/
// linalg_geev.cc) takes them over.
Status RewriteGees(ir::Block* block, size_t at, const std::string& target, const ErrorFormatter& format,
                   size_t* n_ops) {
  ir::Operation& op = *block->ops[at];
  const std::string what = "stablehlo.custom_call @" + target + " (LAPACK's Schur decomposition): ";
  KILN_RETURN_IF_ERROR(OneSquareLapackOperand(op, what, format));
  const ir::Type& a = op.operands[0]->type;
  const bool complex = IsComplex(a.element);
  const size_t least = complex ? 5 : 6;
  if (op.results.size() != least && op.results.size() != least + (complex ? 1 : 0))
    return InvalidArgument(format(op.loc, what + (complex ? "expects (t, vs, w, sdim, info[, rwork])"
                                                          : "expects (t, vs, wr, wi, sdim, info)")));
  KILN_RETURN_IF_ERROR(StaticResults(op, what, format, a.rank() - 2));
  // The _ffi order, from whichever order the results come in.
  std::vector<size_t> order;
  if (op.results[1]->type.rank() == a.rank()) {
    for (size_t i = 0; i < op.results.size(); ++i) order.push_back(i);
  } else if (!complex) {
    order = {0, 3, 1, 2, 4, 5};
  } else if (op.results.size() == 6 && IsComplex(op.results[1]->type.element)) {
    order = {0, 2, 1, 3, 4, 5};
  } else if (op.results.size() == 6) {
    order = {0, 3, 2, 4, 5, 1};
  } else {
    return InvalidArgument(format(op.loc, what + "expects (t, vs, w, sdim, info[, rwork])"));
  }
  std::vector<std::unique_ptr<ir::Value>> results;
  for (size_t i : order) results.push_back(std::move(op.results[i]));
  op.results = std::move(results);
  for (size_t i = 0; i < op.results.size(); ++i) op.results[i]->index = static_cast<int>(i);
  std::vector<int64_t> values(a.dims.begin(), a.dims.end() - 1), batch(a.dims.begin(), a.dims.end() - 2);
  const size_t nv = complex ? 1 : 2;
  bool types_ok = op.results[0]->type == a && op.results[1]->type == a;
  for (size_t i = 2; i < 2 + nv; ++i) types_ok = types_ok && op.results[i]->type == ir::Type::Tensor(a.element, values);
  for (size_t i = 2 + nv; i < 4 + nv; ++i)
    types_ok = types_ok && op.results[i]->type == ir::Type::Tensor(ElementType::kSI32, batch);
  if (!types_ok)
    return InvalidArgument(format(op.loc, what + "t and vs must be " + a.ToString() + ", the eigenvalues " +
                                              ir::Type::Tensor(a.element, values).ToString() + ", sdim and info " +
                                              ir::Type::Tensor(ElementType::kSI32, batch).ToString()));
  const int64_t mode = ConfigField(op, "mode"), sort = ConfigField(op, "sort");
  if ((mode != 'V' && mode != 'N') || (sort != 'N' && sort != 'S'))
    return InvalidArgument(format(op.loc, what + "needs mhlo.backend_config = {mode, sort} as LAPACK characters ('V' "
                                                 "or 'N'; 'N' or 'S')"));
  if (sort == 'S')
    return Unimplemented(format(op.loc, what + "sorting the eigenvalues (sort = 'S') is not supported (JAX does not "
                                               "emit it: its schur refuses sort_eig_vals on the CPU)"));
  Ops ops;
  ir::Operation* schur = NewOp(&ops, op, block, KernelName(KernelId::kGees), {op.operands[0]}, a);
  schur->attrs.emplace_back("compute_v", ir::BoolAttr(mode == 'V'));
  *n_ops = Splice(block, at, std::move(ops));  // the kernel takes over every result
  return Status::Ok();
}

// LAPACK ?geev (jaxlib's geev_hlo, jnp.linalg.eig): real a -> (wr, wi, vl,
// vr, info[, 3 workspaces]) with vl and vr of a's complex type (jaxlib
// unpacks a conjugate pair's vectors); complex a -> (w, vl, vr, info[, 2
// workspaces]); mhlo.backend_config = {compute_left, compute_right}: 'V'
// (86) or 'N' (78). Becomes kiln.geev (kernels/reference/linalg_geev.cc),
// which checks the result types and takes over every result.
Status RewriteGeev(ir::Block* block, size_t at, const std::string& target, const ErrorFormatter& format,
                   size_t* n_ops) {
  const ir::Operation& op = *block->ops[at];
  const std::string what = "stablehlo.custom_call @" + target + " (LAPACK's eigendecomposition (jnp.linalg.eig)): ";
  KILN_RETURN_IF_ERROR(OneSquareLapackOperand(op, what, format));
  const ir::Type& a = op.operands[0]->type;
  const bool complex = IsComplex(a.element);
  const size_t least = complex ? 4 : 5;
  if (op.results.size() < least || op.results.size() > least + (complex ? 2 : 3))
    return InvalidArgument(format(op.loc, what + (complex ? "expects (w, vl, vr, info[, workspaces])"
                                                          : "expects (wr, wi, vl, vr, info[, workspaces])")));
  KILN_RETURN_IF_ERROR(StaticResults(op, what, format, a.rank() - 2));
  const ElementType vectors = complex ? a.element : a.element == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128;
  std::vector<int64_t> values(a.dims.begin(), a.dims.end() - 1), batch(a.dims.begin(), a.dims.end() - 2);
  const size_t nv = complex ? 1 : 2;
  bool types_ok = op.results[nv + 2]->type == ir::Type::Tensor(ElementType::kSI32, batch);
  for (size_t i = 0; i < nv; ++i) types_ok = types_ok && op.results[i]->type == ir::Type::Tensor(a.element, values);
  for (size_t i = nv; i < nv + 2; ++i) types_ok = types_ok && op.results[i]->type == ir::Type::Tensor(vectors, a.dims);
  if (!types_ok)
    return InvalidArgument(format(op.loc, what + "the eigenvalues must be " + ir::Type::Tensor(a.element, values).ToString() +
                                              ", the eigenvectors " + ir::Type::Tensor(vectors, a.dims).ToString() +
                                              " and info " + ir::Type::Tensor(ElementType::kSI32, batch).ToString()));
  const int64_t left = ConfigField(op, "compute_left"), right = ConfigField(op, "compute_right");
  if ((left != 'V' && left != 'N') || (right != 'V' && right != 'N'))
    return InvalidArgument(format(op.loc, what + "needs mhlo.backend_config = {compute_left, compute_right} as LAPACK "
                                                 "characters ('V' or 'N')"));
  Ops ops;
  ir::Operation* eig = NewOp(&ops, op, block, KernelName(KernelId::kGeev), {op.operands[0]}, a);
  eig->attrs.emplace_back("compute_left", ir::BoolAttr(left == 'V'));
  eig->attrs.emplace_back("compute_right", ir::BoolAttr(right == 'V'));
  *n_ops = Splice(block, at, std::move(ops));  // the kernel takes over every result
  return Status::Ok();
}

// LAPACK ?gtsv (lax.linalg.tridiagonal_solve): (dl, d, du, b) -> (dl', d',
// du', b', info), dl, d and du [batch..., n], b [batch..., n, nrhs], no
// attributes that matter. Becomes kiln.gtsv (kernels/reference/
// linalg_gtsv.cc), which checks the shapes and takes over every result.
Status RewriteGtsv(ir::Block* block, size_t at, const std::string& target, const ErrorFormatter& format,
                   size_t* n_ops) {
  const ir::Operation& op = *block->ops[at];
  const std::string what = "stablehlo.custom_call @" + target + " (LAPACK's tridiagonal solve): ";
  if (op.operands.size() != 4 || op.results.size() != 5)
    return InvalidArgument(format(op.loc, what + "expects (dl, d, du, b) and (dl, d, du, b, info)"));
  const ir::Type& b = op.operands[3]->type;
  const int64_t r = b.rank();
  if (!FloatMatrices(b) ||
      (b.element != ElementType::kF32 && b.element != ElementType::kF64 && !IsComplex(b.element)))
    return InvalidArgument(format(op.loc, what + "b must be f32, f64 or complex matrices of static shape (the batch "
                                                 "may be dynamic), not " +
                                              b.ToString()));
  std::vector<int64_t> diag(b.dims.begin(), b.dims.end() - 1), batch(b.dims.begin(), b.dims.end() - 2);
  const ir::Type d = ir::Type::Tensor(b.element, diag);
  bool ok = op.results[3]->type == b && op.results[4]->type == ir::Type::Tensor(ElementType::kSI32, batch);
  for (int k = 0; k < 3; ++k) ok = ok && op.operands[k]->type == d && op.results[k]->type == d;
  if (!ok)
    return InvalidArgument(format(op.loc, what + "dl, d and du must be " + d.ToString() + " (b's rows: " +
                                              std::to_string(b.dims[r - 2]) + "), the results their types, b's and " +
                                              ir::Type::Tensor(ElementType::kSI32, batch).ToString()));
  Ops ops;
  NewOp(&ops, op, block, KernelName(KernelId::kGtsv), {op.operands[0], op.operands[1], op.operands[2], op.operands[3]},
        b);
  *n_ops = Splice(block, at, std::move(ops));  // the kernel takes over every result
  return Status::Ok();
}

// LAPACK ?geqp3 (jax.scipy.linalg.qr(pivoting=True)): (a, jpvt) -> (a',
// jpvt', tau), jpvt [batch..., n] si32, tau [batch..., min(m, n)] of a's
// type. Becomes kiln.geqp3 (kernels/reference/linalg_geqp3.cc).
Status RewriteGeqp3(ir::Block* block, size_t at, const std::string& target, const ErrorFormatter& format,
                    size_t* n_ops) {
  const ir::Operation& op = *block->ops[at];
  const std::string what =
      "stablehlo.custom_call @" + target + " (LAPACK's QR factorization with column pivoting): ";
  if (op.operands.size() != 2 || op.results.size() != 3)
    return InvalidArgument(format(op.loc, what + "expects (a, jpvt) and (a, jpvt, tau)"));
  const ir::Type& a = op.operands[0]->type;
  if (!FloatMatrices(a))
    return InvalidArgument(format(op.loc, what + "a must be float or complex matrices of static shape (the batch may "
                                                 "be dynamic), not " +
                                              a.ToString()));
  const int64_t r = a.rank(), m = a.dims[r - 2], n = a.dims[r - 1];
  std::vector<int64_t> cols(a.dims.begin(), a.dims.end() - 1), taus(a.dims.begin(), a.dims.end() - 2);
  cols.back() = n;
  taus.push_back(std::min(m, n));
  const ir::Type jpvt = ir::Type::Tensor(ElementType::kSI32, cols), tau = ir::Type::Tensor(a.element, taus);
  if (op.operands[1]->type != jpvt || op.results[0]->type != a || op.results[1]->type != jpvt ||
      op.results[2]->type != tau)
    return InvalidArgument(format(op.loc, what + "jpvt must be " + jpvt.ToString() + ", the results " + a.ToString() +
                                              ", " + jpvt.ToString() + " and " + tau.ToString()));
  Ops ops;
  NewOp(&ops, op, block, KernelName(KernelId::kGeqp3), {op.operands[0], op.operands[1]}, a);
  *n_ops = Splice(block, at, std::move(ops));  // the kernel takes over every result
  return Status::Ok();
}

// LAPACK ?gehrd (jaxlib's gehrd_hlo, jax.scipy.linalg.hessenberg): (a) ->
// (h, tau, info) with a square, tau [batch..., n - 1] of a's type, and
// mhlo.backend_config = {low, high} (LAPACK's ilo and ihi, 1-based).
// Becomes kiln.gehrd (kernels/reference/linalg_condensed.cc).
Status RewriteGehrd(ir::Block* block, size_t at, const std::string& target, const ErrorFormatter& format,
                    size_t* n_ops) {
  const ir::Operation& op = *block->ops[at];
  const std::string what = "stablehlo.custom_call @" + target + " (LAPACK's Hessenberg reduction): ";
  if (op.operands.size() != 1 || op.results.size() != 3)
    return InvalidArgument(format(op.loc, what + "expects one operand and (h, tau, info)"));
  const ir::Type& a = op.operands[0]->type;
  const int64_t r = a.rank();
  if (!FloatMatrices(a) || a.dims[r - 1] != a.dims[r - 2] || op.results[0]->type != a)
    return InvalidArgument(format(op.loc, what + "the operand and result 0 must be square float or complex matrices "
                                                 "of one static shape (the batch may be dynamic), not " +
                                              a.ToString()));
  KILN_RETURN_IF_ERROR(StaticResults(op, what, format, r - 2));
  const int64_t n = a.dims[r - 1], low = ConfigField(op, "low"), high = ConfigField(op, "high");
  if (low < 1 || low > std::max<int64_t>(n, 1) || high < std::min(low, n) || high > n)
    return InvalidArgument(format(op.loc, what + "needs mhlo.backend_config = {low, high} with 1 <= low <= high <= " +
                                              std::to_string(n) + " (LAPACK's ilo and ihi)"));
  Ops ops;
  ir::Operation* h = NewOp(&ops, op, block, KernelName(KernelId::kGehrd), {op.operands[0]}, a);
  h->attrs.emplace_back("low", ir::IntArrayAttr({low}));
  h->attrs.emplace_back("high", ir::IntArrayAttr({high}));
  *n_ops = Splice(block, at, std::move(ops));  // the kernel takes over every result
  return Status::Ok();
}

// LAPACK ?sytrd / ?hetrd (jaxlib's sytrd_hlo, lax.linalg.tridiagonal): (a)
// -> (a', d, e, tau, info) with d and e of a's real type and
// mhlo.backend_config = {uplo} ('L' (76) or 'U' (85)). Becomes kiln.sytrd
// (kernels/reference/linalg_condensed.cc) with attr lower.
Status RewriteSytrd(ir::Block* block, size_t at, const std::string& target, const ErrorFormatter& format,
                    size_t* n_ops) {
  const ir::Operation& op = *block->ops[at];
  const std::string what = "stablehlo.custom_call @" + target + " (LAPACK's tridiagonal reduction): ";
  if (op.operands.size() != 1 || op.results.size() != 5)
    return InvalidArgument(format(op.loc, what + "expects one operand and (a, d, e, tau, info)"));
  KILN_RETURN_IF_ERROR(MatrixAndRealValues(op, what, format));
  const ir::Type& a = op.operands[0]->type;
  if (a.dims[a.rank() - 1] != a.dims[a.rank() - 2])
    return InvalidArgument(format(op.loc, what + "the operand must be square matrices, not " + a.ToString()));
  const int64_t uplo = ConfigField(op, "uplo");
  if (uplo != 'L' && uplo != 'U')
    return InvalidArgument(format(op.loc, what + "needs mhlo.backend_config = {uplo = 76 : ui8} ('L') or 85 ('U')"));
  Ops ops;
  ir::Operation* t = NewOp(&ops, op, block, KernelName(KernelId::kSytrd), {op.operands[0]}, a);
  t->attrs.emplace_back("lower", ir::BoolAttr(uplo == 'L'));
  *n_ops = Splice(block, at, std::move(ops));  // the kernel takes over every result
  return Status::Ok();
}

// BLAS ?trsm as JAX calls it for lax.linalg.triangular_solve on the CPU
// (jaxlib's trsm_hlo): operands (a, b, alpha) with a [batch..., k, k], b
// [batch..., m, n] and alpha rank 0, one result of b's type, and
// mhlo.backend_config = {side, uplo, trans_x, diag} as LAPACK characters
// ('L'/'R', 'L'/'U', 'N'/'T'/'C', 'N'/'U'). BLAS scales b by alpha, then
// solves op(a) x = alpha b (side 'L') or x op(a) = alpha b: here
// stablehlo.triangular_solve of a and alpha * b.
Status RewriteTrsm(ir::Block* block, size_t at, const std::string& target, const ErrorFormatter& format,
                   size_t* n_ops) {
  const ir::Operation& op = *block->ops[at];
  const std::string what = "stablehlo.custom_call @" + target + " (BLAS's triangular solve): ";
  if (op.operands.size() != 3 || op.results.size() != 1)
    return InvalidArgument(format(op.loc, what + "expects operands (a, b, alpha) and one result"));
  const ir::Type& a = op.operands[0]->type;
  const ir::Type& b = op.operands[1]->type;
  const ir::Type& alpha = op.operands[2]->type;
  if (!FloatMatrices(a) || !FloatMatrices(b) ||
      a.element != b.element || alpha != ir::Type::Tensor(b.element, {}) || op.result()->type != b)
    return InvalidArgument(format(op.loc, what + "a and b must be float or complex matrices of static shape (the batch "
                                                 "may be dynamic) and alpha a scalar of their type, the result b's "
                                                 "type"));
  const int64_t side = ConfigField(op, "side"), uplo = ConfigField(op, "uplo"), trans = ConfigField(op, "trans_x"),
                diag = ConfigField(op, "diag");
  if ((side != 'L' && side != 'R') || (uplo != 'L' && uplo != 'U') || (trans != 'N' && trans != 'T' && trans != 'C') ||
      (diag != 'N' && diag != 'U'))
    return InvalidArgument(format(op.loc, what + "needs mhlo.backend_config = {side, uplo, trans_x, diag} as LAPACK "
                                                 "characters ('L'/'R', 'L'/'U', 'N'/'T'/'C', 'N'/'U')"));
  Ops ops;
  ir::Value* scale = BroadcastTo(&ops, op, block, op.operands[2], b.dims, {}, op.operands[1]);
  ir::Operation* scaled = NewOp(&ops, op, block, ScalarOpName(ScalarOp::kMultiply), {scale, op.operands[1]}, b);
  ir::Operation* solve = NewOp(&ops, op, block, KernelName(KernelId::kTriangularSolve),
                               {op.operands[0], scaled->result()}, b);
  solve->attrs.emplace_back("left_side", ir::BoolAttr(side == 'L'));
  solve->attrs.emplace_back("lower", ir::BoolAttr(uplo == 'L'));
  solve->attrs.emplace_back("unit_diagonal", ir::BoolAttr(diag == 'U'));
  solve->attrs.emplace_back("transpose_a", ir::EnumAttr(trans == 'N' ? "NO_TRANSPOSE" : trans == 'T' ? "TRANSPOSE" : "ADJOINT"));
  *n_ops = Splice(block, at, std::move(ops));
  return Status::Ok();
}

// jaxlib's CPU targets (lapack_<type><routine>_ffi, lapack_<type><routine>
// before the FFI, blas_<type>trsm) that none of the rewrites above take: a
// routine Kiln does not run (newer jaxlib, or not one jaxlib emits), for
// the refusal; "" for every other target (a user op).
std::string UnsupportedLinalg(const std::string& target) {
  if (target.rfind("lapack_", 0) == 0) return "a LAPACK routine Kiln does not run";
  if (target.rfind("blas_", 0) == 0) return "a BLAS routine Kiln does not run";
  return "";
}

Status LegalizeBlock(ir::Block* block, const ErrorFormatter& format) {
  for (size_t i = 0; i < block->ops.size();) {
    ir::Operation& op = *block->ops[i];
    for (auto& region : op.regions)
      for (auto& b : region->blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format));
    size_t n = 1, tuple_after = 0;
    KILN_RETURN_IF_ERROR(UpgradeLegacyLinalgCall(block, i, format, &tuple_after));
    const ir::Attribute* t = op.name == op_names::kCustomCall ? op.GetAttr("call_target_name") : nullptr;
    if (t) {
      const std::string& target = t->str;
      if (target == "lapack_spotrf_ffi" || target == "lapack_dpotrf_ffi" || target == "lapack_cpotrf_ffi" ||
          target == "lapack_zpotrf_ffi") {
        KILN_RETURN_IF_ERROR(RewritePotrf(block, i, target, format, &n));
      } else if (target == "lapack_sgetrf_ffi" || target == "lapack_dgetrf_ffi" || target == "lapack_cgetrf_ffi" ||
                 target == "lapack_zgetrf_ffi") {
        KILN_RETURN_IF_ERROR(RewriteGetrf(block, i, target, format, &n));
      } else if (target == "lapack_sgeqrf_ffi" || target == "lapack_dgeqrf_ffi" || target == "lapack_cgeqrf_ffi" ||
                 target == "lapack_zgeqrf_ffi") {
        KILN_RETURN_IF_ERROR(RewriteQr(block, i, target, /*form_q=*/false, format, &n));
      } else if (target == "lapack_sorgqr_ffi" || target == "lapack_dorgqr_ffi" || target == "lapack_cungqr_ffi" ||
                 target == "lapack_zungqr_ffi" || target == "ProductOfElementaryHouseholderReflectors") {
        KILN_RETURN_IF_ERROR(RewriteQr(block, i, target, /*form_q=*/true, format, &n));
      } else if (target == "lapack_ssyevd_ffi" || target == "lapack_dsyevd_ffi" || target == "lapack_cheevd_ffi" ||
                 target == "lapack_zheevd_ffi") {
        KILN_RETURN_IF_ERROR(RewriteSyevd(block, i, target, format, &n));
      } else if (target == "lapack_sgesdd_ffi" || target == "lapack_dgesdd_ffi" || target == "lapack_cgesdd_ffi" ||
                 target == "lapack_zgesdd_ffi" || target == "lapack_sgesvd_ffi" || target == "lapack_dgesvd_ffi" ||
                 target == "lapack_cgesvd_ffi" || target == "lapack_zgesvd_ffi") {
        KILN_RETURN_IF_ERROR(RewriteGesdd(block, i, target, format, &n));
      } else if (target == "lapack_sgehrd_ffi" || target == "lapack_dgehrd_ffi" || target == "lapack_cgehrd_ffi" ||
                 target == "lapack_zgehrd_ffi") {
        KILN_RETURN_IF_ERROR(RewriteGehrd(block, i, target, format, &n));
      } else if (target == "lapack_ssytrd_ffi" || target == "lapack_dsytrd_ffi" || target == "lapack_chetrd_ffi" ||
                 target == "lapack_zhetrd_ffi") {
        KILN_RETURN_IF_ERROR(RewriteSytrd(block, i, target, format, &n));
      } else if (target == "lapack_sgeev_ffi" || target == "lapack_dgeev_ffi" || target == "lapack_cgeev_ffi" ||
                 target == "lapack_zgeev_ffi") {
        KILN_RETURN_IF_ERROR(RewriteGeev(block, i, target, format, &n));
      } else if (target == "lapack_sgees_ffi" || target == "lapack_dgees_ffi" || target == "lapack_cgees_ffi" ||
                 target == "lapack_zgees_ffi") {
        KILN_RETURN_IF_ERROR(RewriteGees(block, i, target, format, &n));
      } else if (target == "lapack_sgtsv_ffi" || target == "lapack_dgtsv_ffi" || target == "lapack_cgtsv_ffi" ||
                 target == "lapack_zgtsv_ffi") {
        KILN_RETURN_IF_ERROR(RewriteGtsv(block, i, target, format, &n));
      } else if (target == "lapack_sgeqp3_ffi" || target == "lapack_dgeqp3_ffi" || target == "lapack_cgeqp3_ffi" ||
                 target == "lapack_zgeqp3_ffi") {
        KILN_RETURN_IF_ERROR(RewriteGeqp3(block, i, target, format, &n));
      } else if (target == "blas_strsm_ffi" || target == "blas_dtrsm_ffi" || target == "blas_ctrsm_ffi" ||
                 target == "blas_ztrsm_ffi") {
        KILN_RETURN_IF_ERROR(RewriteTrsm(block, i, target, format, &n));
      } else if (std::string what = UnsupportedLinalg(target); !what.empty()) {
        return Unimplemented(format(op.loc, "stablehlo.custom_call @" + target + " (" + what +
                                                ") is not supported yet; Kiln runs lapack_?potrf_ffi (Cholesky), "
                                                "lapack_?getrf_ffi (LU), lapack_?geqrf_ffi and lapack_?orgqr_ffi (QR), "
                                                "lapack_?geqp3_ffi (pivoted QR), "
                                                "lapack_{s,d}syevd_ffi and lapack_{c,z}heevd_ffi (symmetric and "
                                                "Hermitian eigendecompositions), lapack_?gesdd_ffi and "
                                                "lapack_?gesvd_ffi (SVD), "
                                                "lapack_?geev_ffi (eigendecomposition), lapack_?gees_ffi (Schur), "
                                                "lapack_?gehrd_ffi "
                                                "(Hessenberg), lapack_{s,d}sytrd_ffi and lapack_{c,z}hetrd_ffi "
                                                "(tridiagonal), lapack_?gtsv_ffi (tridiagonal solve), "
                                                "blas_?trsm_ffi (triangular solve), and jaxlib's forms of "
                                                "potrf, getrf, geqrf, orgqr, syevd, heevd, gesdd, geev, gees and trsm "
                                                "before the FFI"));
      }
    }
    i += n + tuple_after;
  }
  return Status::Ok();
}

}  // namespace

Status LegalizeLinalgCustomCalls(ir::Module* module, const ErrorFormatter& format_error) {
  for (auto& f : module->functions)
    for (auto& b : f->body.blocks) KILN_RETURN_IF_ERROR(LegalizeBlock(b.get(), format_error));
  return Status::Ok();
}

}  // namespace kiln::compiler
