"""Kiln from Python: compile StableHLO, load a module, call it with numpy.

    import kiln, numpy as np
    module = kiln.load(kiln.compile(open("model.mlir").read(), target="cpu"))
    y = module.main(np.ones((1, 784), np.float32))

docs/python.md describes the API.
"""
import os
import warnings as _warnings

import numpy as _np

from . import _kiln
from ._kiln import Buffer, Error

__all__ = ["Buffer", "Error", "RawTensor", "Module", "Function", "compile", "load"]


class RawTensor:
    """A tensor of an element type numpy lacks (bf16, f8*, i4, ...): its
    storage bits as an unsigned integer array, and the type's MLIR name."""

    def __init__(self, bits, element_type):
        self.bits = _np.ascontiguousarray(bits)
        self.element_type = str(element_type)

    @property
    def shape(self):
        return self.bits.shape

    def __repr__(self):
        return "RawTensor(%s, element_type=%r)" % (_np.array2string(self.bits), self.element_type)

    def __eq__(self, other):
        return (isinstance(other, RawTensor) and self.element_type == other.element_type
                and _np.array_equal(self.bits, other.bits))


def _is_path(source):
    if isinstance(source, os.PathLike):
        return True
    return isinstance(source, str) and "\n" not in source and "{" not in source and os.path.isfile(source)


def compile(source, target="all", *, fuse=True, plan_memory=True, file_name=None):
    """Compiles StableHLO (MLIR text, or a path to a .mlir file) into a
    module's bytes. target: "cpu", "vulkan" or "all". Errors raise
    kiln.Error with the compiler's `file:line:col: error: ...` message;
    warnings become Python warnings."""
    if _is_path(source):
        path = os.fspath(source)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        file_name = file_name or path
    elif isinstance(source, (bytes, bytearray)):
        text = bytes(source).decode("utf-8")
    else:
        text = source
    data, warns = _kiln.compile_source(text, file_name or "<string>", target, fuse, plan_memory)
    for w in warns:
        _warnings.warn(w, stacklevel=2)
    return data


class Function:
    """A public function of a module: its name and the signature of its
    arguments and results (dicts with kind, element_type, shape (-1:
    dynamic), text, and name: the source's jax.arg_info / jax.result_info
    or TF name, None when it gave none)."""

    def __init__(self, module, info):
        self._module = module
        self.name = info["name"]
        self.args = info["args"]
        self.results = info["results"]

    def __call__(self, *args, keep_on_device=False):
        return self._module.call(self.name, *args, keep_on_device=keep_on_device)

    def __repr__(self):
        # A value's name after its type, as vm-dump prints it: tensor<3xf32> "x".
        one = lambda x: x["text"] + (' "%s"' % x["name"] if x["name"] is not None else "")
        sig = lambda xs: ", ".join(one(x) for x in xs)
        return "Function(%s(%s) -> (%s))" % (self.name, sig(self.args), sig(self.results))


def _result(value):
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
        return RawTensor(value[0], value[1])
    if isinstance(value, tuple):
        return tuple(_result(v) for v in value)
    return value


def _buffer_numpy(self):
    """The buffer's contents, downloaded: an array (kiln.RawTensor for a
    type numpy lacks)."""
    return _result(self._numpy())


def _buffer_repr(self):
    if not self.valid:
        return "Buffer(donated)"
    return "Buffer(%s, element_type=%r)" % (self.shape, self.element_type)


Buffer.numpy = _buffer_numpy
Buffer.__repr__ = _buffer_repr


class Module:
    """A loaded module on one device. Calls on one Module run one at a time."""

    def __init__(self, session):
        self._session = session
        self.functions = [Function(self, f) for f in session.functions]
        self._by_name = {f.name: f for f in self.functions}

    def __getitem__(self, name):
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError("no public function named %r (the module's: %s)"
                           % (name, ", ".join(self._by_name) or "none")) from None

    def __getattr__(self, name):
        if name.startswith("_") or name not in self.__dict__.get("_by_name", {}):
            raise AttributeError(name)
        return self._by_name[name]

    def call(self, function, *args, keep_on_device=False):
        """Calls `function` with numpy arrays (or kiln.RawTensor, or
        anything numpy.asarray takes) and kiln.Buffer objects (already on
        the device). Returns one value for one result, else a tuple.
        Inputs are read in place, results are not copied.

        keep_on_device: False (every result becomes an array), True (every
        result stays on the device as a kiln.Buffer), or one bool per
        result. A Buffer passed for an argument the program donates
        (tf.aliasing_output, jax.buffer_donor) is consumed by the call."""
        packed = []
        for a in args:
            if isinstance(a, Buffer):
                packed.append(a)
            elif isinstance(a, RawTensor):
                packed.append((a.bits, a.element_type))
            else:
                packed.append((_np.asarray(a, order="C"), ""))  # ascontiguousarray would make a 0-d array 1-d
        if keep_on_device is False and not any(isinstance(a, Buffer) for a in args):
            raw = self._session.call(function, packed)
        else:
            if keep_on_device is True or keep_on_device is False:
                keep = [bool(keep_on_device)] * len(self[function].results)
            else:
                keep = [bool(k) for k in keep_on_device]
            raw = self._session.call_values(function, packed, keep)
        out = tuple(r if isinstance(r, Buffer) else _result(r) for r in raw)
        return out[0] if len(out) == 1 else out

    def upload(self, array):
        """A copy of `array` (numpy, or kiln.RawTensor) in this module's
        device memory, to pass to calls without a transfer:
        kiln.Buffer, with .numpy(), .shape, .element_type and .valid."""
        if isinstance(array, RawTensor):
            return self._session.upload(array.bits, array.element_type)
        return self._session.upload(_np.asarray(array, order="C"), "")

    def transfer_stats(self):
        """The device's transfers between host and device memory so far:
        uploads, upload_bytes, downloads, download_bytes."""
        return self._session.transfer_stats()


def load(module, device="cpu", threads=0, parameters=()):
    """Loads a module (its bytes, or a path to a .kiln file, mapped) on a
    device ("cpu", "vulkan", "vulkan:N") with `threads` CPU kernel threads
    (0: KILN_THREADS, else one per core). parameters: "[scope=]file.safetensors"
    strings binding external weights."""
    params = [os.fspath(p) for p in parameters]
    if isinstance(module, (bytes, bytearray, memoryview)):
        session = _kiln.load_bytes(bytes(module), device, threads, params)
    else:
        session = _kiln.load_file(os.fspath(module), device, threads, params)
    return Module(session)
