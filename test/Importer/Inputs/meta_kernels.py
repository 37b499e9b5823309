"""Prints the shapes aten.convolution_backward gives on meta tensors once
the tracer registered its meta kernel (none without: torch 1.13 has none)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools",
                                "remat-import-torch"))

import torch  # noqa: E402
import torch_trace  # noqa: E402

torch_trace.register_meta_kernels()
torch_trace.register_meta_kernels()  # twice is harmless


def meta(*shape):
    return torch.empty(shape, device="meta")


for mask in ([True, True, True], [False, True, False]):
    grads = torch.ops.aten.convolution_backward(
        meta(4, 8, 16, 16), meta(4, 3, 32, 32), meta(8, 3, 3, 3), [8],
        [2, 2], [1, 1], [1, 1], False, [0, 0], 1, mask)
    print([None if g is None else list(g.shape) for g in grads])
