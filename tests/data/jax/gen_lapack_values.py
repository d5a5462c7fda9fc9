#!/usr/bin/env python3
"""Check programs of JAX's LAPACK calls with LAPACK's own results. Writes
tests/data/jax/eig_lapack.mlir: jnp.linalg.eig as JAX lowers it on
the CPU (@lapack_?geev_ffi and jaxlib's form before the FFI), with the
values LAPACK's own ?geev gives for each matrix (Debian's liblapack3, called
through ctypes): eigenvalues in LAPACK's order and eigenvectors with its
signs and phases, which only LAPACK's algorithm fixes. With --eigh, writes
tests/data/jax/eigh_signs_lapack.mlir: jnp.linalg.eigh (@lapack_?syevd_ffi,
@lapack_?heevd_ffi) against LAPACK's own ?syevd / ?heevd the same way. With
--gtsv, writes tests/data/jax/tridiagonal_solve_lapack.mlir:
lax.linalg.tridiagonal_solve (@lapack_?gtsv_ffi) against LAPACK's ?gtsv. With
--geqp3, writes tests/data/jax/pivoted_qr_lapack.mlir: jax.scipy.linalg.qr
with pivoting (@lapack_?geqp3_ffi) against LAPACK's ?geqp3. With --svd,
writes tests/data/jax/svd_signs_lapack.mlir: jnp.linalg.svd
(@lapack_?gesdd_ffi, and @lapack_?gesvd_ffi for algorithm=QR) against
LAPACK's own ?gesdd and ?gesvd: singular vectors with LAPACK's signs
(--svd-explore writes a larger set over every path, type and mode). With
--gees, writes tests/data/jax/schur_lapack.mlir: jax.scipy.linalg.schur
(@lapack_?gees_ffi and jaxlib's earlier forms) against LAPACK's ?gees.

  /usr/bin/python3 tests/data/jax/gen_lapack_values.py > tests/data/jax/eig_lapack.mlir
  /usr/bin/python3 tests/data/jax/gen_lapack_values.py --eigh > tests/data/jax/eigh_signs_lapack.mlir
  /usr/bin/python3 tests/data/jax/gen_lapack_values.py --gtsv > tests/data/jax/tridiagonal_solve_lapack.mlir
  /usr/bin/python3 tests/data/jax/gen_lapack_values.py --geqp3 > tests/data/jax/pivoted_qr_lapack.mlir
  /usr/bin/python3 tests/data/jax/gen_lapack_values.py --svd > tests/data/jax/svd_signs_lapack.mlir
  /usr/bin/python3 tests/data/jax/gen_lapack_values.py --gees > tests/data/jax/schur_lapack.mlir
"""
import sys
import ctypes

import numpy as np

lapack = ctypes.CDLL("liblapack.so.3")
P = lambda x: x.ctypes.data_as(ctypes.c_void_p)
R = ctypes.byref


def random_array(rng, shape, t):
    """Standard normal entries of type t (complex: both parts)."""
    x = rng.standard_normal(shape)
    if np.dtype(t).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(t)


def geev(a, left=True, right=True):
    """LAPACK's ?geev; a real matrix's conjugate pairs unpacked as jaxlib does."""
    n, t = a.shape[0], a.dtype
    fa = np.asfortranarray(a.copy())
    jl, jr = ctypes.c_char(b"V" if left else b"N"), ctypes.c_char(b"V" if right else b"N")
    N, info = ctypes.c_int(n), ctypes.c_int(0)
    vl, vr = np.zeros((n, n), t, order="F"), np.zeros((n, n), t, order="F")
    if t.kind == "f":
        f = lapack.sgeev_ if t == np.float32 else lapack.dgeev_
        wr, wi = np.zeros(n, t), np.zeros(n, t)
        work = np.zeros(64 * n + 64, t)
        f(R(jl), R(jr), R(N), P(fa), R(N), P(wr), P(wi), P(vl), R(N), P(vr), R(N), P(work),
          R(ctypes.c_int(work.size)), R(info))
        ct = np.complex64 if t == np.float32 else np.complex128

        def unpack(v):
            out = v.astype(ct)
            for j in range(n):
                if wi[j] > 0:
                    out[:, j] = v[:, j] + 1j * v[:, j + 1]
                    out[:, j + 1] = v[:, j] - 1j * v[:, j + 1]
            return out
        return [wr, wi, unpack(vl), unpack(vr)], info.value
    f = lapack.cgeev_ if t == np.complex64 else lapack.zgeev_
    w = np.zeros(n, t)
    work = np.zeros(64 * n + 64, t)
    rwork = np.zeros(2 * n, np.float32 if t == np.complex64 else np.float64)
    f(R(jl), R(jr), R(N), P(fa), R(N), P(w), P(vl), R(N), P(vr), R(N), P(work), R(ctypes.c_int(work.size)),
      P(rwork), R(info))
    return [w, vl, vr], info.value


def elem(t):
    return {np.float32: "f32", np.float64: "f64", np.complex64: "complex<f32>",
            np.complex128: "complex<f64>"}[t.type]


def cplx(t):
    return {np.float32: "complex<f32>", np.float64: "complex<f64>"}.get(t.type, elem(t))


def ttype(shape, e):
    return "tensor<" + "".join(f"{d}x" for d in shape) + e + ">"


def lit(x):
    def one(v):
        if np.iscomplexobj(v):
            return f"({v.real!r}, {v.imag!r})"
        if np.issubdtype(np.asarray(v).dtype, np.integer):
            return str(int(v))
        return repr(float(v))

    def rec(a):
        if a.ndim == 0:
            return one(a[()])
        return "[" + ", ".join(rec(s) for s in a) + "]"
    return rec(np.asarray(x))


def function(name, comment, a, *, left=True, right=True, workspaces=False, legacy=False):
    """One check function: the call on constant a, its results against LAPACK's."""
    batch = a.shape[:-2]
    n = a.shape[-1]
    t = a.dtype
    real = t.kind == "f"
    mats = a.reshape((-1, n, n))
    outs = [geev(m, left, right) for m in mats]
    parts = [np.stack([o[0][k] for o in outs]).reshape(batch + o_shape)
             for k, o_shape in enumerate(([(n,), (n,), (n, n), (n, n)] if real else [(n,), (n, n), (n, n)]))]
    vals = [ttype(batch + (n,), elem(t))] * (2 if real else 1)
    vecs = [ttype(batch + (n, n), cplx(t))] * 2
    info_t = ttype(batch, "i32")
    letter = {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}[t.type]
    lines = [f"// {comment}", f"func.func @{name}() {{",
             f"  %a = stablehlo.constant dense<{lit(a)}> : {ttype(a.shape, elem(t))}"]
    results = vals + vecs + [info_t]
    if legacy:  # jaxlib before the FFI: (batch, n, jobvl, jobvr, a), workspaces first
        ws = [ttype(batch + (n, n), elem(t))] * 3 if real else [ttype(batch + (n, n), elem(t)),
                                                                ttype(batch + (2 * n,), elem(np.dtype(np.float32 if t == np.complex64 else np.float64)))]
        all_results = ws + results
        lines += [f"  %b = stablehlo.constant dense<{int(np.prod(batch))}> : tensor<i32>",
                  f"  %n = stablehlo.constant dense<{n}> : tensor<i32>",
                  f"  %jl = stablehlo.constant dense<{86 if left else 78}> : tensor<ui8>",
                  f"  %jr = stablehlo.constant dense<{86 if right else 78}> : tensor<ui8>",
                  f"  %0:{len(all_results)} = stablehlo.custom_call @lapack_{letter}geev(%b, %n, %jl, %jr, %a) "
                  f"{{api_version = 2 : i32}} : (tensor<i32>, tensor<i32>, tensor<ui8>, tensor<ui8>, {ttype(a.shape, elem(t))}) -> "
                  f"({', '.join(all_results)})"]
        first = len(ws)
    else:
        if workspaces:
            results = results + ([ttype(batch + (n, n), elem(t))] * 3 if real else
                                 [ttype(batch + (n, n), elem(t)),
                                  ttype(batch + (2 * n,), elem(np.dtype(np.float32 if t == np.complex64 else np.float64)))])
        lines += [f"  %0:{len(results)} = stablehlo.custom_call @lapack_{letter}geev_ffi(%a) "
                  f"{{mhlo.backend_config = {{compute_left = {86 if left else 78} : ui8, compute_right = "
                  f"{86 if right else 78} : ui8}}, api_version = 4 : i32}} : ({ttype(a.shape, elem(t))}) -> "
                  f"({', '.join(results)})"]
        first = 0
    single = t in (np.float32, np.complex64)
    tol_values = "1.0E-5" if single else "1.0E-12"
    tol_vectors = "1.0E-4" if single else "1.0E-10"
    nv = 2 if real else 1
    for k, p in enumerate(parts):
        is_vec = k >= nv
        if is_vec and not (left if k == nv else right):
            lines.append(f"  check.expect_eq_const %0#{first + k}, dense<{lit(np.zeros_like(p))}> : {ttype(p.shape, cplx(t))}")
            continue
        tt = ttype(p.shape, cplx(t) if is_vec else elem(t))
        lines.append(f"  check.expect_almost_eq_const %0#{first + k}, dense<{lit(p)}> : {tt} "
                     f"{{tolerance = {tol_vectors if is_vec else tol_values} : f64}}")
    lines.append(f"  check.expect_eq_const %0#{first + len(parts)}, dense<0> : {info_t}")
    lines += ["  func.return", "}"]
    return "\n".join(lines)


def syevd(a, lower=True, vectors=True):
    """LAPACK's ?syevd / ?heevd: (v, w, info)."""
    n, t = a.shape[0], a.dtype
    fa = np.asfortranarray(a.copy())
    jz, up = ctypes.c_char(b"V" if vectors else b"N"), ctypes.c_char(b"L" if lower else b"U")
    N, info = ctypes.c_int(n), ctypes.c_int(0)
    rt = np.float32 if t in (np.float32, np.complex64) else np.float64
    w = np.zeros(n, rt)
    work = np.zeros(2 * n * n + 6 * n + 101, t)
    iwork = np.zeros(5 * n + 103, np.int32)
    if t.kind == "f":
        f = lapack.ssyevd_ if t == np.float32 else lapack.dsyevd_
        f(R(jz), R(up), R(N), P(fa), R(N), P(w), P(work), R(ctypes.c_int(work.size)), P(iwork),
          R(ctypes.c_int(iwork.size)), R(info))
    else:
        f = lapack.cheevd_ if t == np.complex64 else lapack.zheevd_
        rwork = np.zeros(2 * n * n + 5 * n + 101, rt)
        f(R(jz), R(up), R(N), P(fa), R(N), P(w), P(work), R(ctypes.c_int(work.size)), P(rwork),
          R(ctypes.c_int(rwork.size)), P(iwork), R(ctypes.c_int(iwork.size)), R(info))
    return np.ascontiguousarray(fa) if vectors else np.zeros_like(a), w, info.value


def eigh_function(name, comment, a, lower=True, vectors=True):
    batch, n, t = a.shape[:-2], a.shape[-1], a.dtype
    mats = a.reshape((-1, n, n))
    outs = [syevd(m, lower, vectors) for m in mats]
    v = np.stack([o[0] for o in outs]).reshape(a.shape)
    w = np.stack([o[1] for o in outs]).reshape(batch + (n,))
    real = "f32" if t in (np.float32, np.complex64) else "f64"
    letter = {np.float32: "ssyevd", np.float64: "dsyevd", np.complex64: "cheevd", np.complex128: "zheevd"}[t.type]
    single = real == "f32"
    results = [ttype(a.shape, elem(t)), ttype(batch + (n,), real), ttype(batch, "i32")]
    lines = [f"// {comment}", f"func.func @{name}() {{",
             f"  %a = stablehlo.constant dense<{lit(a)}> : {ttype(a.shape, elem(t))}",
             f"  %0:3 = stablehlo.custom_call @lapack_{letter}_ffi(%a) {{mhlo.backend_config = {{mode = "
             f"{86 if vectors else 78} : ui8, uplo = {76 if lower else 85} : ui8}}, api_version = 4 : i32}} : "
             f"({ttype(a.shape, elem(t))}) -> ({', '.join(results)})",
             f"  check.expect_almost_eq_const %0#0, dense<{lit(v)}> : {results[0]} "
             f"{{tolerance = {'1.0E-4' if single else '1.0E-10'} : f64}}",
             f"  check.expect_almost_eq_const %0#1, dense<{lit(w)}> : {results[1]} "
             f"{{tolerance = {'1.0E-5' if single else '1.0E-12'} : f64}}",
             f"  check.expect_eq_const %0#2, dense<0> : {results[2]}", "  func.return", "}"]
    return "\n".join(lines)


def main_eigh():
    rng = np.random.default_rng(2027)

    def herm(shape, t):
        x = rng.standard_normal(shape)
        if np.dtype(t).kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        return ((x + np.swapaxes(x.conj(), -1, -2)) / 2).astype(t)
    fns = [eigh_function("syevd_f64_lower_signs", "f64, lower: LAPACK's signs", herm((5, 5), np.float64)),
           eigh_function("syevd_f32_upper_signs", "f32, upper", herm((4, 4), np.float32), lower=False),
           eigh_function("heevd_c128_lower_phases", "complex<f64>: LAPACK's phases", herm((4, 4), np.complex128)),
           eigh_function("heevd_c64_upper_phases", "complex<f32>, upper", herm((3, 3), np.complex64), lower=False),
           eigh_function("syevd_f64_batched", "a batch", herm((2, 3, 3), np.float64)),
           eigh_function("syevd_f64_n12_signs", "n = 12: QL and QR sweeps over several blocks",
                         herm((12, 12), np.float64)),
           eigh_function("syevd_f64_values_only", "values only (vectors zero)", herm((4, 4), np.float64),
                         vectors=False)]
    print("// jnp.linalg.eigh as JAX lowers it on the CPU (tests/jax_exports.cmake), against")
    print("// LAPACK's own ?syevd / ?heevd (gen_lapack_values.py --eigh): the eigenvectors' signs")
    print("// and phases are LAPACK's for n <= 25, where its ?stedc runs steqr.")
    print("\n\n// -----\n\n".join(fns))


def gtsv(dl, d, du, b):
    """LAPACK's ?gtsv as jaxlib calls it (dl + 1): (dl', d', du', b', info)."""
    t = b.dtype
    dl, d, du = dl.copy(), d.copy(), du.copy()
    n, nrhs = b.shape
    fb = np.asfortranarray(b.copy())
    f = {np.float32: lapack.sgtsv_, np.float64: lapack.dgtsv_, np.complex64: lapack.cgtsv_,
         np.complex128: lapack.zgtsv_}[t.type]
    info = ctypes.c_int(0)
    sub = dl[1:].copy()
    f(R(ctypes.c_int(n)), R(ctypes.c_int(nrhs)), P(sub), P(d), P(du), P(fb), R(ctypes.c_int(n)), R(info))
    dl[1:] = sub
    return dl, d, du, np.ascontiguousarray(fb), info.value


def gtsv_function(name, comment, dl, d, du, b):
    batch = b.shape[:-2]
    t = b.dtype
    outs = [gtsv(*(x.reshape((-1,) + x.shape[len(batch):])[i] for x in (dl, d, du, b)))
            for i in range(int(np.prod(batch)))]
    parts = [np.stack([o[k] for o in outs]).reshape(x.shape) for k, x in enumerate((dl, d, du, b))]
    info = np.array([o[4] for o in outs], np.int32).reshape(batch)
    letter = {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}[t.type]
    dt, bt, it = ttype(d.shape, elem(t)), ttype(b.shape, elem(t)), ttype(batch, "i32")
    tol = "1.0E-5" if t in (np.float32, np.complex64) else "1.0E-12"
    lines = [f"// {comment}", f"func.func @{name}() {{"]
    for nm, x, tt in (("dl", dl, dt), ("d", d, dt), ("du", du, dt), ("b", b, bt)):
        lines.append(f"  %{nm} = stablehlo.constant dense<{lit(x)}> : {tt}")
    lines.append(f"  %0:5 = stablehlo.custom_call @lapack_{letter}gtsv_ffi(%dl, %d, %du, %b) "
                 f"{{mhlo.backend_config = {{}}}} : ({dt}, {dt}, {dt}, {bt}) -> ({dt}, {dt}, {dt}, {bt}, {it})")
    for k, (p, tt) in enumerate(zip(parts, (dt, dt, dt, bt))):
        if info.any() and k == 3:
            continue  # a singular system's b is left part way
        lines.append(f"  check.expect_almost_eq_const %0#{k}, dense<{lit(p)}> : {tt} {{tolerance = {tol} : f64}}")
    lines.append(f"  check.expect_eq_const %0#4, dense<{lit(info)}> : {it}")
    lines += ["  func.return", "}"]
    return "\n".join(lines)


def main_gtsv():
    rng = np.random.default_rng(2028)

    def arr(shape, t):
        return random_array(rng, shape, t)
    fns = []
    for t in (np.float32, np.float64, np.complex64, np.complex128):
        # Batches of 4 x 4 with 3 right-hand sides, as JAX's back-compatibility test; the
        # sub-diagonal is the larger here and there, so rows are interchanged.
        dl, d, du, b = arr((2, 4), t), arr((2, 4), t), arr((2, 4), t), arr((2, 4, 3), t)
        dl[..., 0] = 0
        du[..., -1] = 0
        fns.append(gtsv_function(f"gtsv_{np.dtype(t).name}_matches_lapack", f"{np.dtype(t).name}, batched", dl, d, du, b))
    d = np.array([1.0, 0.0, 2.0])
    fns.append(gtsv_function("gtsv_f64_singular_info", "a zero pivot: info names its row",
                             np.array([0.0, 0.0, 1.0]), d, np.array([0.0, 0.0, 0.0]), np.ones((3, 1))))
    fns.append(gtsv_function("gtsv_f64_one_row", "n = 1", np.zeros(1), np.array([4.0]), np.zeros(1),
                             np.array([[2.0, -8.0]])))
    print("// lax.linalg.tridiagonal_solve as JAX lowers it on the CPU (tests/jax_exports.cmake),")
    print("// against LAPACK's own ?gtsv (gen_lapack_values.py --gtsv).")
    print("\n\n// -----\n\n".join(fns))


def geqp3(a, jpvt):
    """LAPACK's ?geqp3: (a', jpvt', tau)."""
    m, n = a.shape
    t = a.dtype
    fa = np.asfortranarray(a.copy())
    jp = jpvt.astype(np.int32).copy()
    tau = np.zeros(min(m, n), t)
    work = np.zeros(3 * n + 64 * (n + 1) + 64, t)
    info = ctypes.c_int(0)
    M, N = ctypes.c_int(m), ctypes.c_int(n)
    if t.kind == "f":
        f = lapack.sgeqp3_ if t == np.float32 else lapack.dgeqp3_
        f(R(M), R(N), P(fa), R(M), P(jp), P(tau), P(work), R(ctypes.c_int(work.size)), R(info))
    else:
        f = lapack.cgeqp3_ if t == np.complex64 else lapack.zgeqp3_
        rwork = np.zeros(2 * n, np.float32 if t == np.complex64 else np.float64)
        f(R(M), R(N), P(fa), R(M), P(jp), P(tau), P(work), R(ctypes.c_int(work.size)), P(rwork), R(info))
    return np.ascontiguousarray(fa), jp, tau


def geqp3_function(name, comment, a, jpvt):
    batch, (m, n), t = a.shape[:-2], a.shape[-2:], a.dtype
    outs = [geqp3(x, j) for x, j in zip(a.reshape((-1, m, n)), jpvt.reshape((-1, n)))]
    parts = [np.stack([o[k] for o in outs]).reshape(batch + shape)
             for k, shape in enumerate(((m, n), (n,), (min(m, n),)))]
    letter = {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}[t.type]
    at, jt, tt = ttype(a.shape, elem(t)), ttype(batch + (n,), "i32"), ttype(batch + (min(m, n),), elem(t))
    tol = "1.0E-5" if t in (np.float32, np.complex64) else "1.0E-12"
    lines = [f"// {comment}", f"func.func @{name}() {{",
             f"  %a = stablehlo.constant dense<{lit(a)}> : {at}",
             f"  %p = stablehlo.constant dense<{lit(jpvt.astype(np.int32))}> : {jt}",
             f"  %0:3 = stablehlo.custom_call @lapack_{letter}geqp3_ffi(%a, %p) {{mhlo.backend_config = {{}}}} : "
             f"({at}, {jt}) -> ({at}, {jt}, {tt})",
             f"  check.expect_almost_eq_const %0#0, dense<{lit(parts[0])}> : {at} {{tolerance = {tol} : f64}}",
             f"  check.expect_eq_const %0#1, dense<{lit(parts[1])}> : {jt}",
             f"  check.expect_almost_eq_const %0#2, dense<{lit(parts[2])}> : {tt} {{tolerance = {tol} : f64}}",
             "  func.return", "}"]
    return "\n".join(lines)


def main_geqp3():
    rng = np.random.default_rng(2029)

    def arr(shape, t):
        return random_array(rng, shape, t)
    fns = [geqp3_function("geqp3_f32_tall", "f32, 5 x 3", arr((5, 3), np.float32), np.zeros(3)),
           geqp3_function("geqp3_f64_fixed_column", "f64: column 2 fixed in front (jpvt != 0)",
                          arr((4, 4), np.float64), np.array([0, 0, 1, 0])),
           geqp3_function("geqp3_c128_wide", "complex<f64>, 3 x 5", arr((3, 5), np.complex128), np.zeros(5)),
           geqp3_function("geqp3_c64_square", "complex<f32>, 4 x 4", arr((4, 4), np.complex64), np.zeros(4)),
           geqp3_function("geqp3_f64_batched_rank_deficient",
                          "a batch; the second matrix of rank one (the norms downdate to zero)",
                          np.stack([arr((3, 3), np.float64), np.outer([1.0, 2.0, -1.0], [0.5, -3.0, 2.0])]),
                          np.zeros((2, 3))),
           geqp3_function("geqp3_f64_equal_norms", "columns of equal norms: the first of them is the pivot",
                          np.array([[1.0, 2.0, 2.0, 0.5], [2.0, 1.0, -2.0, 0.5], [2.0, -2.0, 1.0, 0.5]]), np.zeros(4)),
           geqp3_function("geqp3_f64_downdated_norms", "8 x 7: the pivots follow the downdated norms",
                          arr((8, 7), np.float64) * np.array([1.0, 3.0, 0.5, 2.9, 1.1, 2.0, 0.7]), np.zeros(7)),
           geqp3_function("geqp3_f64_downdate_decides",
                          "after column 0, column 1 keeps 3 sqrt(1/2) = 2.12 of its norm and column 2 "
                          "1.9 sqrt(0.9) = 1.80: column 1 is the next pivot",
                          np.array([[10.0, 2.1213, 0.6008], [0.0, 2.1213, 0.0], [0.0, 0.0, 1.8025]]), np.zeros(3))]
    print("// jax.scipy.linalg.qr(pivoting=True) as JAX lowers it on the CPU (tests/jax_exports.cmake),")
    print("// against LAPACK's own ?geqp3 (gen_lapack_values.py --geqp3).")
    print("\n\n// -----\n\n".join(fns))


def svd(a, mode, routine):
    """LAPACK's ?gesdd or ?gesvd with jobz (jobu = jobvt) = mode: (s, u, vt)."""
    m, n = a.shape
    t = a.dtype
    k = min(m, n)
    uc, vr = (m, n) if mode == "A" else (k, k)
    fa = np.asfortranarray(a.copy())
    real = np.float32 if t in (np.float32, np.complex64) else np.float64
    s = np.zeros(k, real)
    u = np.zeros((m, max(uc, 1)), t, order="F")
    vt = np.zeros((max(vr, 1), n), t, order="F")
    work = np.zeros(8 * (m + n) ** 2 + 64, t)
    rwork = np.zeros(8 * (m + n) ** 2 + 64, real)
    iwork = np.zeros(8 * (m + n) + 8, np.int32)
    info = ctypes.c_int(0)
    M, N, J = ctypes.c_int(m), ctypes.c_int(n), ctypes.c_char(mode.encode())
    LU, LV, LW = ctypes.c_int(max(m, 1)), ctypes.c_int(max(vr, 1)), ctypes.c_int(work.size)
    letter = {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}[t.type]
    f = getattr(lapack, f"{letter}{routine}_")
    head = [R(J)] if routine == "gesdd" else [R(J), R(J)]
    args = head + [R(M), R(N), P(fa), R(ctypes.c_int(max(m, 1))), P(s), P(u), R(LU), P(vt), R(LV), P(work), R(LW)]
    if t.kind == "c":
        args.append(P(rwork))
    if routine == "gesdd":
        args.append(P(iwork))
    f(*args, R(info))
    return s, u[:, :uc], vt[:vr, :], info.value


def svd_function(name, comment, a, mode, routine="gesdd"):
    batch, (m, n), t = a.shape[:-2], a.shape[-2:], a.dtype
    k = min(m, n)
    uc, vr = (m, n) if mode == "A" else (k, k)
    outs = [svd(x, mode, routine) for x in a.reshape((-1, m, n))]
    assert all(o[3] == 0 for o in outs)
    real = np.dtype(np.float32 if t in (np.float32, np.complex64) else np.float64)
    s = np.stack([o[0] for o in outs]).reshape(batch + (k,))
    u = np.stack([o[1] for o in outs]).reshape(batch + (m, uc))
    vt = np.stack([o[2] for o in outs]).reshape(batch + (vr, n))
    letter = {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}[t.type]
    at, st = ttype(a.shape, elem(t)), ttype(batch + (k,), elem(real))
    ut = ttype(batch + ((m, uc) if mode != "N" else (m, m)), elem(t))
    vtt = ttype(batch + ((vr, n) if mode != "N" else (n, n)), elem(t))
    it = ttype(batch, "i32")
    single = t in (np.float32, np.complex64)
    tol_values = "1.0E-5" if single else "1.0E-12"
    tol_vectors = "1.0E-4" if single else "1.0E-10"
    lines = [f"// {comment}", f"func.func @{name}() {{",
             f"  %a = stablehlo.constant dense<{lit(a)}> : {at}",
             f"  %0:5 = stablehlo.custom_call @lapack_{letter}{routine}_ffi(%a) {{mhlo.backend_config = "
             f"{{mode = {ord(mode)} : ui8}}, api_version = 4 : i32}} : ({at}) -> ({at}, {st}, {ut}, {vtt}, {it})",
             f"  check.expect_almost_eq_const %0#1, dense<{lit(s)}> : {st} {{tolerance = {tol_values} : f64}}"]
    if mode != "N":
        lines += [f"  check.expect_almost_eq_const %0#2, dense<{lit(u)}> : {ut} {{tolerance = {tol_vectors} : f64}}",
                  f"  check.expect_almost_eq_const %0#3, dense<{lit(vt)}> : {vtt} {{tolerance = {tol_vectors} : f64}}"]
    lines += [f"  check.expect_eq_const %0#4, dense<0> : {it}", "  func.return", "}"]
    return "\n".join(lines)


def main_svd(shapes_only=False):
    rng = np.random.default_rng(2030)

    def arr(shape, t):
        return random_array(rng, shape, t)
    fns = []
    if shapes_only:  # every path, type and mode on random matrices (not committed: exploration)
        for routine in ("gesdd", "gesvd"):
            for t in (np.float32, np.float64, np.complex64, np.complex128):
                for m, n in ((1, 1), (2, 2), (3, 3), (5, 5), (4, 3), (3, 4), (6, 3), (3, 6), (7, 4), (4, 7),
                             (10, 4), (4, 10), (12, 12), (20, 7), (7, 20), (25, 25), (30, 30)):
                    for mode in "ASN":
                        name = f"{routine}_{np.dtype(t).name}_{m}x{n}_{mode}"
                        fns.append(svd_function(name, name, arr((m, n), t), mode, routine))
    else:
        f32, f64, c64, c128 = np.float32, np.float64, np.complex64, np.complex128
        cases = [
            ("gesdd_f64_full_direct", "f64 4 x 3, full: bidiagonalized directly (4 < 11 * 3 / 6), U completed",
             arr((4, 3), f64), "A", "gesdd"),
            ("gesdd_f32_thin_after_qr", "f32 7 x 3, thin: QR first (7 >= 11 * 3 / 6)", arr((7, 3), f32), "S", "gesdd"),
            ("gesdd_f64_wide_full_after_lq", "f64 3 x 7, full: LQ first, VT completed", arr((3, 7), f64), "A", "gesdd"),
            ("gesdd_c128_wide_lower_bidiagonal",
             "complex<f64> 3 x 4, thin: the lower bidiagonal form (4 < 17 * 3 / 9), rotated upper by bdsdc",
             arr((3, 4), c128), "S", "gesdd"),
            ("gesdd_c64_full_after_qr", "complex<f32> 6 x 3, full: QR first (6 >= 17 * 3 / 9)",
             arr((6, 3), c64), "A", "gesdd"),
            ("gesdd_f64_one_by_one_negative", "a negative 1 x 1: bdsdc puts its sign in U",
             np.array([[-2.5]]), "A", "gesdd"),
            ("gesdd_f64_batched_square", "a batch of 5 x 5, thin", arr((2, 5, 5), f64), "S", "gesdd"),
            ("gesdd_f64_rank_one", "rank one: zero singular values, their vectors as LAPACK completes them",
             np.outer([1.0, -2.0, 0.5, 1.5], [2.0, 1.0, -1.0]), "A", "gesdd"),
            ("gesdd_f64_tiny_scaled", "entries near 1e-160: gesdd scales the matrix first",
             arr((4, 4), f64) * 1e-160, "S", "gesdd"),
            ("gesdd_f32_values_only", "singular values only", arr((5, 4), f32), "N", "gesdd"),
            ("gesdd_c128_square_16", "complex<f64> 16 x 16: many sweeps of both chase directions",
             arr((16, 16), c128), "S", "gesdd"),
            ("gesvd_f64_thin_direct", "gesvd (algorithm=QR), f64 5 x 4 thin: bidiagonalized directly (5 < 1.6 * 4)",
             arr((5, 4), f64), "S", "gesvd"),
            ("gesvd_f64_full_after_qr", "gesvd, f64 7 x 4 full: QR first", arr((7, 4), f64), "A", "gesvd"),
            ("gesvd_f64_wide_thin_after_lq", "gesvd, f64 3 x 6 thin: LQ first", arr((3, 6), f64), "S", "gesvd"),
            ("gesvd_c128_wide_lower_bidiagonal", "gesvd, complex<f64> 4 x 5 full: the lower form, rotated by bdsqr",
             arr((4, 5), c128), "A", "gesvd"),
            ("gesvd_f64_one_by_one_negative", "a negative 1 x 1: bdsqr puts its sign in VT",
             np.array([[-2.5]]), "S", "gesvd"),
            ("gesvd_c64_square", "gesvd, complex<f32> 5 x 5", arr((5, 5), c64), "S", "gesvd"),
            ("gesvd_f32_values_only_batched", "gesvd, a batch, values only", arr((3, 4, 3), f32), "N", "gesvd"),
        ]
        fns = [svd_function(name, comment, a, mode, routine) for name, comment, a, mode, routine in cases]
    print("// jnp.linalg.svd as JAX lowers it on the CPU (tests/jax_exports.cmake), against")
    print("// LAPACK's own ?gesdd and ?gesvd (gen_lapack_values.py --svd): singular vectors")
    print("// with LAPACK's signs and phases.")
    print("\n\n// -----\n\n".join(fns))


def gees(a, vectors=True):
    """LAPACK's ?gees without sorting: (t, vs, eigenvalues...)."""
    n, t = a.shape[0], a.dtype
    fa = np.asfortranarray(a.copy())
    vs = np.zeros((n, n), t, order="F")
    sdim, info = ctypes.c_int(0), ctypes.c_int(0)
    N = ctypes.c_int(n)
    jobvs, sort = ctypes.c_char(b"V" if vectors else b"N"), ctypes.c_char(b"N")
    work = np.zeros(64 * n + 64, t)
    bwork = np.zeros(n + 1, np.int32)
    letter = {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}[t.type]
    f = getattr(lapack, f"{letter}gees_")
    if t.kind == "f":
        wr, wi = np.zeros(n, t), np.zeros(n, t)
        f(R(jobvs), R(sort), None, R(N), P(fa), R(N), R(sdim), P(wr), P(wi), P(vs), R(N), P(work),
          R(ctypes.c_int(work.size)), P(bwork), R(info))
        values = [wr, wi]
    else:
        w = np.zeros(n, t)
        rwork = np.zeros(n, np.float32 if t == np.complex64 else np.float64)
        f(R(jobvs), R(sort), None, R(N), P(fa), R(N), R(sdim), P(w), P(vs), R(N), P(work),
          R(ctypes.c_int(work.size)), P(rwork), P(bwork), R(info))
        values = [w]
    assert info.value == 0 and sdim.value == 0
    return np.ascontiguousarray(fa), (np.ascontiguousarray(vs) if vectors else np.zeros((n, n), t)), values


def gees_function(name, comment, a, vectors=True, form="ffi"):
    """form: "ffi" (lapack_?gees_ffi), "interim" (jaxlib's first FFI call under the
    old name, values before vs) or "legacy" (before the FFI: dims and flags first)."""
    batch, n, t = a.shape[:-2], a.shape[-1], a.dtype
    outs = [gees(x, vectors) for x in a.reshape((-1, n, n))]
    tt_ = np.stack([o[0] for o in outs]).reshape(a.shape)
    vs = np.stack([o[1] for o in outs]).reshape(a.shape)
    vals = [np.stack([o[2][k] for o in outs]).reshape(batch + (n,)) for k in range(len(outs[0][2]))]
    letter = {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}[t.type]
    at, vt, it = ttype(a.shape, elem(t)), ttype(batch + (n,), elem(t)), ttype(batch, "i32")
    real = t.kind == "f"
    rwork = ttype(batch + (n,), "f32" if t == np.complex64 else "f64")
    mode = 86 if vectors else 78
    single = t in (np.float32, np.complex64)
    tol = "1.0E-5" if single else "1.0E-12"
    tolv = "1.0E-4" if single else "1.0E-10"
    lines = [f"// {comment}", f"func.func @{name}() {{", f"  %a = stablehlo.constant dense<{lit(a)}> : {at}"]
    if form == "ffi":
        res = [at, at] + [vt] * len(vals) + [it, it]
        idx = {"t": 0, "vs": 1, "values": list(range(2, 2 + len(vals))), "sdim": 2 + len(vals), "info": 3 + len(vals)}
        lines.append(f"  %0:{len(res)} = stablehlo.custom_call @lapack_{letter}gees_ffi(%a) {{mhlo.backend_config = "
                     f"{{mode = {mode} : ui8, sort = 78 : ui8}}, api_version = 4 : i32}} : ({at}) -> ({', '.join(res)})")
    elif form == "interim":
        res = [at] + [vt] * len(vals) + [at, it, it] + ([] if real else [rwork])
        nv = len(vals)
        idx = {"t": 0, "vs": 1 + nv, "values": list(range(1, 1 + nv)), "sdim": 2 + nv, "info": 3 + nv}
        lines.append(f"  %0:{len(res)} = stablehlo.custom_call @lapack_{letter}gees(%a) {{mhlo.backend_config = "
                     f"{{mode = {mode} : ui8, sort = 78 : ui8}}}} : ({at}) -> ({', '.join(res)})")
    else:
        res = [at] + ([vt, vt] if real else [rwork, vt]) + [at, it, it]
        idx = {"t": 0, "vs": 3, "values": [1, 2] if real else [2], "sdim": 4, "info": 5}
        lines += [f"  %b = stablehlo.constant dense<{int(np.prod(batch))}> : tensor<i32>",
                  f"  %n = stablehlo.constant dense<{n}> : tensor<i32>",
                  f"  %jobvs = stablehlo.constant dense<{mode}> : tensor<ui8>",
                  "  %sort = stablehlo.constant dense<78> : tensor<ui8>",
                  f"  %0:{len(res)} = stablehlo.custom_call @lapack_{letter}gees(%b, %n, %jobvs, %sort, %a) "
                  f"{{api_version = 2 : i32}} : (tensor<i32>, tensor<i32>, tensor<ui8>, tensor<ui8>, {at}) -> "
                  f"({', '.join(res)})"]
    if real:
        lines.append(f"  check.expect_almost_eq_const %0#{idx['t']}, dense<{lit(tt_)}> : {at} {{tolerance = {tolv} : f64}}")
        if vectors:
            lines.append(f"  check.expect_almost_eq_const %0#{idx['vs']}, dense<{lit(vs)}> : {at} "
                         f"{{tolerance = {tolv} : f64}}")
    else:
        # A complex Schur vector's phase follows the phase of a rounding-level
        # subdiagonal entry (lahqr makes each converged one real), so it is
        # LAPACK's rounding, not its algorithm: compare |T|, and a = vs T vs^H.
        rt = ttype(a.shape, "f32" if single else "f64")
        lines += [f"  %tabs = stablehlo.abs %0#{idx['t']} : ({at}) -> {rt}",
                  f"  check.expect_almost_eq_const %tabs, dense<{lit(np.abs(tt_))}> : {rt} {{tolerance = {tolv} : f64}}"]
        if vectors:
            nb = len(batch)
            bd = list(range(nb))
            dims = f"batching_dims = {bd} x {bd}, " if nb else ""
            perm = bd + [nb + 1, nb]
            lines += [f"  %vt = stablehlo.dot_general %0#{idx['vs']}, %0#{idx['t']}, {dims}contracting_dims = [{nb + 1}] x [{nb}] : "
                      f"({at}, {at}) -> {at}",
                      f"  %re = stablehlo.real %0#{idx['vs']} : ({at}) -> {rt}",
                      f"  %im = stablehlo.imag %0#{idx['vs']} : ({at}) -> {rt}",
                      f"  %nim = stablehlo.negate %im : {rt}",
                      f"  %conj = stablehlo.complex %re, %nim : {at}",
                      f"  %vsh = stablehlo.transpose %conj, dims = {perm} : ({at}) -> {at}",
                      f"  %rec = stablehlo.dot_general %vt, %vsh, {dims}contracting_dims = [{nb + 1}] x [{nb}] : "
                      f"({at}, {at}) -> {at}",
                      f"  check.expect_almost_eq %rec, %a : {at}"]
    for k, i in enumerate(idx["values"]):
        lines.append(f"  check.expect_almost_eq_const %0#{i}, dense<{lit(vals[k])}> : {vt} {{tolerance = {tol} : f64}}")
    lines += [f"  check.expect_eq_const %0#{idx['sdim']}, dense<0> : {it}",
              f"  check.expect_eq_const %0#{idx['info']}, dense<0> : {it}", "  func.return", "}"]
    return "\n".join(lines)


def main_gees():
    rng = np.random.default_rng(2031)

    def arr(shape, t):
        return random_array(rng, shape, t)
    iota = np.arange(16.0).reshape(4, 4)
    isolated = np.tril(arr((5, 5), np.float64))
    isolated[0, 3] = 1.5
    fns = [gees_function("gees_f64_iota", "f64, jax's own test matrix (rank two: two zero eigenvalues)", iota),
           gees_function("gees_f32_pairs", "f32 6 x 6: complex pairs as standardized 2 x 2 blocks",
                         arr((6, 6), np.float32)),
           gees_function("gees_c128", "complex<f64> 5 x 5: triangular T", arr((5, 5), np.complex128)),
           gees_function("gees_c64_batched", "complex<f32>, a batch", arr((2, 3, 3), np.complex64)),
           gees_function("gees_f64_no_vectors", "f64, T only (mode 'N': vs comes back zero)",
                         arr((4, 4), np.float64), vectors=False),
           gees_function("gees_f64_isolated", "f64 with isolated eigenvalues: gebal's permutations, undone on vs",
                         isolated),
           gees_function("gees_f64_badly_scaled", "f64 badly scaled: gees permutes but does not scale",
                         np.diag(2.0 ** np.arange(-6, 6, 3)) @ arr((4, 4), np.float64) @ np.diag(2.0 ** -np.arange(-6, 6, 3))),
           gees_function("gees_legacy_dgees", "jaxlib's form before the FFI (dims and flags first)",
                         arr((4, 4), np.float64), form="legacy"),
           gees_function("gees_legacy_zgees", "the complex form before the FFI, rwork second",
                         arr((3, 3), np.complex128), form="legacy"),
           gees_function("gees_interim_sgees", "jaxlib's first FFI call under the old name: values before vs",
                         arr((3, 3), np.float32), form="interim"),
           gees_function("gees_interim_cgees", "the same for complex: rwork last",
                         arr((3, 3), np.complex64), form="interim")]
    print("// jax.scipy.linalg.schur as JAX lowers it on the CPU (tests/jax_exports.cmake), against")
    print("// LAPACK's own ?gees (gen_lapack_values.py --gees).")
    print("\n\n// -----\n\n".join(fns))


def main():
    rng = np.random.default_rng(2026)
    fns = []
    a = np.array([[1.0, 2.0, -1.0, 0.5], [-3.0, 0.5, 2.0, 1.0], [0.0, 1.5, -2.0, 3.0], [2.0, 0.0, 1.0, 1.0]])
    fns.append(function("geev_f64_matches_lapack", "f64: a complex pair and two real eigenvalues", a))
    a = rng.standard_normal((3, 3)).astype(np.float32)
    fns.append(function("geev_f32_right_only_with_workspaces",
                        "f32, right vectors only (vl comes back zero), the workspace results of 2024", a,
                        left=False, workspaces=True))
    a = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)))
    fns.append(function("geev_c128_matches_lapack", "complex<f64>: the largest entry of each vector real", a))
    a = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(np.complex64)
    fns.append(function("geev_c64_with_workspaces", "complex<f32> with the workspace results", a, workspaces=True))
    a = np.triu(rng.standard_normal((5, 5)))
    a[3, 1] = 2.0
    a[4, 2] = 0.5
    fns.append(function("geev_f64_isolated_eigenvalues",
                        "balancing permutes rows that isolate eigenvalues (gebal, gebak)", a))
    a = np.tril(rng.standard_normal((5, 5)))
    a[0, 3] = 1.5
    fns.append(function("geev_f64_lower_triangular",
                        "balancing isolates eigenvalues at both ends, in several exchanges each", a))
    a = np.array([[0.165, 0.0, 0.0, -0.765, -0.680], [0.0, 0.404, 0.0, 0.0, -0.855],
                  [-0.576, 0.0, 0.029, -0.354, -0.769], [0.0, 0.0, 0.0, -0.728, 0.0],
                  [-1.464, 0.0, 0.0, 0.168, -0.528]])
    fns.append(function("geev_f64_sparse_exchanges",
                        "balancing's exchanges interact: gebak must undo them in reverse", a))
    a = np.roll(np.eye(4), 1, axis=0)
    fns.append(function("geev_f64_cyclic_shift",
                        "a cyclic permutation: the double-shift QR stalls without exceptional shifts", a))
    a = np.diag(2.0 ** np.arange(-6, 6, 3)) @ rng.standard_normal((4, 4)) @ np.diag(2.0 ** -np.arange(-6, 6, 3))
    fns.append(function("geev_f64_badly_scaled", "balancing scales rows and columns by powers of two", a))
    a = rng.standard_normal((2, 3, 3))
    fns.append(function("geev_f64_batched_values_only", "a batch, eigenvalues only", a, left=False, right=False))
    a = rng.standard_normal((4, 4))
    fns.append(function("geev_legacy_dgeev", "jaxlib's form before the FFI, workspaces first", a, legacy=True))
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    fns.append(function("geev_legacy_zgeev", "jaxlib's complex form before the FFI", a, legacy=True))
    print("// jnp.linalg.eig as JAX lowers it on the CPU (tests/jax_exports.cmake): written by")
    print("// gen_lapack_values.py from LAPACK's own ?geev (its eigenvalue order, its")
    print("// eigenvectors' signs and phases).")
    print("\n\n// -----\n\n".join(fns))


if __name__ == "__main__":
    if "--eigh" in sys.argv[1:]:
        main_eigh()
    elif "--gtsv" in sys.argv[1:]:
        main_gtsv()
    elif "--geqp3" in sys.argv[1:]:
        main_geqp3()
    elif "--gees" in sys.argv[1:]:
        main_gees()
    elif "--svd-explore" in sys.argv[1:]:
        main_svd(shapes_only=True)
    elif "--svd" in sys.argv[1:]:
        main_svd()
    else:
        main()
