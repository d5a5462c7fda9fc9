// Real special functions of the chlo ops (digamma, Hurwitz zeta, polygamma,
// erfc, erf_inv, bessel_i1e) in double precision, for the reference evaluator
// (eval.cc). Internal to kernels/scalar: callers outside use EvalScalarInstr.
#pragma once

namespace kiln::ref {

double Digamma(double x);
// zeta(s, q) = sum over k >= 0 of (q + k)^-s.
double HurwitzZeta(double s, double q);
double Polygamma(double n, double x);
// erf^-1 by Newton steps on C's erf and erfc; for f64, on Kiln's erfc.
double ErfInv(double x);
double ErfInvF64(double x);
// Kiln's erfc, within an ulp of the true value (C's can be 2 ulp off), by
// the algorithm of the Vulkan device's f64 one (error_function.cc). C's
// erf is within an ulp, and 50 times quicker than the double-double series.
double Erfc(double x);
// exp(-|x|) * I1(x).
double BesselI1e(double x);

}  // namespace kiln::ref
