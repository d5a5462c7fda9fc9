"""The toy decoder (tests/data/decoder_step.mlir) with its cache kept on the
device (a kiln.Buffer, donated each step) beside the same steps with the
cache downloaded into numpy and passed back each step, in one run, rounds
interleaved. Prints per device the median time of a 256-step decode and the
bytes each step moves (the device's transfer counters).

    PYTHONPATH=build /usr/bin/python3 benchmarks/decoder_buffers.py [--devices cpu,vulkan] [--rounds 7]
"""
import argparse
import os
import statistics
import time

import numpy as np

import kiln

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 256


def decode_on_device(module, tokens):
    cache = module.upload(np.zeros((STEPS, 16), np.float32))
    for t in range(STEPS):
        cache, logits = module.step(cache, tokens[t], np.int32(t), keep_on_device=[True, False])
    return logits


def decode_on_host(module, tokens):
    cache = np.zeros((STEPS, 16), np.float32)
    for t in range(STEPS):
        cache, logits = module.step(cache, tokens[t], np.int32(t))
    return logits


def per_step(module, fn, tokens):
    before = module.transfer_stats()
    fn(module, tokens)
    after = module.transfer_stats()
    return {k: (after[k] - before[k]) / STEPS for k in after}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", default="cpu,vulkan")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    data = kiln.compile(os.path.join(HERE, "..", "tests", "data", "decoder_step.mlir"), target="all")
    tokens = [np.int32((t * 7 + 3) % 32) for t in range(STEPS)]
    for device in args.devices.split(","):
        module = kiln.load(data, device=device, threads=args.threads if device == "cpu" else 0)
        ways = {"cache on device": decode_on_device, "cache via numpy": decode_on_host}
        a, b = (fn(module, tokens) for fn in ways.values())  # warm-up; same answer both ways
        np.testing.assert_allclose(a, b, rtol=1e-6)
        times = {name: [] for name in ways}
        for _ in range(args.rounds):
            for name, fn in ways.items():
                start = time.perf_counter()
                fn(module, tokens)
                times[name].append(time.perf_counter() - start)
        base = statistics.median(times["cache via numpy"])
        for name, fn in ways.items():
            med = statistics.median(times[name])
            moved = per_step(module, fn, tokens)
            print("%-8s %-16s median %7.2f ms / %d steps (%.3fx the numpy round trip); per step: %g uploads %g B, "
                  "%g downloads %g B" % (device, name, med * 1e3, STEPS, med / base, moved["uploads"],
                                         moved["upload_bytes"], moved["downloads"], moved["download_bytes"]))


if __name__ == "__main__":
    main()
