#!/usr/bin/env python3
# ===- gen_training_step.py - Generate training-step IR for remat-opt -----===#
#
# Emits one-`func.func` SGD training steps on tensors (linalg + arith + math +
# tensor), in the style of the hand-written examples in examples/:
#
#   func.func @<name>_step(<params...>, <inputs...>) -> (loss, <params'...>)
#
# Forward, a reverse-mode backward derived from a small tape of layer
# primitives, and the SGD update p' = p - lr * dp all live in that function.
# Models:
#   resnet       N residual MLP blocks h + W2 relu(W1 h + b1) + b2, linear head,
#                softmax cross-entropy; with --conv, 3x3 convolutional blocks
#                on NHWC images and global average pooling before the head;
#   unet         MLP encoder whose widths shrink, decoder whose widths grow back,
#                long skip connections (encoder activation added to the decoder
#                output of the same width), MSE loss;
#   transformer  N blocks of single-head self-attention (Q/K/V projections,
#                scaled softmax, output projection, residual) + ReLU MLP with
#                residual, optionally pre-layernorm, linear head, softmax
#                cross-entropy.
#
# `shard FILE --ranks N` emits FILE's step annotated for data parallelism (a
# 1-D `shard.grid` of N ranks, inputs split along the batch, parameters
# replicated; see docs/Distributed.md).
#
# Besides the step, it can emit drivers (`--main run|gradcheck`), also for a
# hand-written step (`driver FILE`):
#   run        builds deterministic inputs, calls the step, prints the loss, the
#              loss after one update and a checksum of the updated parameters;
#   gradcheck  (use with --dtype f64) compares, per parameter tensor P, the
#              directional derivative  <dP, D>  (dP recovered from the update as
#              (P - P') / lr) against the central finite difference
#              (loss(P + eps D) - loss(P - eps D)) / (2 eps) and prints PASS/FAIL.
#
# Python 3 standard library only; output is deterministic.
#
# ===----------------------------------------------------------------------===#

import argparse
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tools", "remat-import-torch"))
from mlir_emitter import (EXAMPLE_STYLE, Emitter, Function, Value, affine_map,  # noqa: E402
                          decimal_float, identity_map, parse_tensor_type,
                          read_signatures, rename_values, tensor_type, tokens)

LR = 0.1

# ===----------------------------------------------------------------------===#
# Layers, built through the shared emitter (tools/remat-import-torch/
# mlir_emitter.py: types, maps, ops, SSA names).
# ===----------------------------------------------------------------------===#


def row_map(rank=2):
    """(d0, d1) -> (d0): a per-row value broadcast along the columns."""
    return affine_map(rank, ["d0"])


def mac(dt):
    """The payload acc + a0 * a1 (acc: the output, last argument)."""
    return lambda b, a: b.op("arith.addf", [a[-1], b.op("arith.mulf", a[:2], dt, "p")], dt)


def layernorm_dx(b, a, inv_d, dt):
    """The payload (dxhat - s1/d - xhat * s2/d) * rstd of layer norm's input
    gradient; a: dxhat, xhat, s1 = rowsum(dxhat), s2 = rowsum(dxhat * xhat),
    rstd."""
    m1 = b.op("arith.mulf", [a[2], inv_d], dt, "m1")
    t = b.op("arith.mulf", [a[1], b.op("arith.mulf", [a[3], inv_d], dt, "m2")], dt, "t")
    u = b.op("arith.subf", [a[0], m1], dt, "u")
    return b.op("arith.mulf", [b.op("arith.subf", [u, t], dt, "w"), a[4]], dt)


class Builder:
    """The layers of a generated step and their gradients, emitted into
    the body of one function (`fn`, an mlir_emitter.Function). Scalars are
    constants hoisted to the top of the body (`%cst<n>`, one per value)."""

    def __init__(self, name, dtype):
        self.dtype = dtype
        self.fn = Function(name, EXAMPLE_STYLE)
        self.e = self.fn.body
        self.consts = {}

    def ty(self, shape):
        return tensor_type(shape, self.dtype)

    def argument(self, name, shape):
        return self.fn.argument(name, shape, self.dtype)

    def comment(self, text):
        self.e.comment(text)

    def const(self, value):
        key = decimal_float(value)
        if key not in self.consts:
            self.consts[key] = self.e.fresh("cst")
        return self.consts[key]

    def text(self, results):
        """The function returning `results`, constants first."""
        body, self.e.lines = self.e.lines, []
        for literal, name in self.consts.items():
            self.e.constant(literal, self.dtype, name)
        self.e.lines += body
        self.fn.results = results
        return self.fn.text()

    def empty(self, shape):
        return self.e.empty(shape, self.dtype, "init")

    def filled(self, shape, value):
        init = self.empty(shape)
        return self.e.fill(self.const(value), init, self.e.fresh("fill"))

    def generic(self, prefix, ins, in_maps, out_shape, body, iters=None, init=None):
        """linalg.generic into a new tensor of out_shape, or into init =
        (value, map); `body(block, args)` returns the yielded name, args
        being a0.. (inputs) and acc (the output)."""
        rank = len(out_shape) if iters is None else len(iters)
        out, out_map = init if init is not None else (self.empty(out_shape), identity_map(rank))
        return self.e.generic(ins, in_maps, [out], [out_map], iters or ["parallel"] * rank,
                              body, prefix, ["a%d" % i for i in range(len(ins))] + ["acc"])[0]

    def ewise(self, prefix, ins, fn):
        """Element-wise op over same-shaped inputs; fn(block, args) -> name."""
        m = identity_map(ins[0].rank)
        return self.generic(prefix, ins, [m] * len(ins), ins[0].shape, fn)

    def binary(self, prefix, opname, a, b, result="s"):
        return self.ewise(prefix, [a, b], lambda blk, x: blk.op(opname, x[:2], self.dtype, result))

    def scaled_by(self, prefix, a, c, opname="arith.mulf", result="s"):
        """a (op) the constant c, element-wise."""
        return self.ewise(prefix, [a], lambda blk, x: blk.op(opname, [x[0], c], self.dtype, result))

    # -- Named ops --------------------------------------------------------===#

    def matmul(self, a, b):
        (m, k), (k2, n) = a.shape, b.shape
        assert k == k2, (a, b)
        return self.e.named_op("linalg.matmul", [a, b], self.filled([m, n], 0.0), hint="mm")

    def transpose(self, a):
        m, n = a.shape
        return self.e.transpose(a, [1, 0], self.empty([n, m]), "tr")

    def reduce(self, prefix, a, dims, combiner, init_value):
        """linalg.reduce of `a` over `dims` (an int or a list of ints)."""
        dims = [dims] if isinstance(dims, int) else list(dims)
        z = self.filled([d for i, d in enumerate(a.shape) if i not in dims], init_value)
        return self.e.reduce(a, dims, z, combiner, prefix)

    # -- Convolution helpers (NHWC images, HWCF filters, stride 1) --------===#

    def pad_hw(self, x, p):
        """Zero-pads the two spatial dims of an NHWC tensor by p on each side."""
        zero = self.const(0.0)
        return self.e.pad(x, [0, p, p, 0], [0, p, p, 0], lambda b: zero, "padded")

    def slice_hw(self, x, p, h, w):
        """The h x w spatial window of an NHWC tensor at offset (p, p)."""
        n, _, _, c = x.shape
        return self.e.extract_slice(x, [0, p, p, 0], [n, h, w, c], [1, 1, 1, 1],
                                    [n, h, w, c], "window")

    def conv(self, x, k):
        n, h, w, c = x.shape
        kh, kw, c2, f = k.shape
        assert c == c2, (x, k)
        z = self.filled([n, h - kh + 1, w - kw + 1, f], 0.0)
        return self.e.named_op("linalg.conv_2d_nhwc_hwcf", [x, k], z,
                               "dilations = dense<1> : tensor<2xi64>, "
                               "strides = dense<1> : tensor<2xi64>", "conv")

    def conv_filter_grad(self, x, dz, kshape):
        """dK[i,j,c,f] = sum_{n,h,w} x[n,h+i,w+j,c] dz[n,h,w,f]."""
        z = self.filled(kshape, 0.0)
        return self.generic(
            "dfilter", [x, dz], [affine_map(7, ["d4", "d5 + d0", "d6 + d1", "d2"]),
                                 affine_map(7, ["d4", "d5", "d6", "d3"])], kshape,
            mac(self.dtype), iters=["parallel"] * 4 + ["reduction"] * 3,
            init=(z, affine_map(7, ["d0", "d1", "d2", "d3"])))

    def conv_input_grad(self, dz, k):
        """Full correlation: dx[n,h,w,c] = sum_{i,j,f} pad(dz)[n,h-i+kh-1,w-j+kw-1,f]
        K[i,j,c,f], dz zero-padded by kernel size - 1."""
        kh, kw, c, f = k.shape
        n, oh, ow, _ = dz.shape
        dzp = self.pad_hw(dz, kh - 1) if kh == kw else None
        assert dzp is not None, "square kernels only"
        out = [n, oh + kh - 1, ow + kw - 1, c]
        z = self.filled(out, 0.0)
        return self.generic(
            "dinput", [dzp, k],
            [affine_map(7, ["d0", "d1 - d4 + %d" % (kh - 1), "d2 - d5 + %d" % (kw - 1), "d6"]),
             affine_map(7, ["d4", "d5", "d3", "d6"])], out,
            mac(self.dtype), iters=["parallel"] * 4 + ["reduction"] * 3,
            init=(z, affine_map(7, ["d0", "d1", "d2", "d3"])))

    def channel_bias_add(self, x, bias):
        return self.generic("biased", [x, bias], [identity_map(4), affine_map(4, ["d3"])],
                            x.shape, lambda b, a: b.op("arith.addf", a[:2], self.dtype, "s"))

    def spatial_mean(self, x):
        """[N,H,W,C] -> [N,C] mean over H and W."""
        n, h, w, c = x.shape
        z = self.filled([n, c], 0.0)
        f = self.const(1.0 / (h * w))
        dt = self.dtype
        return self.generic("pooled", [x], [identity_map(4)], [n, c], lambda b, a: b.op(
            "arith.addf", [a[1], b.op("arith.mulf", [a[0], f], dt, "p")], dt),
            iters=["parallel", "reduction", "reduction", "parallel"],
            init=(z, affine_map(4, ["d0", "d3"])))

    def spatial_mean_grad(self, g, shape):
        f = self.const(1.0 / (shape[1] * shape[2]))
        return self.generic("dpooled", [g], [affine_map(4, ["d0", "d3"])], shape,
                            lambda b, a: b.op("arith.mulf", [a[0], f], self.dtype))

    # -- Element-wise helpers ---------------------------------------------===#

    def add(self, a, b):
        return self.binary("add", "arith.addf", a, b)

    def sub(self, a, b):
        return self.binary("sub", "arith.subf", a, b)

    def mul(self, a, b):
        return self.binary("mul", "arith.mulf", a, b)

    def scale(self, a, s):
        return self.scaled_by("scaled", a, self.const(s))

    def relu(self, a):
        return self.scaled_by("relu", a, self.const(0.0), "arith.maximumf", "r")

    def relu_grad(self, z, g):
        c, dt = self.const(0.0), self.dtype
        return self.ewise("drelu", [z, g], lambda b, x: b.op("arith.select", [
            b.op("arith.cmpf", ["ogt", x[0], c], dt, "p"), x[1], c], dt))

    def bias_add(self, a, b):
        return self.generic("biased", [a, b], [identity_map(2), affine_map(2, ["d1"])],
                            a.shape, lambda blk, x: blk.op("arith.addf", x[:2], self.dtype, "s"))

    def sgd(self, p, g):
        c, dt = self.const(LR), self.dtype
        return self.ewise("new", [p, g], lambda b, x: b.op("arith.subf", [
            x[0], b.op("arith.mulf", [c, x[1]], dt, "s")], dt))

    def row_softmax_parts(self, a):
        """Returns (max, exp(a - max), sum exp) over the last dim of a 2-D a."""
        m = self.reduce("rowmax", a, 1, "arith.maximumf", -3.4028234663852886e+38)
        dt = self.dtype
        e = self.generic("exp", [a, m], [identity_map(2), row_map()], a.shape,
                         lambda b, x: b.op("math.exp", [b.op("arith.subf", x[:2], dt, "d")],
                                           dt, "e"))
        s = self.reduce("rowsum", e, 1, "arith.addf", 0.0)
        return m, e, s


# ===----------------------------------------------------------------------===#
# Tape-based reverse mode over the builder's layer primitives.
# ===----------------------------------------------------------------------===#


class Tape:
    def __init__(self, b):
        self.b = b
        self.records = []   # (inputs, backward(gout) -> [grad or None])
        self.needs = set()  # values that depend on a parameter
        self.loss_grad = None

    def param(self, v):
        self.needs.add(v)
        return v

    def record(self, out, ins, backward):
        if any(i in self.needs for i in ins):
            self.needs.add(out)
            self.records.append((out, ins, backward))
        return out

    # Primitives: forward emits now, backward is a closure emitted later.
    def matmul(self, a, c):
        b = self.b
        out = b.matmul(a, c)

        def bw(g):
            da = b.matmul(g, b.transpose(c)) if a in self.needs else None
            dc = b.matmul(b.transpose(a), g) if c in self.needs else None
            return [da, dc]
        return self.record(out, [a, c], bw)

    def bias_add(self, a, bias):
        b = self.b
        out = b.bias_add(a, bias)

        def bw(g):
            return [g, b.reduce("dbias", g, 0, "arith.addf", 0.0)
                    if bias in self.needs else None]
        return self.record(out, [a, bias], bw)

    def conv_same(self, x, k, bias):
        """3x3-style 'same' convolution: pad by (kh - 1) / 2, conv, channel bias."""
        b = self.b
        kh = k.shape[0]
        n, h, w, c = x.shape
        p = (kh - 1) // 2
        xp = self.record(b.pad_hw(x, p), [x], lambda g: [b.slice_hw(g, p, h, w)])
        conv = b.conv(xp, k)

        def bw(g):
            dxp = b.conv_input_grad(g, k) if xp in self.needs else None
            dk = b.conv_filter_grad(xp, g, k.shape) if k in self.needs else None
            return [dxp, dk]
        conv = self.record(conv, [xp, k], bw)
        out = b.channel_bias_add(conv, bias)
        return self.record(out, [conv, bias], lambda g: [
            g, b.reduce("dbias", g, [0, 1, 2], "arith.addf", 0.0)
            if bias in self.needs else None])

    def spatial_mean(self, x):
        b = self.b
        shape = x.shape
        out = b.spatial_mean(x)
        return self.record(out, [x], lambda g: [b.spatial_mean_grad(g, shape)])

    def linear(self, a, w, bias):
        return self.bias_add(self.matmul(a, w), bias)

    def relu(self, z):
        b = self.b
        out = b.relu(z)
        return self.record(out, [z], lambda g: [b.relu_grad(z, g)])

    def add(self, x, y):
        out = self.b.add(x, y)
        return self.record(out, [x, y], lambda g: [g, g])

    def scale(self, x, s):
        b = self.b
        out = b.scale(x, s)
        return self.record(out, [x], lambda g: [b.scale(g, s)])

    def transpose(self, x):
        b = self.b
        out = b.transpose(x)
        return self.record(out, [x], lambda g: [b.transpose(g)])

    def softmax(self, a):
        """Row softmax p; backward da = p * (g - rowsum(g * p))."""
        b = self.b
        dt = b.dtype
        _, e, s = b.row_softmax_parts(a)
        p = b.generic("softmax", [e, s], [identity_map(2), row_map()], a.shape,
                      lambda blk, x: blk.op("arith.divf", x[:2], dt))

        def bw(g):
            dot = b.reduce("gpsum", b.mul(g, p), 1, "arith.addf", 0.0)
            return [b.generic("dsoftmax", [p, g, dot],
                              [identity_map(2), identity_map(2), row_map()], a.shape,
                              lambda blk, x: blk.op("arith.mulf", [
                                  x[0], blk.op("arith.subf", [x[1], x[2]], dt, "d")], dt))]
        return self.record(p, [a], bw)

    def layernorm(self, x, gamma, beta, eps=1e-5):
        """Row layer normalisation y = xhat * gamma + beta with
        xhat = (x - mean) / sqrt(var + eps); backward
        dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)),
        dxhat = g * gamma, dgamma = sum_rows(g * xhat), dbeta = sum_rows(g)."""
        b = self.b
        rows, d = x.shape
        col, row = row_map(), affine_map(2, ["d1"])
        inv_d = b.const(1.0 / d)
        dt = b.dtype
        total = b.reduce("lnsum", x, 1, "arith.addf", 0.0)
        xc = b.generic("centered", [x, total], [identity_map(2), col], [rows, d],
                       lambda blk, a: blk.op("arith.subf", [
                           a[0], blk.op("arith.mulf", [a[1], inv_d], dt, "m")], dt))
        sq = b.reduce("lnsq", b.mul(xc, xc), 1, "arith.addf", 0.0)
        epsc = b.const(eps)
        rstd = b.generic("rstd", [sq], [identity_map(1)], [rows], lambda blk, a: blk.op(
            "math.rsqrt", [blk.op("arith.addf", [
                blk.op("arith.mulf", [a[0], inv_d], dt, "v"), epsc], dt, "e")], dt))
        xhat = b.generic("xhat", [xc, rstd], [identity_map(2), col], [rows, d],
                         lambda blk, a: blk.op("arith.mulf", a[:2], dt))
        y = b.generic("normed", [xhat, gamma, beta], [identity_map(2), row, row], [rows, d],
                      lambda blk, a: blk.op("arith.addf", [
                          blk.op("arith.mulf", a[:2], dt, "m"), a[2]], dt))

        def bw(g):
            dgamma = (b.reduce("dgamma", b.mul(g, xhat), 0, "arith.addf", 0.0)
                      if gamma in self.needs else None)
            dbeta = b.reduce("dbeta", g, 0, "arith.addf", 0.0) if beta in self.needs else None
            dx = None
            if x in self.needs:
                dxhat = b.generic("dxhat", [g, gamma], [identity_map(2), row], [rows, d],
                                  lambda blk, a: blk.op("arith.mulf", a[:2], dt))
                s1 = b.reduce("dxhatsum", dxhat, 1, "arith.addf", 0.0)
                s2 = b.reduce("dxhatdot", b.mul(dxhat, xhat), 1, "arith.addf", 0.0)
                dx = b.generic("dln", [dxhat, xhat, s1, s2, rstd],
                               [identity_map(2), identity_map(2), col, col, col], [rows, d],
                               lambda blk, a: layernorm_dx(blk, a, inv_d, dt))
            return [dx, dgamma, dbeta]
        return self.record(y, [x, gamma, beta], bw)

    def softmax_ce(self, logits, y):
        """loss = -(1/rows) sum y * log_softmax(logits); seeds the backward
        with dlogits = (softmax - y) / rows."""
        b = self.b
        dt = b.dtype
        rows = logits.shape[0]
        m, e, s = b.row_softmax_parts(logits)

        def logp_body(blk, x):
            d = blk.op("arith.subf", x[:2], dt, "d")
            return blk.op("arith.subf", [d, blk.op("math.log", [x[2]], dt, "l")], dt)

        logp = b.generic("logp", [logits, m, s], [identity_map(2), row_map(), row_map()],
                         logits.shape, logp_body)
        loss = self._scalar_sum(y, logp, -1.0 / rows)

        def seed():
            c = b.const(1.0 / rows)
            return b.generic("dlogits", [e, s, y], [identity_map(2), row_map(), identity_map(2)],
                             logits.shape, lambda blk, x: blk.op("arith.mulf", [blk.op(
                                 "arith.subf", [blk.op("arith.divf", x[:2], dt, "p"), x[2]],
                                 dt, "d"), c], dt))
        self.loss_grad = (logits, seed)
        return loss

    def mse(self, out, target):
        """loss = 0.5/rows * sum (out - target)^2; seeds d out = (out - t)/rows."""
        b = self.b
        rows = out.shape[0]
        diff = b.sub(out, target)
        loss = self._scalar_sum(diff, diff, 0.5 / rows)
        self.loss_grad = (out, lambda: b.scale(diff, 1.0 / rows))
        return loss

    def _scalar_sum(self, x, y, factor):
        """factor * sum(x * y) as a tensor<dtype>."""
        b = self.b
        rank = x.rank
        z = b.filled([], 0.0)
        acc = b.generic("dot", [x, y], [identity_map(rank)] * 2, [], mac(b.dtype),
                        iters=["reduction"] * rank, init=(z, affine_map(rank, [])))
        c = b.const(factor)
        return b.generic("loss", [acc], [affine_map(0, [])], [],
                         lambda blk, a: blk.op("arith.mulf", [a[0], c], b.dtype))

    def backward(self):
        """Emits the backward; returns {value: gradient}."""
        b = self.b
        grads = {}
        target, seed = self.loss_grad
        grads[target] = seed()
        for out, ins, bw in reversed(self.records):
            g = grads.get(out)
            if g is None:
                continue
            for i, gi in zip(ins, bw(g)):
                if gi is None or i not in self.needs:
                    continue
                grads[i] = b.add(grads[i], gi) if i in grads else gi
        return grads


# ===----------------------------------------------------------------------===#
# Models.
# ===----------------------------------------------------------------------===#


def model_conv_resnet(b, t, o):
    B, S, D, C = o.batch, o.image, o.width, o.classes
    params, inputs = [], [("x", [B, S, S, D]), ("y", [B, C])]
    for i in range(o.blocks):
        params += [("k1_%d" % i, [3, 3, D, D]), ("c1_%d" % i, [D]),
                   ("k2_%d" % i, [3, 3, D, D]), ("c2_%d" % i, [D])]
    params += [("wout", [D, C]), ("bout", [C])]
    P = declare(b, t, params, inputs)

    def body():
        h = P["x"]
        for i in range(o.blocks):
            b.comment("Residual block %d: h = h + conv(relu(conv(h, K1) + c1), K2) + c2 "
                      "(3x3, same padding)." % i)
            u = t.relu(t.conv_same(h, P["k1_%d" % i], P["c1_%d" % i]))
            h = t.add(h, t.conv_same(u, P["k2_%d" % i], P["c2_%d" % i]))
        b.comment("Global average pooling, head and softmax cross-entropy.")
        return t.softmax_ce(t.linear(t.spatial_mean(h), P["wout"], P["bout"]), P["y"])
    return params, inputs, body


def model_resnet(b, t, o):
    if o.conv:
        return model_conv_resnet(b, t, o)
    B, D, H, C = o.batch, o.width, o.hidden, o.classes
    params, inputs = [], [("x", [B, D]), ("y", [B, C])]
    for i in range(o.blocks):
        params += [("w1_%d" % i, [D, H]), ("b1_%d" % i, [H]),
                   ("w2_%d" % i, [H, D]), ("b2_%d" % i, [D])]
    params += [("wout", [D, C]), ("bout", [C])]
    P = declare(b, t, params, inputs)

    def body():
        h = P["x"]
        for i in range(o.blocks):
            b.comment("Residual block %d: h = h + relu(h W1 + b1) W2 + b2." % i)
            u = t.relu(t.linear(h, P["w1_%d" % i], P["b1_%d" % i]))
            h = t.add(h, t.linear(u, P["w2_%d" % i], P["b2_%d" % i]))
        b.comment("Head and softmax cross-entropy.")
        return t.softmax_ce(t.linear(h, P["wout"], P["bout"]), P["y"])
    return params, inputs, body


def model_unet(b, t, o):
    B = o.batch
    widths = o.widths
    L = len(widths) - 1
    params, inputs = [], [("x", [B, widths[0]]), ("target", [B, widths[0]])]
    for i in range(L):
        params += [("we%d" % i, [widths[i], widths[i + 1]]), ("be%d" % i, [widths[i + 1]])]
    for i in reversed(range(L)):
        params += [("wd%d" % i, [widths[i + 1], widths[i]]), ("bd%d" % i, [widths[i]])]
    P = declare(b, t, params, inputs)

    def body():
        enc = [P["x"]]
        for i in range(L):
            b.comment("Encoder %d: e%d = relu(e%d We%d + be%d), width %d -> %d."
                      % (i, i + 1, i, i, i, widths[i], widths[i + 1]))
            enc.append(t.relu(t.linear(enc[i], P["we%d" % i], P["be%d" % i])))
        d = enc[L]
        for i in reversed(range(L)):
            b.comment("Decoder %d: d%d = relu(d%d Wd%d + bd%d) + e%d (long skip)."
                      % (i, i, i + 1, i, i, i))
            d = t.add(t.relu(t.linear(d, P["wd%d" % i], P["bd%d" % i])), enc[i])
        b.comment("MSE loss against the target.")
        return t.mse(d, P["target"])
    return params, inputs, body


def model_transformer(b, t, o):
    S, D, F, C = o.seq, o.width, o.hidden, o.classes
    params, inputs = [], [("x", [S, D]), ("y", [S, C])]
    for i in range(o.blocks):
        if o.layernorm:
            params += [("ln1_g%d" % i, [D]), ("ln1_b%d" % i, [D])]
        params += [("wq%d" % i, [D, D]), ("wk%d" % i, [D, D]), ("wv%d" % i, [D, D]),
                   ("wo%d" % i, [D, D])]
        if o.layernorm:
            params += [("ln2_g%d" % i, [D]), ("ln2_b%d" % i, [D])]
        params += [("w1_%d" % i, [D, F]), ("b1_%d" % i, [F]),
                   ("w2_%d" % i, [F, D]), ("b2_%d" % i, [D])]
    params += [("wout", [D, C]), ("bout", [C])]
    P = declare(b, t, params, inputs)

    def body():
        h = P["x"]
        for i in range(o.blocks):
            b.comment("Block %d: single-head self-attention, softmax(Q K^T / sqrt(%d)) V%s."
                      % (i, D, " on layernorm(h)" if o.layernorm else ""))
            a = t.layernorm(h, P["ln1_g%d" % i], P["ln1_b%d" % i]) if o.layernorm else h
            q = t.matmul(a, P["wq%d" % i])
            k = t.matmul(a, P["wk%d" % i])
            v = t.matmul(a, P["wv%d" % i])
            scores = t.scale(t.matmul(q, t.transpose(k)), 1.0 / math.sqrt(D))
            att = t.matmul(t.softmax(scores), v)
            h = t.add(h, t.matmul(att, P["wo%d" % i]))
            b.comment("Block %d: MLP with residual%s." %
                      (i, " on layernorm(h)" if o.layernorm else ""))
            m = t.layernorm(h, P["ln2_g%d" % i], P["ln2_b%d" % i]) if o.layernorm else h
            u = t.relu(t.linear(m, P["w1_%d" % i], P["b1_%d" % i]))
            h = t.add(h, t.linear(u, P["w2_%d" % i], P["b2_%d" % i]))
        b.comment("Head and softmax cross-entropy.")
        return t.softmax_ce(t.linear(h, P["wout"], P["bout"]), P["y"])
    return params, inputs, body


def declare(b, t, params, inputs):
    """The function's arguments: {name: Value}, the parameters marked as
    such on the tape."""
    P = {}
    for name, shape in params:
        P[name] = t.param(b.argument(name, shape))
    for name, shape in inputs:
        P[name] = b.argument(name, shape)
    return P


MODELS = {"resnet": model_resnet, "unet": model_unet, "transformer": model_transformer}


def gen_step(o):
    """The step's text and its signature (as parse_signature gives it)."""
    b = Builder(o.name, o.dtype)
    t = Tape(b)
    params, inputs, body = MODELS[o.model](b, t, o)
    b.comment("=== Forward ===")
    loss = body()
    b.comment("=== Backward ===")
    grads = t.backward()
    b.comment("=== SGD update: p' = p - %s * dp ===" % decimal_float(LR))
    args = [a.value for a in b.fn.args]
    news = [b.sgd(v, grads[v]) for v in args[:len(params)]]
    signature = (o.name, [(v.name[1:], v.shape) for v in args], [[]] + [v.shape for v in news],
                 o.dtype)
    return b.text([loss] + news), signature


# ===----------------------------------------------------------------------===#
# Drivers.
# ===----------------------------------------------------------------------===#

def parse_type(s):
    parsed = parse_tensor_type(s)
    if not parsed or parsed[1] not in ("f32", "f64"):
        raise SystemExit("error: unsupported type '%s' (static f32/f64 tensors only)" % s)
    return parsed


def check_step(sig):
    """(fn, [(arg, shape)], [result shapes], dtype) of `sig` (an
    mlir_emitter.Signature) if it follows the training-step convention
    (loss first, then one updated tensor per leading parameter argument);
    else the reason it does not."""
    args, dtypes = [], set()
    for a, ty in sig.args:
        shape, dtype = parse_type(ty)
        args.append((a, shape))
        dtypes.add(dtype)
    results = [parse_type(r)[0] for r in sig.results]
    nparams = len(results) - 1
    if len(dtypes) != 1:
        return "arguments must share one element type"
    if not results or results[0] != []:
        return "the first result must be the loss, a 0-d tensor"
    if nparams > len(args) or any(results[1 + i] != args[i][1] for i in range(nparams)):
        return ("results 1..%d must have the types of the first %d "
                "arguments (the updated parameters)" % (nparams, nparams))
    return sig.name, args, results, dtypes.pop()


def find_step(text, name=None):
    """The training step in `text`: the public function named `name`, else
    the first one following the convention (see check_step). Returns its
    mlir_emitter.Signature and (fn, [(arg, shape)], [result shapes], dtype);
    exits with an error when there is none."""
    for sig in read_signatures(text):
        if sig.private or not sig.results or (name and sig.name != name):
            continue
        step = check_step(sig)
        if not isinstance(step, str):
            return sig, step
        if name:
            raise SystemExit("error: @%s: %s" % (sig.name, step))
    if name:
        raise SystemExit("error: no function @%s returning tensors found" % name)
    raise SystemExit("error: no training-step function found (one returning the "
                     "loss as a 0-d tensor, then the updated parameters)")


def parse_signature(text, name=None):
    """(fn, [(arg, shape)], [result shapes], dtype) of the step in `text`."""
    return find_step(text, name)[1]


def scale_for(i, shape, nparams):
    """Deterministic initialisation scale of argument i (see README)."""
    if i >= nparams:
        return 1.0
    if len(shape) == 1:
        return 0.1
    fan_in = 1
    for d in shape[:-1]:
        fan_in *= d
    return 1.0 / math.sqrt(fan_in)


DRIVER_STYLE = EXAMPLE_STYLE._replace(numbering="global")


def private_function(name, args, results, e):
    """`func.func private @name(args) -> results` around the body that
    Emitter `e` built (its return included); args: (name, type) pairs."""
    res = results[0] if len(results) == 1 else "(%s)" % ", ".join(results)
    head = "func.func private @%s(%s) -> %s {" % (
        name, ", ".join("%s: %s" % a for a in args), res)
    return "\n".join([head] + e.lines + ["}"])


class Driver:
    """Builds @main (its ops numbered %v1, %v2, ..) and the private helper
    functions it calls, each through an mlir_emitter.Emitter."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.helpers = {}
        self.e = Emitter(DRIVER_STYLE)

    def ty(self, shape):
        return tensor_type(shape, self.dtype)

    def fresh(self):
        return self.e.fresh("v")

    def emit(self, line):
        self.e.emit(line)

    def helper(self, name, args, results, build):
        """Adds the private function @name once: `build(e, arg names)`
        emits its body into Emitter e and returns the returned values."""
        if name not in self.helpers:
            e = Emitter(EXAMPLE_STYLE)
            names = [e.exact(a) for a, _ in args]
            e.emit("return %s : %s" % (", ".join(build(e, names)), ", ".join(results)))
            self.helpers[name] = private_function(name, list(zip(names, [t for _, t in args])),
                                                  results, e)
        return name

    def generic(self, e, ins, init, iterators, body, arg_hints):
        """linalg.generic of the helpers (named %r), identity maps for the
        inputs; the output's map from its rank."""
        r = len(iterators)
        return e.generic(ins, [identity_map(r)] * len(ins), [init],
                         [affine_map(r, ["d%d" % i for i in range(init.rank)])], iterators,
                         body, e.exact("r"), arg_hints)[0]

    def init_fn(self, shape):
        """@init_<shape>(freq, phase, scale): v[k] = scale * sin(freq*k + phase),
        evaluated in f64 and rounded once to the element type, so that f32 and
        f64 drivers (and examples/gen/reference.py) start from the same data."""
        r, dt = len(shape), self.dtype
        strides = [1] * r
        for i in reversed(range(r - 1)):
            strides[i] = strides[i + 1] * shape[i + 1]

        def payload(b, freq, phase, scale):
            terms = [b.op("arith.muli", [b.index(i, "i%d" % i), b.const(
                str(strides[i]), "index", "s%d" % i)], "index", "t%d" % i) for i in range(r)]
            k = terms[0]
            for i in range(1, r):
                k = b.op("arith.addi", [k, terms[i]], "index", "k%d" % i)
            kf = b.cast("arith.sitofp", b.cast("arith.index_cast", k, "index", "i64", "ki"),
                        "i64", "f64", "kf")
            a = b.op("arith.addf", [b.op("arith.mulf", [kf, freq], "f64", "a"), phase], "f64", "b")
            d = b.op("arith.mulf", [b.op("math.sin", [a], "f64", "c"), scale], "f64", "d")
            return d if dt == "f64" else b.cast("arith.truncf", d, "f64", dt, "t")

        def build(e, a):
            init = e.empty(shape, dt, e.exact("e"))
            return [self.generic(e, [], init, ["parallel"] * r,
                                 lambda b, _: payload(b, *a), ["out"]).name]

        return self.helper("init_" + ("x".join(str(d) for d in shape) or "s"),
                           [("freq", "f64"), ("phase", "f64"), ("scale", "f64")],
                           [self.ty(shape)], build)

    def onehot_fn(self, shape):
        """@onehot_<shape>(): y[b, c] = (c == (3 b + 1) mod C) for 2-D shapes."""
        assert len(shape) == 2
        dt = self.dtype

        def payload(b, _):
            i, j = b.index(0, "i"), b.index(1, "j")
            c1, c3, cc = (b.const(str(v), "index", h) for v, h in
                          ((1, "c1"), (3, "c3"), (shape[1], "cc")))
            a = b.op("arith.addi", [b.op("arith.muli", [i, c3], "index", "a"), c1], "index", "b")
            eq = b.op("arith.cmpi", ["eq", j, b.op("arith.remui", [a, cc], "index", "l")],
                      "index", "eq")
            return b.op("arith.select", [eq, b.const("1.0", dt, "one"),
                                         b.const("0.0", dt, "zero")], dt, "v")

        return self.helper("onehot_" + "x".join(str(d) for d in shape), [], [self.ty(shape)],
                           lambda e, _: [self.generic(
                               e, [], e.empty(shape, dt, e.exact("e")), ["parallel"] * 2,
                               payload, ["out"]).name])

    def reduce_to_scalar(self, e, ins, combine, arg_hints):
        """sum over every element of combine(ins) (f(a) = a, or a * b), as
        a scalar: fill, reducing linalg.generic, tensor.extract."""
        dt = self.dtype
        zero = e.constant("0.0", dt, e.exact("zero"))
        acc = e.fill(zero, e.empty([], dt, e.exact("e")), e.exact("z"))
        r = self.generic(e, ins, acc, ["reduction"] * ins[0].rank,
                         lambda b, a: b.op("arith.addf", combine(b, a), dt, "s"), arg_hints)
        return [e.let(e.exact("v"), "tensor.extract %s[] : %s" % (r.name, r.type))]

    def sum_fn(self, shape):
        """@sum_<shape>(t) -> dtype: sum of all elements."""
        t = self.ty(shape)
        return self.helper("sum_" + ("x".join(str(d) for d in shape) or "s"), [("t", t)],
                           [self.dtype], lambda e, a: self.reduce_to_scalar(
                               e, [Value(a[0], shape, self.dtype)], lambda b, x: x,
                               ["in", "acc"]))

    def dot_fn(self, shape):
        """@dot_<shape>(x, y) -> sum(x * y)."""
        dt = self.dtype
        return self.helper("dot_" + "x".join(str(d) for d in shape),
                           [("x", self.ty(shape)), ("y", self.ty(shape))], [dt],
                           lambda e, a: self.reduce_to_scalar(
                               e, [Value(n, shape, dt) for n in a],
                               lambda b, x: [b.op("arith.mulf", x[:2], dt, "m"), x[2]],
                               ["xv", "yv", "acc"]))

    def elementwise_fn(self, name, args, shape, ins, payload, arg_hints):
        """A helper returning a new tensor of `shape` computed element-wise
        from the tensor arguments at positions `ins`."""
        dt = self.dtype

        def build(e, a):
            vals = [Value(a[i], shape, dt) for i in ins]
            init = e.empty(shape, dt, e.exact("e"))
            return [self.generic(e, vals, init, ["parallel"] * len(shape),
                                 lambda b, x: payload(b, a, x), arg_hints).name]

        return self.helper(name, args, [self.ty(shape)], build)

    def axpy_fn(self, shape):
        """@axpy_<shape>(a, x, y) -> a * x + y."""
        dt, t = self.dtype, self.ty(shape)
        return self.elementwise_fn(
            "axpy_" + "x".join(str(d) for d in shape), [("a", dt), ("x", t), ("y", t)],
            shape, [1, 2], lambda b, a, x: b.op("arith.addf", [
                b.op("arith.mulf", [a[0], x[0]], dt, "m"), x[1]], dt, "s"), ["xv", "yv", "out"])

    def mulall_fn(self, shape):
        """@scale_<shape>(t, a) -> a * t."""
        dt, t = self.dtype, self.ty(shape)
        return self.elementwise_fn(
            "scale_" + "x".join(str(d) for d in shape), [("x", t), ("a", dt)], shape, [0],
            lambda b, a, x: b.op("arith.mulf", [a[1], x[0]], dt, "m"), ["xv", "out"])

    def loss_only_fn(self, fn, shapes, results):
        """@<fn>_loss(args) -> loss as a scalar: keeps the many updated-parameter
        results of the step inside one function, so that the deallocation pipeline
        bookkeeping for them is emitted once instead of at every call site."""

        def build(e, a):
            r = e.exact("r")
            e.emit("%s:%d = func.call @%s(%s) : (%s) -> (%s)" % (
                r, len(results), fn, ", ".join(a), ", ".join(self.ty(s) for s in shapes),
                ", ".join(self.ty(s) for s in results)))
            return [e.let(e.exact("l"), "tensor.extract %s#0[] : %s" % (r, self.ty([])))]

        return self.helper(fn + "_loss", [("p%d" % i, self.ty(s)) for i, s in enumerate(shapes)],
                           [self.dtype], build)

    def const(self, v, dtype=None):
        return self.e.constant(decimal_float(v), dtype or self.dtype, "v")

    def call_init(self, shape, freq, phase, scale):
        f, p, s = (self.const(v, "f64") for v in (freq, phase, scale))
        v = self.fresh()
        self.emit("%s = func.call @%s(%s, %s, %s) : (f64, f64, f64) -> %s" %
                  (v, self.init_fn(shape), f, p, s, self.ty(shape)))
        return v

    def build_args(self, args, nparams):
        vals = []
        for i, (name, shape) in enumerate(args):
            if i >= nparams and name.startswith("y") and len(shape) == 2:
                v = self.fresh()
                self.emit("%s = func.call @%s() : () -> %s" %
                          (v, self.onehot_fn(shape), self.ty(shape)))
            else:
                v = self.call_init(shape, 0.37, 0.5 * i + 0.25,
                                   scale_for(i, shape, nparams))
            vals.append(v)
        return vals

    def call(self, fn, args, arg_shapes, results):
        v = self.fresh()
        self.emit("%s:%d = func.call @%s(%s) : (%s) -> (%s)" %
                  (v, len(results), fn, ", ".join(args),
                   ", ".join(self.ty(s) for s in arg_shapes),
                   ", ".join(self.ty(s) for s in results)))
        return [v + "#%d" % i for i in range(len(results))]

    def scalar(self, t):
        v = self.fresh()
        self.emit("%s = tensor.extract %s[] : %s" % (v, t, self.ty([])))
        return v

    def finish(self):
        out = ["func.func @main() {"] + self.e.lines + ["  return", "}"]
        return "\n".join(list(self.helpers.values()) + out) + "\n"


def gen_run_main(fn, args, results, dtype):
    """Prints loss, loss after one SGD step, and the sum of all updated params."""
    d = Driver(dtype)
    nparams = len(results) - 1
    shapes = [s for _, s in args]
    vals = d.build_args(args, nparams)
    r = d.call(fn, vals, shapes, results)
    loss0 = d.scalar(r[0])
    new = r[1:]
    r2 = d.call(fn, new + vals[nparams:], shapes, results)
    loss1 = d.scalar(r2[0])
    acc = None
    for v, s in zip(new, results[1:]):
        x = d.fresh()
        d.emit("%s = func.call @%s(%s) : (%s) -> %s" % (x, d.sum_fn(s), v, d.ty(s), dtype))
        if acc is None:
            acc = x
        else:
            y = d.fresh()
            d.emit("%s = arith.addf %s, %s : %s" % (y, acc, x, dtype))
            acc = y
    d.emit('vector.print str "loss = "')
    d.emit("vector.print %s : %s" % (loss0, dtype))
    d.emit('vector.print str "loss after one step = "')
    d.emit("vector.print %s : %s" % (loss1, dtype))
    d.emit('vector.print str "sum of updated parameters = "')
    d.emit("vector.print %s : %s" % (acc, dtype))
    return d.finish()


def gradcheck_fn(d, fn, shapes, results, i, pname, eps):
    """@gradcheck_<pname>(args, %new) -> (an, fd) of parameter i (see
    gen_gradcheck_main), built in an emitter of its own."""
    dtype, s = d.dtype, shapes[i]
    d.e = Emitter(DRIVER_STYLE)
    params = ["%%arg%d" % j for j in range(len(shapes))]
    d.e.names.reserve(params + ["%new"])
    # an = <(P' - P) * (-1/lr), D>
    dirn = d.call_init(s, 0.73, 1.1 + i, 1.0)
    diff = d.fresh()
    d.emit("%s = func.call @%s(%s, %s, %%new) : (%s, %s, %s) -> %s" %
           (diff, d.axpy_fn(s), d.const(-1.0), params[i], dtype, d.ty(s),
            d.ty(s), d.ty(s)))
    grad = d.fresh()
    d.emit("%s = func.call @%s(%s, %s) : (%s, %s) -> %s" %
           (grad, d.mulall_fn(s), diff, d.const(-1.0 / LR), d.ty(s), dtype, d.ty(s)))
    an = d.fresh()
    d.emit("%s = func.call @%s(%s, %s) : (%s, %s) -> %s" %
           (an, d.dot_fn(s), grad, dirn, d.ty(s), d.ty(s), dtype))
    # fd = (loss(P + eps D) - loss(P - eps D)) / (2 eps)
    losses = []
    for e in (eps, -eps):
        moved = d.fresh()
        d.emit("%s = func.call @%s(%s, %s, %s) : (%s, %s, %s) -> %s" %
               (moved, d.axpy_fn(s), d.const(e), dirn, params[i], dtype, d.ty(s),
                d.ty(s), d.ty(s)))
        a = list(params)
        a[i] = moved
        lv = d.fresh()
        d.emit("%s = func.call @%s(%s) : (%s) -> %s" %
               (lv, d.loss_only_fn(fn, shapes, results), ", ".join(a),
                ", ".join(d.ty(t) for t in shapes), dtype))
        losses.append(lv)
    delta = d.fresh()
    d.emit("%s = arith.subf %s, %s : %s" % (delta, losses[0], losses[1], dtype))
    fd = d.fresh()
    d.emit("%s = arith.mulf %s, %s : %s" % (fd, delta, d.const(1.0 / (2 * eps)), dtype))
    d.emit("return %s, %s : %s, %s" % (an, fd, dtype, dtype))
    name = "gradcheck_" + pname
    d.helpers[name] = private_function(
        name, [(p, d.ty(t)) for p, t in zip(params, shapes)] + [("%new", d.ty(s))],
        [dtype, dtype], d.e)
    return name


def gen_gradcheck_main(fn, args, results, dtype, eps, tol, atol, only=None):
    """Per parameter P: directional derivative an = <(P - P')/lr, D> against
    the central difference fd of the loss along D; prints both, then PASS when
    |fd - an| <= tol * |an| + atol for every parameter (atol absorbs the
    O(ulp(loss) / eps) rounding of fd for parameters with tiny gradients).

    Each parameter is checked in its own function @gradcheck_<name>: the
    deallocation pipeline's bookkeeping grows with the number of buffers live
    in one function, and keeping the temporaries apart keeps the lowered IR
    small (and mlir-runner fast)."""
    d = Driver(dtype)
    nparams = len(results) - 1
    shapes = [s for _, s in args]
    arg_types = ", ".join(d.ty(t) for t in shapes)
    vals = d.build_args(args, nparams)
    r = d.call(fn, vals, shapes, results)
    main = d.e
    checks = []
    for i in range(nparams):
        if only and not re.search(only, args[i][0]):
            continue
        checks.append((i, gradcheck_fn(d, fn, shapes, results, i, args[i][0], eps)))
    d.e = main

    if not checks:
        raise SystemExit("error: --only '%s' matches no parameter" % only)
    tol_c = d.const(tol)
    atol_c = d.const(atol)
    worst = d.const(0.0)
    for i, name in checks:
        res = d.fresh()
        d.emit("%s:2 = func.call @%s(%s, %s) : (%s, %s) -> (%s, %s)" %
               (res, name, ", ".join(vals), r[1 + i], arg_types, d.ty(shapes[i]),
                dtype, dtype))
        an, fd = res + "#0", res + "#1"
        err = d.fresh()
        d.emit("%s = arith.subf %s, %s : %s" % (err, fd, an, dtype))
        aerr = d.fresh()
        d.emit("%s = math.absf %s : %s" % (aerr, err, dtype))
        mag = d.fresh()
        d.emit("%s = math.absf %s : %s" % (mag, an, dtype))
        rtol = d.fresh()
        d.emit("%s = arith.mulf %s, %s : %s" % (rtol, mag, tol_c, dtype))
        bound = d.fresh()
        d.emit("%s = arith.addf %s, %s : %s" % (bound, rtol, atol_c, dtype))
        ratio = d.fresh()
        d.emit("%s = arith.divf %s, %s : %s" % (ratio, aerr, bound, dtype))
        w = d.fresh()
        d.emit("%s = arith.maximumf %s, %s : %s" % (w, worst, ratio, dtype))
        worst = w
        d.emit('vector.print str "%s: analytic = "' % args[i][0])
        d.emit("vector.print %s : %s" % (an, dtype))
        d.emit('vector.print str "%s: finite-difference = "' % args[i][0])
        d.emit("vector.print %s : %s" % (fd, dtype))
    one = d.const(1.0)
    ok = d.fresh()
    d.emit("%s = arith.cmpf ole, %s, %s : %s" % (ok, worst, one, dtype))
    d.emit('vector.print str "max |fd - an| / (tol |an| + atol) = "')
    d.emit("vector.print %s : %s" % (worst, dtype))
    d.emit("scf.if %s {" % ok)
    d.emit('  vector.print str "gradcheck PASS\\n"')
    d.emit("} else {")
    d.emit('  vector.print str "gradcheck FAIL\\n"')
    d.emit("}")
    return d.finish()


# ===----------------------------------------------------------------------===#
# Command line.
# ===----------------------------------------------------------------------===#


def shard_step(text, ranks, name=None):
    """`text` with its training step annotated for data parallelism over a
    1-D grid `@dp` of `ranks` processes: every input (the arguments after the
    parameters) split along dimension 0, the batch; every parameter
    replicated. The annotations are `shard.shard ... annotate_for_users`
    right after the function's opening brace, and the body reads the
    annotated values. Upstream `--sharding-propagation --shard-partition`
    (remat-opt's `--remat-shard-partition`) derive the per-rank step, with
    one `shard.all_reduce` per gradient."""
    sig, (fn, args, results, dtype) = find_step(text, name)
    nparams = len(results) - 1
    if nparams == len(args):
        raise SystemExit("error: @%s has no input argument to split" % fn)
    for a, shape in args[nparams:]:
        if not shape or shape[0] % ranks:
            raise SystemExit("error: input %%%s: batch %s is not a multiple of "
                             "%d ranks" % (a, shape[0] if shape else "(scalar)",
                                           ranks))
    body_start = text.index("\n", sig.body_start) + 1
    body_end = text.rfind("\n", 0, sig.body_end)
    body = text[body_start:body_end]
    e = Emitter(EXAMPLE_STYLE)
    e.names.reserve(t.text for t in tokens(text[sig.start:sig.body_end])
                    if t.text.startswith("%"))
    e.comment("Data parallel over %d ranks: inputs split along the batch, "
              "parameters replicated." % ranks)
    batch, replicated = (e.let(e.exact(n), "shard.sharding @dp split_axes = [%s] : "
                               "!shard.sharding" % axes)
                         for n, axes in (("dp_batch", "[0]"), ("dp_replicated", "[]")))
    renames = {}
    for i, (a, shape) in enumerate(args):
        v = Value("%" + a, shape, dtype)
        renames[v.name] = e.let(e.exact(a + "_dp"), "shard.shard %s to %s annotate_for_users : %s"
                                % (v.name, replicated if i < nparams else batch, v.type))
    start = text.rfind("\n", 0, sig.start) + 1
    return (text[:start] + "shard.grid @dp(shape = %d)\n\n" % ranks +
            text[start:body_start] + "\n".join(e.lines) + "\n\n" +
            rename_values(body, renames) + text[body_end:])


def emit_driver(step, o):
    """The driver of `step`, a parse_signature tuple."""
    fn, args, results, dtype = step
    if o.main == "run":
        return gen_run_main(fn, args, results, dtype)
    return gen_gradcheck_main(fn, args, results, dtype, o.eps, o.tol, o.atol, o.only)


def main(argv):
    ap = argparse.ArgumentParser(
        description="Generate a one-function SGD training step on tensors "
                    "(ResNet-like, U-Net-like or transformer blocks), or a "
                    "run/gradcheck driver for an existing step. See "
                    "examples/README.md.")
    ap.add_argument("model", choices=sorted(MODELS) + ["driver", "shard"],
                    help="model to generate, 'driver' to emit only a driver "
                         "for the step function in FILE, or 'shard' to emit "
                         "FILE's step annotated for data parallelism over "
                         "--ranks processes")
    ap.add_argument("file", nargs="?",
                    help="step function file (driver and shard modes)")
    ap.add_argument("--ranks", type=int, default=2,
                    help="shard mode: processes of the 1-D grid")
    ap.add_argument("--name", help="step function name (default <model>_step)")
    ap.add_argument("--dtype", choices=["f32", "f64"], default="f32")
    ap.add_argument("--main", choices=["none", "run", "gradcheck"], default="none",
                    help="also emit a @main driver (in driver mode: default run)")
    ap.add_argument("--blocks", type=int, default=4, help="resnet/transformer blocks")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=8, help="transformer sequence length")
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--conv", action="store_true",
                    help="resnet: convolutional blocks on NHWC images (--image, "
                         "channels = --width)")
    ap.add_argument("--image", type=int, default=8, help="conv resnet image size")
    ap.add_argument("--layernorm", action="store_true",
                    help="transformer: pre-layernorm blocks (learned gain and bias)")
    ap.add_argument("--widths", default="64,48,32,16",
                    help="unet widths, outermost first (comma separated)")
    ap.add_argument("--lr", type=float, default=None,
                    help="SGD learning rate (default: 0.01 for unet, else 0.1); "
                         "gradcheck recovers the gradient as (P - P') / lr, so "
                         "in driver mode it must match the step's")
    ap.add_argument("--eps", type=float, default=1e-6, help="gradcheck step")
    ap.add_argument("--tol", type=float, default=1e-5, help="gradcheck relative tolerance")
    ap.add_argument("--atol", type=float, default=1e-8, help="gradcheck absolute tolerance")
    ap.add_argument("--only", help="gradcheck only the parameters whose name matches "
                                   "this regular expression")
    o = ap.parse_args(argv)
    try:
        o.widths = [int(w) for w in o.widths.split(",")]
    except ValueError:
        ap.error("--widths must be comma-separated integers")
    if len(o.widths) < 2:
        ap.error("--widths needs at least two widths")
    for flag in ("blocks", "batch", "seq", "width", "hidden", "classes", "image"):
        if getattr(o, flag) < 1:
            ap.error("--%s must be positive" % flag)
    if min(o.widths) < 1:
        ap.error("--widths must be positive")
    if o.eps <= 0:
        ap.error("--eps must be positive")
    global LR
    LR = o.lr if o.lr is not None else (0.01 if o.model == "unet" else 0.1)
    if o.model == "shard":
        if not o.file or o.ranks < 1:
            ap.error("shard mode needs FILE and a positive --ranks")
        try:
            with open(o.file) as f:
                text = f.read()
        except OSError as e:
            ap.error("cannot read %s: %s" % (o.file, e.strerror))
        sys.stdout.write(
            "// Annotated by examples/gen/gen_training_step.py %s.\n"
            % " ".join(a if a != o.file else o.file.split("/")[-1] for a in argv)
            + shard_step(text, o.ranks, o.name))
        return 0
    if o.model == "driver":
        if not o.file:
            ap.error("driver mode needs FILE")
        try:
            with open(o.file) as f:
                text = f.read()
        except OSError as e:
            ap.error("cannot read %s: %s" % (o.file, e.strerror))
        if o.dtype == "f64":
            text = text.replace("f32", "f64")
        if o.main == "none":
            o.main = "run"
        body = emit_driver(parse_signature(text, o.name), o)
        header = ("// Driver generated by examples/gen/gen_training_step.py %s\n"
                  "// (inputs: see examples/README.md).\n"
                  % " ".join(a if a != o.file else o.file.split("/")[-1] for a in argv))
        # gradcheck and f64 drivers carry the (converted) step with them.
        standalone = o.main == "run" and o.dtype == "f32"
        sys.stdout.write(header + body if standalone else text + header + body)
        return 0
    if o.name is None:
        o.name = o.model + "_step"
    header = ("// Generated by examples/gen/gen_training_step.py %s; do not edit.\n"
              % " ".join(argv))
    step, signature = gen_step(o)
    out = header + step
    if o.main != "none":
        out += "\n" + emit_driver(signature, o)
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
