"""The roofline time of an aten call on a device (docs/CostModel.md, "Time on
a device"): max(FLOPs / peak FLOP/s, bytes moved / HBM bytes/s), in
picoseconds, the rules of remat-opt's `remat-annotate-costs{device=...}`
(include/remat/Analysis/Roofline.h) applied to aten ops.

The devices are those of include/remat/Analysis/Devices.h, read from that
file (copied next to this script in a build tree), so that the importer and
remat-opt price ops with the same numbers.
"""

import collections
import operator
import os
import re

import torch

Device = collections.namedtuple(
    "Device", "name description fp64 fp64_tensor fp32 tensor16 bandwidth")

# One REMAT_DEVICE(Id, "name", "description", FP64, FP64 tensor, FP32,
# BF16/FP16 tensor, bytes/s) per line of Devices.h.
_ROW = re.compile(r'REMAT_DEVICE\(\s*\w+\s*,\s*"([^"]+)"\s*,\s*"([^"]*)"\s*,'
                  r'([^,]+),([^,]+),([^,]+),([^,]+),([^)]+)\)')

# Work on tensor cores: contractions and convolutions.
TENSOR_CORE_OPS = {
    "aten.mm", "aten.bmm", "aten.addmm", "aten.baddbmm", "aten.convolution",
    "aten.convolution_backward",
}

# Allocations without contents: no kernel, as tensor.empty in remat-opt.
EMPTY_OPS = {"aten.empty", "aten.new_empty", "aten.empty_like"}


def devices_header():
    """The path of Devices.h: next to this file in a build tree (CMake
    copies it to bin/), else in the source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "Devices.h"),
                 os.path.join(here, "..", "..", "include", "remat",
                              "Analysis", "Devices.h")):
        if os.path.exists(path):
            return path
    raise FileNotFoundError("Devices.h (the device table) is neither next to "
                            "%s nor in the source tree" % here)


def load_devices(path=None):
    """{name: Device} of every REMAT_DEVICE row of Devices.h."""
    with open(path or devices_header()) as f:
        text = f.read()
    table = {}
    for m in _ROW.finditer(text):
        numbers = [float(x) for x in m.groups()[2:]]
        table[m.group(1)] = Device(m.group(1), m.group(2), *numbers)
    if not table:
        raise ValueError("no REMAT_DEVICE rows in %s" % (path or
                                                         devices_header()))
    return table


def _tensors(value):
    """The tensors in an argument or result (nested lists and tuples)."""
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)


def _arg_values(node):
    """The fake values of the node's tensor arguments, in order."""
    for arg in list(node.args) + list(node.kwargs.values()):
        for a in (arg if isinstance(arg, (list, tuple)) else [arg]):
            if isinstance(a, torch.fx.Node):
                yield from _tensors(a.meta.get("val"))


def touched_bytes(t):
    """Bytes of the distinct elements of `t`: a broadcast (stride 0, what
    `expand` makes) reads its elements once."""
    n = 1
    for size, stride in zip(t.shape, t.stride()):
        if stride != 0:
            n *= int(size)
    return n * t.element_size()


def bytes_moved(node):
    """Bytes the aten call reads (tensor arguments) and writes (results)."""
    read = sum(touched_bytes(t) for t in _arg_values(node))
    written = sum(touched_bytes(t) for t in _tensors(node.meta.get("val")))
    return read + written


def peak_flops(name, node, device):
    """FLOP/s of the call: the dense BF16/FP16 tensor-core peak for a
    contraction on 16-bit floats, FP64 tensor core for one on float64,
    FP64 for other work on float64, FP32 otherwise (the dtype of the first
    tensor argument, else of the result)."""
    dtypes = [t.dtype for t in _arg_values(node)]
    dtypes += [t.dtype for t in _tensors(node.meta.get("val"))]
    dtype = dtypes[0] if dtypes else torch.float32
    if name in TENSOR_CORE_OPS:
        if dtype in (torch.bfloat16, torch.float16):
            return device.tensor16
        if dtype == torch.float64:
            return device.fp64_tensor
    return device.fp64 if dtype == torch.float64 else device.fp32


def roofline_ps(name, node, flops, device, runs_kernel=True):
    """max(flops / peak, bytes moved / bandwidth) in picoseconds; 0 for a
    call that runs no kernel (a view, a getitem, an empty allocation)."""
    if not runs_kernel or name in EMPTY_OPS or \
            node.target is operator.getitem:
        return 0.0
    return time_ps(flops, peak_flops(name, node, device), bytes_moved(node),
                   device)


def time_ps(flops, flops_per_s, nbytes, device):
    """max(flops / flops_per_s, nbytes / HBM bandwidth) in picoseconds."""
    return max(flops / flops_per_s, nbytes / device.bandwidth) * 1e12


def update_ps(flops, elements, dtype, tensors, device):
    """The roofline time of an optimizer's element-wise update over
    `elements` elements of `dtype`, reading and writing `tensors` tensors
    of that size (parameter and state in and out, the gradient in)."""
    nbytes = elements * tensors * torch.empty((), dtype=dtype).element_size()
    flops_per_s = device.fp64 if dtype == torch.float64 else device.fp32
    return time_ps(flops, flops_per_s, nbytes, device)
