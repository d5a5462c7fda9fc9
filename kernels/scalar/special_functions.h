// Real special functions of the chlo ops (digamma, Hurwitz zeta, polygamma,
// erf_inv, bessel_i1e) in double precision, for the reference evaluator
// (eval.cc). Internal to kernels/scalar: callers outside use EvalScalarInstr.
#pragma once

namespace kiln::ref {

double Digamma(double x);
// zeta(s, q) = sum over k >= 0 of (q + k)^-s.
double HurwitzZeta(double s, double q);
double Polygamma(double n, double x);
double ErfInv(double x);
// exp(-|x|) * I1(x).
double BesselI1e(double x);

}  // namespace kiln::ref
