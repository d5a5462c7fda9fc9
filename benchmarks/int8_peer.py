"""PyTorch's static int8 Linear and Conv2d (oneDNN engine, the best int8 peer
on this machine: ../shared/peers/lowprec/README.md), for
benchmarks/compare_int8.sh: Linear at M = N = K = 1024, and the convolutions
of kiln-kernel-bench's BM_CpuConvInt8 (1x56x56x64 -> 64 3x3 padding 1, and
depthwise 3x3 over 144 features), channels-last. Prints one line per row and
thread count:
  torch onednn qLinear 1024^3 threads=T median_ms=X gops=Y
Run with Debian's interpreter (/usr/bin/python3); OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset (the wrapper does that).
"""
import statistics
import sys
import time

import openblas_core  # noqa: F401  (before torch: OpenBLAS's kernels for this CPU)

import torch
import torch.ao.nn.quantized as nnq

import peer_threads  # torch's and its OpenBLAS's pools

N = 1024


def median_ms(fn, reps=30):
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def main():
    threads = [int(a) for a in sys.argv[1:]] or [1, 2]
    torch.backends.quantized.engine = "onednn"
    torch.manual_seed(0)
    x = torch.quantize_per_tensor(torch.randn(N, N), 0.05, 64, torch.quint8)
    lin = nnq.Linear(N, N)
    w = torch.quantize_per_tensor(torch.randn(N, N) * 0.1, 0.01, 0, torch.qint8)
    lin.set_weight_bias(w, None)
    lin.scale, lin.zero_point = 0.5, 64
    convs = []
    for name, c, groups in (("qConv2d 56x56x64->64 3x3", 64, 1), ("qConv2d depthwise 56x56x144 3x3", 144, 144)):
        conv = nnq.Conv2d(c, c, 3, padding=1, groups=groups)
        wq = torch.quantize_per_tensor(torch.randn(c, c // groups, 3, 3) * 0.1, 0.01, 0, torch.qint8)
        conv.set_weight_bias(wq, None)
        conv.scale, conv.zero_point = 0.5, 64
        xc = torch.quantize_per_tensor(torch.randn(1, c, 56, 56), 0.05, 64, torch.quint8)
        xc = xc.contiguous(memory_format=torch.channels_last)
        ops = 2 * 56 * 56 * c * 9 * (c // groups)
        convs.append((name, conv, xc, ops))
    for t in threads:
        peer_threads.set_threads(t)
        ms = median_ms(lambda: lin(x))
        print(f"torch onednn qLinear 1024^3 threads={t} median_ms={ms:.3f} gops={2 * N ** 3 / ms / 1e6:.1f}")
        for name, conv, xc, ops in convs:
            ms = median_ms(lambda: conv(xc))
            print(f"torch onednn {name} threads={t} median_ms={ms:.3f} gops={ops / ms / 1e6:.1f}")


if __name__ == "__main__":
    main()
