"""OpenBLAS's kernels for this CPU, chosen before numpy or torch load it.

Import this module before numpy and torch. Debian's OpenBLAS (0.3.21, built
for every x86-64 kernel set) picks its kernels from the CPU's model number;
a model newer than its table (family 6 model 207 here) falls back to the
generic "Prescott" kernels, several times slower than its AVX-512 ones
(numpy's 1024^3 f32 product at 2 threads: 38 GFLOP/s against 231). torch
calls the same OpenBLAS for its f32 matmul and linear, so a peer run that
merely unsets OPENBLAS_CORETYPE would time that fallback. Where the variable
is unset, this sets it from the CPU's own flags: SkylakeX (Cooperlake with
AVX-512 BF16) where AVX-512 F/BW/DQ/VL/CD are present, Haswell where AVX2
and FMA are; elsewhere OpenBLAS's own detection stands. A value the caller
set is kept (the machines pin Haswell; the peer wrappers unset it).
architecture() says which kernels the loaded OpenBLAS runs, for a header.
"""
import os
import platform


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def best_core(flags):
    """The OpenBLAS kernel set for these /proc/cpuinfo flags (None: let OpenBLAS detect)."""
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"} <= flags:
        return "Cooperlake" if "avx512_bf16" in flags else "SkylakeX"
    if {"avx2", "fma"} <= flags:
        return "Haswell"
    return None


if platform.machine() in ("x86_64", "AMD64") and not os.environ.get("OPENBLAS_CORETYPE"):
    _core = best_core(_cpu_flags())
    if _core is not None:
        os.environ["OPENBLAS_CORETYPE"] = _core


def architecture():
    """The kernel set of the OpenBLAS this process has loaded ("?" if none or unknown)."""
    try:
        import threadpoolctl
        for info in threadpoolctl.threadpool_info():
            if info.get("internal_api") == "openblas":
                return info.get("architecture") or "?"
    except ImportError:
        pass
    return "?"
