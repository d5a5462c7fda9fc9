"""One thread count for every pool inside a torch process.

torch.set_num_threads sets ATen's OpenMP pool (oneDNN convolutions, most
CPU ops) but not OpenBLAS's own pthread pool, which Debian's torch calls for
f32 matmul, addmm and linear: left alone, a "1 thread" torch measurement
runs its matmuls on every core. set_threads sets both: the OpenBLAS that
this process has loaded (found in /proc/self/maps, since torch links it
through libblas.so.3) gets openblas_set_num_threads as well.
"""
import ctypes

import torch


def _loaded_openblas():
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "libopenblas" in line}
    except OSError:
        return []
    return [ctypes.CDLL(p) for p in sorted(paths)]


def set_threads(threads):
    torch.set_num_threads(threads)
    for lib in _loaded_openblas():
        lib.openblas_set_num_threads(ctypes.c_int(threads))


def blas_threads():
    """The loaded OpenBLAS's thread counts (a check for the caller)."""
    return [lib.openblas_get_num_threads() for lib in _loaded_openblas()]
