"""Tests of the Python package (python/kiln): ctest's python.pytest runs
them with PYTHONPATH set to the build folder."""
import os
import warnings

import numpy as np
import pytest

import kiln

ADD = """
func.func public @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func public @two(%a: tensor<?xi32>) -> (tensor<?xi32>, tensor<i32>) {
  %0 = stablehlo.negate %a : tensor<?xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %1 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?xi32>, tensor<i32>) -> tensor<i32>
  return %0, %1 : tensor<?xi32>, tensor<i32>
}
func.func private @helper(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}
"""

# One identity per element type numpy has, and two it lacks.
IDENTITY_TYPES = ["i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16", "f32", "f64",
                  "complex<f32>", "complex<f64>", "bf16", "f8E4M3FN"]
NUMPY = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "ui8": np.uint8,
         "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64, "f16": np.float16, "f32": np.float32,
         "f64": np.float64, "complex<f32>": np.complex64, "complex<f64>": np.complex128}


def identities():
    text = ""
    for i, t in enumerate(IDENTITY_TYPES):
        text += "func.func public @id%d(%%a: tensor<3x2x%s>) -> tensor<3x2x%s> {\n  return %%a : tensor<3x2x%s>\n}\n" % (
            i, t, t, t)
    return text


@pytest.fixture(scope="module")
def add_module():
    return kiln.load(kiln.compile(ADD, target="cpu"), threads=1)


def test_compile_returns_module_bytes():
    data = kiln.compile(ADD, target="cpu")
    assert isinstance(data, bytes) and len(data) > 64


def test_add_matches_numpy(add_module):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    out = add_module.add(a, b)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == (2, 3)
    np.testing.assert_array_equal(out, a + b)
    # The same function by name, through __getitem__ and call().
    np.testing.assert_array_equal(add_module["add"](a, b), out)
    np.testing.assert_array_equal(add_module.call("add", a, b), out)


def test_non_contiguous_input_is_read_correctly(add_module):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:2, :3]  # a strided view
    b = np.ones((3, 2), dtype=np.float32).T                    # Fortran order
    np.testing.assert_array_equal(add_module.add(a, b), a + 1)


def test_several_results_and_dynamic_shapes(add_module):
    for n in (0, 1, 7):
        x = np.arange(n, dtype=np.int32)
        neg, total = add_module.two(x)
        np.testing.assert_array_equal(neg, -x)
        assert total.shape == () and int(total) == int(x.sum())


def test_signatures(add_module):
    names = [f.name for f in add_module.functions]
    assert names == ["add", "two"]  # the private helper is not listed
    two = add_module["two"]
    assert two.args[0]["element_type"] == "i32" and two.args[0]["shape"] == (-1,)
    assert [r["shape"] for r in two.results] == [(-1,), ()]
    assert "tensor<2x3xf32>" in repr(add_module["add"])


def test_signatures_carry_source_names(add_module):
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "named_values.mlir")
    module = kiln.load(kiln.compile(path, target="cpu"))
    main = module["main"]
    assert [a["name"] for a in main.args] == ["params['w']", "x", None]
    assert [r["name"] for r in main.results] == ["[0]", "['count']", None]
    assert [a["name"] for a in module["tf_names"].args] == ["inputs.0", "b"]
    assert module["lone"].results[0]["name"] is None  # JAX's "" for a lone result
    assert repr(module["lone"]) == 'Function(lone(tensor<4xf32> "x") -> (tensor<4xf32>))'
    # A program without name attributes has None everywhere.
    assert all(v["name"] is None for f in add_module.functions for v in f.args + f.results)


def test_every_element_type_round_trips():
    module = kiln.load(kiln.compile(identities(), target="cpu"))
    rng = np.random.default_rng(2)
    for i, t in enumerate(IDENTITY_TYPES):
        fn = module["id%d" % i]
        if t in NUMPY:
            dtype = NUMPY[t]
            if dtype == np.bool_:
                x = rng.integers(0, 2, (3, 2)).astype(np.bool_)
            elif np.issubdtype(dtype, np.integer):
                info = np.iinfo(dtype)
                x = rng.integers(info.min, info.max, (3, 2), dtype=dtype, endpoint=True)
            elif np.issubdtype(dtype, np.complexfloating):
                x = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(dtype)
            else:
                x = rng.standard_normal((3, 2)).astype(dtype)
            y = fn(x)
            assert y.dtype == dtype, t
            np.testing.assert_array_equal(y, x)
        else:
            width = np.uint16 if t == "bf16" else np.uint8
            bits = rng.integers(0, 0x70, (3, 2)).astype(width)  # finite values of both types
            y = fn(kiln.RawTensor(bits, t))
            assert isinstance(y, kiln.RawTensor) and y.element_type == t
            np.testing.assert_array_equal(y.bits, bits)


def test_results_own_their_memory(add_module):
    a = np.ones((2, 3), np.float32)
    first = add_module.add(a, a)
    second = add_module.add(a, 2 * a)
    np.testing.assert_array_equal(first, 2 * a)  # not overwritten by the next call
    np.testing.assert_array_equal(second, 3 * a)


def test_compile_error_names_the_line():
    with pytest.raises(kiln.Error) as e:
        kiln.compile("func.func public @f() -> tensor<f32> {\n  %0 = stablehlo.bogus : tensor<f32>\n}\n",
                     file_name="bad.mlir")
    assert "bad.mlir:2:" in str(e.value) and "error" in str(e.value)
    assert isinstance(e.value, RuntimeError)


def test_wrong_input_is_reported(add_module):
    with pytest.raises(kiln.Error, match="2x3xf32|tensor<2x3xf32>"):
        add_module.add(np.ones((3, 3), np.float32), np.ones((2, 3), np.float32))
    with pytest.raises(kiln.Error, match="f64|f32"):
        add_module.add(np.ones((2, 3), np.float64), np.ones((2, 3), np.float64))
    with pytest.raises(kiln.Error):
        add_module.add(np.ones((2, 3), np.float32))  # too few
    with pytest.raises(kiln.Error, match="no Kiln element type"):
        add_module.add(np.array([["a"]]), np.array([["b"]]))
    with pytest.raises(KeyError, match="no public function named 'missing'"):
        add_module["missing"]


def test_bad_module_bytes_are_refused():
    data = kiln.compile(ADD, target="cpu")
    with pytest.raises(kiln.Error):
        kiln.load(data[:100])
    with pytest.raises(kiln.Error):
        kiln.load(b"not a module")


def test_load_from_path_and_compile_from_path(tmp_path):
    src = tmp_path / "add.mlir"
    src.write_text(ADD)
    path = tmp_path / "add.kiln"
    path.write_bytes(kiln.compile(src, target="cpu"))
    module = kiln.load(path)
    a = np.full((2, 3), 1.5, np.float32)
    np.testing.assert_array_equal(module.add(a, a), a * 2)
    with pytest.raises(kiln.Error):
        kiln.load(tmp_path / "missing.kiln")


def test_unknown_device_and_bad_thread_count():
    data = kiln.compile(ADD, target="cpu")
    with pytest.raises(kiln.Error):
        kiln.load(data, device="no-such-device")
    with pytest.raises(kiln.Error, match="threads"):
        kiln.load(data, threads=-1)


def test_vulkan_device_gives_the_same_result():
    module = kiln.load(kiln.compile(ADD, target="all"), device="vulkan")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(module.add(a, a), a + a)


DECODER = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "decoder_step.mlir")


@pytest.mark.parametrize("device", ["cpu", "vulkan"])
def test_decoder_cache_stays_on_the_device(device):
    # tests/data/decoder_step.mlir: step(cache, token, t) -> (cache', logits),
    # the cache donated (tf.aliasing_output = 0). 64 steps with the cache a
    # kiln.Buffer: each moves only the logits down (and on Vulkan the two
    # scalars up); the last logits equal full(tokens).
    module = kiln.load(kiln.compile(DECODER, target="all"), device=device)
    cache = module.upload(np.zeros((256, 16), np.float32))
    assert cache.shape == (256, 16) and cache.element_type == "f32"
    tokens = np.array([(t * 7 + 3) % 32 for t in range(256)], np.int32)
    steps = 64
    for t in range(steps):
        before = module.transfer_stats()
        new_cache, logits = module.step(cache, np.int32(tokens[t]), np.int32(t), keep_on_device=[True, False])
        after = module.transfer_stats()
        assert not cache.valid  # donated
        with pytest.raises(kiln.Error, match="donated to an earlier call"):
            cache.numpy()
        cache = new_cache
        assert after["downloads"] - before["downloads"] == 1
        assert after["download_bytes"] - before["download_bytes"] == 32 * 4
        if t > 0:  # the first step also brings the constants to a Vulkan device
            assert after["upload_bytes"] - before["upload_bytes"] == (8 if device == "vulkan" else 0)
    prefix = tokens.copy()
    prefix[steps:] = -1  # no one-hot row: those rows of the cache are still zero
    full = module.full(prefix)
    np.testing.assert_allclose(logits, full, rtol=1e-5, atol=1e-6)
    rows = cache.numpy()
    assert rows.shape == (256, 16)
    assert not rows[steps:].any() and rows[:steps].any()


def test_buffers_round_trip_and_results_kept_on_the_device(add_module):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    buf = add_module.upload(a)
    np.testing.assert_array_equal(buf.numpy(), a)
    # A result kept on the device, passed back without a transfer.
    s = add_module.add(buf, a, keep_on_device=True)
    assert isinstance(s, kiln.Buffer) and s.valid and buf.valid  # @add donates nothing
    before = add_module.transfer_stats()
    s2 = add_module.add(s, s, keep_on_device=True)
    after = add_module.transfer_stats()
    assert after["downloads"] == before["downloads"] and after["uploads"] == before["uploads"]
    np.testing.assert_array_equal(s2.numpy(), 4 * a)
    assert "Buffer((2, 3)" in repr(s2)
    # A raw type round trips as a RawTensor.
    bits = kiln.RawTensor(np.array([0x3f80, 0x4000], np.uint16), "bf16")
    assert add_module.upload(bits).numpy() == bits


def test_buffer_misuse_is_reported(add_module):
    buf = add_module.upload(np.zeros((3, 3), np.float32))
    with pytest.raises(kiln.Error, match="input 0 of 'add' must be tensor<2x3xf32>"):
        add_module.add(buf, np.zeros((2, 3), np.float32))
    other = kiln.load(kiln.compile(ADD, target="cpu"))
    mine = add_module.upload(np.zeros((2, 3), np.float32))
    with pytest.raises(kiln.Error, match="another module's device"):
        other.add(mine, mine)
