// Real special functions of the chlo ops (digamma, Hurwitz zeta, polygamma,
// erf, erfc, erf_inv, bessel_i1e) in double precision, for the reference evaluator
// (eval.cc). Internal to kernels/scalar: callers outside use EvalScalarInstr.
#pragma once

namespace kiln::ref {

double Digamma(double x);
// zeta(s, q) = sum over k >= 0 of (q + k)^-s.
double HurwitzZeta(double s, double q);
double Polygamma(double n, double x);
// erf^-1 by Newton steps on C's erf and erfc, and on Kiln's (for f64).
double ErfInv(double x);
double ErfInvF64(double x);
// Kiln's erf and erfc, within about half an ulp of the true values, by
// the algorithm of the Vulkan device's f64 ones (error_function.cc).
double Erf(double x);
double Erfc(double x);
// exp(-|x|) * I1(x).
double BesselI1e(double x);

}  // namespace kiln::ref
