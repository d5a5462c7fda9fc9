"""PyTorch's bf16 matmul and channels-last Conv2d (oneDNN's AVX-512 BF16
kernels: ../shared/peers/lowprec/README.md), for benchmarks/compare_bf16.sh,
on the shapes that script gives Kiln: matmul 1024^3 (bf16 operands, the
result bf16 as torch returns it) and 1x56x56x64 -> 64 3x3 padding 1.
Prints one line per row and thread count:
  torch bf16 matmul 1024^3 threads=T median_ms=X gflops=Y
Run with Debian's interpreter (/usr/bin/python3); OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset (the wrapper does that).
"""
import sys

import openblas_core  # noqa: F401  (before torch: OpenBLAS's kernels for this CPU)

import torch

import peer_threads  # torch's and its OpenBLAS's pools

from int8_peer import median_ms  # the same warm-up and timing

N = 1024


def main():
    threads = [int(a) for a in sys.argv[1:]] or [1, 2]
    torch.manual_seed(0)
    a = torch.rand(N, N).to(torch.bfloat16)
    b = torch.rand(N, N).to(torch.bfloat16)
    conv = torch.nn.Conv2d(64, 64, 3, padding=1, bias=False).to(torch.bfloat16)
    conv = conv.to(memory_format=torch.channels_last)
    x = torch.rand(1, 64, 56, 56).to(torch.bfloat16).contiguous(memory_format=torch.channels_last)
    conv_flops = 2 * 56 * 56 * 64 * 64 * 9
    with torch.no_grad():
        for t in threads:
            peer_threads.set_threads(t)
            ms = median_ms(lambda: torch.matmul(a, b))
            print(f"torch bf16 matmul 1024^3 threads={t} median_ms={ms:.3f} gflops={2 * N ** 3 / ms / 1e6:.1f}")
            ms = median_ms(lambda: conv(x))
            print(f"torch bf16 Conv2d 56x56x64->64 3x3 channels-last threads={t} median_ms={ms:.3f} "
                  f"gflops={conv_flops / ms / 1e6:.1f}")


if __name__ == "__main__":
    main()
