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
import re
import sys

LR = 0.1

# ===----------------------------------------------------------------------===#
# Small IR builder.
# ===----------------------------------------------------------------------===#


def fmt_float(v):
    """Decimal literal accepted by the MLIR float parser."""
    s = repr(float(v))
    if "e" in s:
        mant, exp = s.split("e")
        if "." not in mant:
            mant += ".0"
        s = mant + "e" + exp
    elif "." not in s:
        s += ".0"
    return s


def ident_map(rank):
    dims = ", ".join("d%d" % i for i in range(rank))
    return "affine_map<(%s) -> (%s)>" % (dims, dims)


class Builder:
    """Accumulates the lines of one function body; tracks value shapes."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.lines = []
        self.shapes = {}
        self.counter = {}
        self.consts = {}

    def ty(self, shape):
        if not shape:
            return "tensor<%s>" % self.dtype
        return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), self.dtype)

    def fresh(self, prefix):
        n = self.counter.get(prefix, 0)
        self.counter[prefix] = n + 1
        return "%%%s%d" % (prefix, n)

    def emit(self, line):
        self.lines.append("  " + line)

    def comment(self, text):
        self.lines.append("  // " + text)

    def const(self, value):
        key = fmt_float(value)
        if key not in self.consts:
            name = "%%cst%d" % len(self.consts)
            self.consts[key] = name
        return self.consts[key]

    def const_lines(self):
        return ["  %s = arith.constant %s : %s" % (n, k, self.dtype)
                for k, n in self.consts.items()]

    def empty(self, shape):
        v = self.fresh("init")
        self.emit("%s = tensor.empty() : %s" % (v, self.ty(shape)))
        return v

    def filled(self, shape, value):
        e = self.empty(shape)
        v = self.fresh("fill")
        c = self.const(value)
        self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" %
                  (v, c, self.dtype, e, self.ty(shape), self.ty(shape)))
        self.shapes[v] = shape
        return v

    def generic(self, prefix, ins, in_maps, out_shape, body, iters=None,
                init=None):
        """linalg.generic; `body(args)` returns (lines, yielded) using block
        args named %a0.. (inputs) and %acc (output)."""
        rank = len(out_shape) if iters is None else len(iters)
        if iters is None:
            iters = ["parallel"] * rank
        out_map = ident_map(rank) if init is None else init[1]
        out = init[0] if init is not None else self.empty(out_shape)
        v = self.fresh(prefix)
        maps = ", ".join(in_maps + [out_map])
        its = ", ".join('"%s"' % i for i in iters)
        ins_s = ", ".join(ins)
        ins_t = ", ".join(self.ty(self.shapes[i]) for i in ins)
        self.emit("%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}"
                  % (v, maps, its))
        self.emit("    ins(%s : %s) outs(%s : %s) {" %
                  (ins_s, ins_t, out, self.ty(out_shape)))
        args = ", ".join("%%a%d: %s" % (i, self.dtype) for i in range(len(ins)))
        self.emit("^bb0(%s, %%acc: %s):" % (args, self.dtype))
        lines, y = body(["%%a%d" % i for i in range(len(ins))])
        for l in lines:
            self.emit("  " + l)
        self.emit("  linalg.yield %s : %s" % (y, self.dtype))
        self.emit("} -> %s" % self.ty(out_shape))
        self.shapes[v] = out_shape
        return v

    def ewise(self, prefix, ins, fn):
        """Element-wise op over same-shaped inputs; fn(args) -> (lines, y)."""
        shape = self.shapes[ins[0]]
        m = ident_map(len(shape))
        return self.generic(prefix, ins, [m] * len(ins), shape, fn)

    # -- Named ops --------------------------------------------------------===#

    def matmul(self, a, b):
        (m, k), (k2, n) = self.shapes[a], self.shapes[b]
        assert k == k2, (a, b)
        z = self.filled([m, n], 0.0)
        v = self.fresh("mm")
        self.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" %
                  (v, a, b, self.ty([m, k]), self.ty([k, n]), z,
                   self.ty([m, n]), self.ty([m, n])))
        self.shapes[v] = [m, n]
        return v

    def transpose(self, a):
        m, n = self.shapes[a]
        e = self.empty([n, m])
        v = self.fresh("tr")
        self.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [1, 0]"
                  % (v, a, self.ty([m, n]), e, self.ty([n, m])))
        self.shapes[v] = [n, m]
        return v

    def reduce(self, prefix, a, dims, combiner, init_value):
        """linalg.reduce of `a` over `dims` (an int or a list of ints)."""
        dims = [dims] if isinstance(dims, int) else list(dims)
        shape = self.shapes[a]
        out_shape = [d for i, d in enumerate(shape) if i not in dims]
        z = self.filled(out_shape, init_value)
        v = self.fresh(prefix)
        self.emit("%s = linalg.reduce ins(%s : %s) outs(%s : %s) dimensions = [%s]"
                  % (v, a, self.ty(shape), z, self.ty(out_shape),
                     ", ".join(str(d) for d in dims)))
        self.emit("  (%%in: %s, %%init: %s) {" % (self.dtype, self.dtype))
        self.emit("    %%r = %s %%in, %%init : %s" % (combiner, self.dtype))
        self.emit("    linalg.yield %%r : %s" % self.dtype)
        self.emit("  }")
        self.shapes[v] = out_shape
        return v

    # -- Convolution helpers (NHWC images, HWCF filters, stride 1) --------===#

    def pad_hw(self, x, p):
        """Zero-pads the two spatial dims of an NHWC tensor by p on each side."""
        n, h, w, c = self.shapes[x]
        out = [n, h + 2 * p, w + 2 * p, c]
        v = self.fresh("padded")
        self.emit("%s = tensor.pad %s low[0, %d, %d, 0] high[0, %d, %d, 0] {" %
                  (v, x, p, p, p, p))
        self.emit("^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
        self.emit("  tensor.yield %s : %s" % (self.const(0.0), self.dtype))
        self.emit("} : %s to %s" % (self.ty([n, h, w, c]), self.ty(out)))
        self.shapes[v] = out
        return v

    def slice_hw(self, x, p, h, w):
        """The h x w spatial window of an NHWC tensor at offset (p, p)."""
        n, _, _, c = self.shapes[x]
        v = self.fresh("window")
        self.emit("%s = tensor.extract_slice %s[0, %d, %d, 0] [%d, %d, %d, %d] [1, 1, 1, 1]"
                  " : %s to %s" % (v, x, p, p, n, h, w, c, self.ty(self.shapes[x]),
                                   self.ty([n, h, w, c])))
        self.shapes[v] = [n, h, w, c]
        return v

    def conv(self, x, k):
        n, h, w, c = self.shapes[x]
        kh, kw, c2, f = self.shapes[k]
        assert c == c2, (x, k)
        out = [n, h - kh + 1, w - kw + 1, f]
        z = self.filled(out, 0.0)
        v = self.fresh("conv")
        self.emit("%s = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, "
                  "strides = dense<1> : tensor<2xi64>}" % v)
        self.emit("    ins(%s, %s : %s, %s) outs(%s : %s) -> %s" %
                  (x, k, self.ty(self.shapes[x]), self.ty(self.shapes[k]), z,
                   self.ty(out), self.ty(out)))
        self.shapes[v] = out
        return v

    def conv_filter_grad(self, x, dz, kshape):
        """dK[i,j,c,f] = sum_{n,h,w} x[n,h+i,w+j,c] dz[n,h,w,f]."""
        z = self.filled(kshape, 0.0)
        dims = "(d0, d1, d2, d3, d4, d5, d6)"
        return self.generic(
            "dfilter", [x, dz],
            ["affine_map<%s -> (d4, d5 + d0, d6 + d1, d2)>" % dims,
             "affine_map<%s -> (d4, d5, d6, d3)>" % dims], kshape,
            lambda a: (["%%p = arith.mulf %s, %s : %s" % (a[0], a[1], self.dtype),
                        "%%r = arith.addf %%acc, %%p : %s" % self.dtype], "%r"),
            iters=["parallel"] * 4 + ["reduction"] * 3,
            init=(z, "affine_map<%s -> (d0, d1, d2, d3)>" % dims))

    def conv_input_grad(self, dz, k):
        """Full correlation: dx[n,h,w,c] = sum_{i,j,f} pad(dz)[n,h-i+kh-1,w-j+kw-1,f]
        K[i,j,c,f], dz zero-padded by kernel size - 1."""
        kh, kw, c, f = self.shapes[k]
        n, oh, ow, _ = self.shapes[dz]
        dzp = self.pad_hw(dz, kh - 1) if kh == kw else None
        assert dzp is not None, "square kernels only"
        out = [n, oh + kh - 1, ow + kw - 1, c]
        z = self.filled(out, 0.0)
        dims = "(d0, d1, d2, d3, d4, d5, d6)"
        return self.generic(
            "dinput", [dzp, k],
            ["affine_map<%s -> (d0, d1 - d4 + %d, d2 - d5 + %d, d6)>" % (dims, kh - 1, kw - 1),
             "affine_map<%s -> (d4, d5, d3, d6)>" % dims], out,
            lambda a: (["%%p = arith.mulf %s, %s : %s" % (a[0], a[1], self.dtype),
                        "%%r = arith.addf %%acc, %%p : %s" % self.dtype], "%r"),
            iters=["parallel"] * 4 + ["reduction"] * 3,
            init=(z, "affine_map<%s -> (d0, d1, d2, d3)>" % dims))

    def channel_bias_add(self, x, bias):
        return self.generic("biased", [x, bias],
                            [ident_map(4), "affine_map<(d0, d1, d2, d3) -> (d3)>"],
                            self.shapes[x], lambda a: (
            ["%%s = arith.addf %s, %s : %s" % (a[0], a[1], self.dtype)], "%s"))

    def spatial_mean(self, x):
        """[N,H,W,C] -> [N,C] mean over H and W."""
        n, h, w, c = self.shapes[x]
        z = self.filled([n, c], 0.0)
        f = self.const(1.0 / (h * w))
        dims = "(d0, d1, d2, d3)"
        return self.generic("pooled", [x], [ident_map(4)], [n, c], lambda a: (
            ["%%p = arith.mulf %s, %s : %s" % (a[0], f, self.dtype),
             "%%r = arith.addf %%acc, %%p : %s" % self.dtype], "%r"),
            iters=["parallel", "reduction", "reduction", "parallel"],
            init=(z, "affine_map<%s -> (d0, d3)>" % dims))

    def spatial_mean_grad(self, g, shape):
        n, h, w, c = shape
        f = self.const(1.0 / (h * w))
        return self.generic("dpooled", [g], ["affine_map<(d0, d1, d2, d3) -> (d0, d3)>"],
                            shape, lambda a: (
            ["%%r = arith.mulf %s, %s : %s" % (a[0], f, self.dtype)], "%r"))

    # -- Element-wise helpers ---------------------------------------------===#

    def add(self, a, b):
        return self.ewise("add", [a, b], lambda x: (
            ["%%s = arith.addf %s, %s : %s" % (x[0], x[1], self.dtype)], "%s"))

    def sub(self, a, b):
        return self.ewise("sub", [a, b], lambda x: (
            ["%%s = arith.subf %s, %s : %s" % (x[0], x[1], self.dtype)], "%s"))

    def mul(self, a, b):
        return self.ewise("mul", [a, b], lambda x: (
            ["%%s = arith.mulf %s, %s : %s" % (x[0], x[1], self.dtype)], "%s"))

    def scale(self, a, s):
        c = self.const(s)
        return self.ewise("scaled", [a], lambda x: (
            ["%%s = arith.mulf %s, %s : %s" % (x[0], c, self.dtype)], "%s"))

    def relu(self, a):
        c = self.const(0.0)
        return self.ewise("relu", [a], lambda x: (
            ["%%r = arith.maximumf %s, %s : %s" % (x[0], c, self.dtype)], "%r"))

    def relu_grad(self, z, g):
        c = self.const(0.0)
        return self.ewise("drelu", [z, g], lambda x: (
            ["%%p = arith.cmpf ogt, %s, %s : %s" % (x[0], c, self.dtype),
             "%%r = arith.select %%p, %s, %s : %s" % (x[1], c, self.dtype)], "%r"))

    def bias_add(self, a, b):
        m, n = self.shapes[a]
        return self.generic("biased", [a, b],
                            [ident_map(2), "affine_map<(d0, d1) -> (d1)>"],
                            [m, n], lambda x: (
            ["%%s = arith.addf %s, %s : %s" % (x[0], x[1], self.dtype)], "%s"))

    def sgd(self, p, g):
        c = self.const(LR)
        return self.ewise("new", [p, g], lambda x: (
            ["%%s = arith.mulf %s, %s : %s" % (c, x[1], self.dtype),
             "%%r = arith.subf %s, %%s : %s" % (x[0], self.dtype)], "%r"))

    def row_softmax_parts(self, a):
        """Returns (max, exp(a - max), sum exp) over the last dim of a 2-D a."""
        m = self.reduce("rowmax", a, 1, "arith.maximumf", -3.4028234663852886e+38)
        e = self.generic("exp", [a, m], [ident_map(2), "affine_map<(d0, d1) -> (d0)>"],
                         self.shapes[a], lambda x: (
            ["%%d = arith.subf %s, %s : %s" % (x[0], x[1], self.dtype),
             "%%e = math.exp %%d : %s" % self.dtype], "%e"))
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
        kh = b.shapes[k][0]
        n, h, w, c = b.shapes[x]
        p = (kh - 1) // 2
        xp = self.record(b.pad_hw(x, p), [x], lambda g: [b.slice_hw(g, p, h, w)])
        conv = b.conv(xp, k)

        def bw(g):
            dxp = b.conv_input_grad(g, k) if xp in self.needs else None
            dk = b.conv_filter_grad(xp, g, b.shapes[k]) if k in self.needs else None
            return [dxp, dk]
        conv = self.record(conv, [xp, k], bw)
        out = b.channel_bias_add(conv, bias)
        return self.record(out, [conv, bias], lambda g: [
            g, b.reduce("dbias", g, [0, 1, 2], "arith.addf", 0.0)
            if bias in self.needs else None])

    def spatial_mean(self, x):
        b = self.b
        shape = b.shapes[x]
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
        _, e, s = b.row_softmax_parts(a)
        p = b.generic("softmax", [e, s], [ident_map(2), "affine_map<(d0, d1) -> (d0)>"],
                      b.shapes[a], lambda x: (
            ["%%r = arith.divf %s, %s : %s" % (x[0], x[1], b.dtype)], "%r"))

        def bw(g):
            gp = b.mul(g, p)
            dot = b.reduce("gpsum", gp, 1, "arith.addf", 0.0)
            return [b.generic("dsoftmax", [p, g, dot],
                              [ident_map(2), ident_map(2), "affine_map<(d0, d1) -> (d0)>"],
                              b.shapes[a], lambda x: (
                ["%%d = arith.subf %s, %s : %s" % (x[1], x[2], b.dtype),
                 "%%r = arith.mulf %s, %%d : %s" % (x[0], b.dtype)], "%r"))]
        return self.record(p, [a], bw)

    def layernorm(self, x, gamma, beta, eps=1e-5):
        """Row layer normalisation y = xhat * gamma + beta with
        xhat = (x - mean) / sqrt(var + eps); backward
        dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)),
        dxhat = g * gamma, dgamma = sum_rows(g * xhat), dbeta = sum_rows(g)."""
        b = self.b
        rows, d = b.shapes[x]
        col = "affine_map<(d0, d1) -> (d0)>"
        row = "affine_map<(d0, d1) -> (d1)>"
        inv_d = b.const(1.0 / d)
        dt = b.dtype
        total = b.reduce("lnsum", x, 1, "arith.addf", 0.0)
        xc = b.generic("centered", [x, total], [ident_map(2), col], [rows, d], lambda a: (
            ["%%m = arith.mulf %s, %s : %s" % (a[1], inv_d, dt),
             "%%r = arith.subf %s, %%m : %s" % (a[0], dt)], "%r"))
        sq = b.reduce("lnsq", b.mul(xc, xc), 1, "arith.addf", 0.0)
        epsc = b.const(eps)
        rstd = b.generic("rstd", [sq], [ident_map(1)], [rows], lambda a: (
            ["%%v = arith.mulf %s, %s : %s" % (a[0], inv_d, dt),
             "%%e = arith.addf %%v, %s : %s" % (epsc, dt),
             "%%r = math.rsqrt %%e : %s" % dt], "%r"))
        xhat = b.generic("xhat", [xc, rstd], [ident_map(2), col], [rows, d], lambda a: (
            ["%%r = arith.mulf %s, %s : %s" % (a[0], a[1], dt)], "%r"))
        y = b.generic("normed", [xhat, gamma, beta], [ident_map(2), row, row], [rows, d],
                      lambda a: (["%%m = arith.mulf %s, %s : %s" % (a[0], a[1], dt),
                                  "%%r = arith.addf %%m, %s : %s" % (a[2], dt)], "%r"))

        def bw(g):
            dgamma = (b.reduce("dgamma", b.mul(g, xhat), 0, "arith.addf", 0.0)
                      if gamma in self.needs else None)
            dbeta = b.reduce("dbeta", g, 0, "arith.addf", 0.0) if beta in self.needs else None
            dx = None
            if x in self.needs:
                dxhat = b.generic("dxhat", [g, gamma], [ident_map(2), row], [rows, d],
                                  lambda a: (["%%r = arith.mulf %s, %s : %s" %
                                              (a[0], a[1], dt)], "%r"))
                s1 = b.reduce("dxhatsum", dxhat, 1, "arith.addf", 0.0)
                s2 = b.reduce("dxhatdot", b.mul(dxhat, xhat), 1, "arith.addf", 0.0)
                dx = b.generic("dln", [dxhat, xhat, s1, s2, rstd],
                               [ident_map(2), ident_map(2), col, col, col], [rows, d],
                               lambda a: (
                    ["%%m1 = arith.mulf %s, %s : %s" % (a[2], inv_d, dt),
                     "%%m2 = arith.mulf %s, %s : %s" % (a[3], inv_d, dt),
                     "%%t = arith.mulf %s, %%m2 : %s" % (a[1], dt),
                     "%%u = arith.subf %s, %%m1 : %s" % (a[0], dt),
                     "%%w = arith.subf %%u, %%t : %s" % dt,
                     "%%r = arith.mulf %%w, %s : %s" % (a[4], dt)], "%r"))
            return [dx, dgamma, dbeta]
        return self.record(y, [x, gamma, beta], bw)

    def softmax_ce(self, logits, y):
        """loss = -(1/rows) sum y * log_softmax(logits); seeds the backward
        with dlogits = (softmax - y) / rows."""
        b = self.b
        rows = b.shapes[logits][0]
        m, e, s = b.row_softmax_parts(logits)
        logp = b.generic("logp", [logits, m, s],
                         [ident_map(2), "affine_map<(d0, d1) -> (d0)>",
                          "affine_map<(d0, d1) -> (d0)>"], b.shapes[logits],
                         lambda x: (
            ["%%d = arith.subf %s, %s : %s" % (x[0], x[1], b.dtype),
             "%%l = math.log %s : %s" % (x[2], b.dtype),
             "%%r = arith.subf %%d, %%l : %s" % b.dtype], "%r"))
        loss = self._scalar_sum(y, logp, -1.0 / rows)

        def seed():
            c = b.const(1.0 / rows)
            return b.generic("dlogits", [e, s, y],
                             [ident_map(2), "affine_map<(d0, d1) -> (d0)>", ident_map(2)],
                             b.shapes[logits], lambda x: (
                ["%%p = arith.divf %s, %s : %s" % (x[0], x[1], b.dtype),
                 "%%d = arith.subf %%p, %s : %s" % (x[2], b.dtype),
                 "%%r = arith.mulf %%d, %s : %s" % (c, b.dtype)], "%r"))
        self.loss_grad = (logits, seed)
        return loss

    def mse(self, out, target):
        """loss = 0.5/rows * sum (out - target)^2; seeds d out = (out - t)/rows."""
        b = self.b
        rows = b.shapes[out][0]
        diff = b.sub(out, target)
        loss = self._scalar_sum(diff, diff, 0.5 / rows)
        self.loss_grad = (out, lambda: b.scale(diff, 1.0 / rows))
        return loss

    def _scalar_sum(self, x, y, factor):
        """factor * sum(x * y) as a tensor<dtype>."""
        b = self.b
        rank = len(b.shapes[x])
        z = b.filled([], 0.0)
        dims = ", ".join("d%d" % i for i in range(rank))
        acc = b.generic("dot", [x, y], [ident_map(rank)] * 2, [],
                        lambda a: (
            ["%%p = arith.mulf %s, %s : %s" % (a[0], a[1], b.dtype),
             "%%r = arith.addf %%acc, %%p : %s" % b.dtype], "%r"),
                        iters=["reduction"] * rank,
                        init=(z, "affine_map<(%s) -> ()>" % dims))
        c = b.const(factor)
        return b.generic("loss", [acc], ["affine_map<() -> ()>"], [], lambda a: (
            ["%%r = arith.mulf %s, %s : %s" % (a[0], c, b.dtype)], "%r"))

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
        h = "%x"
        for i in range(o.blocks):
            b.comment("Residual block %d: h = h + conv(relu(conv(h, K1) + c1), K2) + c2 "
                      "(3x3, same padding)." % i)
            u = t.relu(t.conv_same(h, P["k1_%d" % i], P["c1_%d" % i]))
            h = t.add(h, t.conv_same(u, P["k2_%d" % i], P["c2_%d" % i]))
        b.comment("Global average pooling, head and softmax cross-entropy.")
        return t.softmax_ce(t.linear(t.spatial_mean(h), P["wout"], P["bout"]), "%y")
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
        h = "%x"
        for i in range(o.blocks):
            b.comment("Residual block %d: h = h + relu(h W1 + b1) W2 + b2." % i)
            u = t.relu(t.linear(h, P["w1_%d" % i], P["b1_%d" % i]))
            h = t.add(h, t.linear(u, P["w2_%d" % i], P["b2_%d" % i]))
        b.comment("Head and softmax cross-entropy.")
        return t.softmax_ce(t.linear(h, P["wout"], P["bout"]), "%y")
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
        enc = ["%x"]
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
        return t.mse(d, "%target")
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
        h = "%x"
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
        return t.softmax_ce(t.linear(h, P["wout"], P["bout"]), "%y")
    return params, inputs, body


def declare(b, t, params, inputs):
    P = {}
    for name, shape in params:
        P[name] = t.param("%" + name)
        b.shapes["%" + name] = shape
    for name, shape in inputs:
        b.shapes["%" + name] = shape
    return P


MODELS = {"resnet": model_resnet, "unet": model_unet, "transformer": model_transformer}


def gen_step(o):
    b = Builder(o.dtype)
    t = Tape(b)
    params, inputs, body = MODELS[o.model](b, t, o)
    b.comment("=== Forward ===")
    loss = body()
    b.comment("=== Backward ===")
    grads = t.backward()
    b.comment("=== SGD update: p' = p - %s * dp ===" % fmt_float(LR))
    news = [b.sgd("%" + n, grads["%" + n]) for n, _ in params]
    fn = o.name
    args = ", ".join("%%%s: %s" % (n, b.ty(s)) for n, s in params + inputs)
    res_t = [b.ty([])] + [b.ty(s) for _, s in params]
    out = ["func.func @%s(%s)" % (fn, args),
           "    -> (%s) {" % ", ".join(res_t)]
    out += b.const_lines()
    out += b.lines
    out.append("  return %s" % ", ".join([loss] + news))
    out.append("      : %s" % ", ".join(res_t))
    out.append("}")
    return "\n".join(out) + "\n"


# ===----------------------------------------------------------------------===#
# Drivers.
# ===----------------------------------------------------------------------===#

TYPE_RE = re.compile(r"tensor<((?:\d+x)*)(f32|f64)>")


def parse_type(s):
    m = TYPE_RE.fullmatch(s.strip())
    if not m:
        raise SystemExit("error: unsupported type '%s' (static f32/f64 tensors only)" % s)
    dims = [int(d) for d in m.group(1).split("x") if d]
    return dims, m.group(2)


def parse_signature(text, name=None):
    """Returns (fn, [(arg, shape)], [result shapes], dtype) of the step: the
    function named `name`, else the first function following the training-step
    convention (loss first, then one updated tensor per leading parameter
    argument). Exits with an error when there is none."""
    pat = r"func\.func\s+@(\w+)\s*\((.*?)\)\s*->\s*\((.*?)\)\s*\{"
    for m in re.finditer(pat, text, re.S):
        fn = m.group(1)
        if name and fn != name:
            continue
        args, dtypes = [], set()
        for a in re.findall(r"%(\w+)\s*:\s*(tensor<[^>]*>)", m.group(2)):
            shape, dtype = parse_type(a[1])
            args.append((a[0], shape))
            dtypes.add(dtype)
        results = [parse_type(r)[0] for r in re.findall(r"tensor<[^>]*>", m.group(3))]
        nparams = len(results) - 1
        if len(dtypes) != 1:
            problem = "arguments must share one element type"
        elif not results or results[0] != []:
            problem = "the first result must be the loss, a 0-d tensor"
        elif nparams > len(args) or any(results[1 + i] != args[i][1]
                                        for i in range(nparams)):
            problem = ("results 1..%d must have the types of the first %d "
                       "arguments (the updated parameters)" % (nparams, nparams))
        else:
            return fn, args, results, dtypes.pop()
        if name:
            raise SystemExit("error: @%s: %s" % (fn, problem))
    if name:
        raise SystemExit("error: no function @%s returning tensors found" % name)
    raise SystemExit("error: no training-step function found (one returning the "
                     "loss as a 0-d tensor, then the updated parameters)")


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


class Driver:
    def __init__(self, dtype):
        self.dtype = dtype
        self.helpers = {}
        self.lines = []
        self.n = 0

    def ty(self, shape):
        if not shape:
            return "tensor<%s>" % self.dtype
        return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), self.dtype)

    def fresh(self):
        self.n += 1
        return "%%v%d" % self.n

    def emit(self, line):
        self.lines.append("  " + line)

    def init_fn(self, shape):
        """@init_<shape>(freq, phase, scale): v[k] = scale * sin(freq*k + phase),
        evaluated in f64 and rounded once to the element type, so that f32 and
        f64 drivers (and examples/gen/reference.py) start from the same data."""
        name = "init_" + ("x".join(str(d) for d in shape) or "s")
        if name in self.helpers:
            return name
        r = len(shape)
        dt = self.dtype
        strides = [1] * r
        for i in reversed(range(r - 1)):
            strides[i] = strides[i + 1] * shape[i + 1]
        body = ["func.func private @%s(%%freq: f64, %%phase: f64, %%scale: f64) -> %s {"
                % (name, self.ty(shape)),
                "  %%e = tensor.empty() : %s" % self.ty(shape),
                "  %%r = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}"
                % (ident_map(r), ", ".join(['"parallel"'] * r)),
                "      outs(%%e : %s) {" % self.ty(shape),
                "  ^bb0(%%out: %s):" % dt]
        terms = []
        for i in range(r):
            body.append("    %%i%d = linalg.index %d : index" % (i, i))
            body.append("    %%s%d = arith.constant %d : index" % (i, strides[i]))
            body.append("    %%t%d = arith.muli %%i%d, %%s%d : index" % (i, i, i))
            terms.append("%%t%d" % i)
        acc = terms[0]
        for i in range(1, r):
            body.append("    %%k%d = arith.addi %s, %s : index" % (i, acc, terms[i]))
            acc = "%%k%d" % i
        body += ["    %%ki = arith.index_cast %s : index to i64" % acc,
                 "    %kf = arith.sitofp %ki : i64 to f64",
                 "    %a = arith.mulf %kf, %freq : f64",
                 "    %b = arith.addf %a, %phase : f64",
                 "    %c = math.sin %b : f64",
                 "    %d = arith.mulf %c, %scale : f64"]
        if dt == "f64":
            body.append("    linalg.yield %d : f64")
        else:
            body += ["    %%t = arith.truncf %%d : f64 to %s" % dt,
                     "    linalg.yield %%t : %s" % dt]
        body += ["  } -> %s" % self.ty(shape),
                 "  return %%r : %s" % self.ty(shape),
                 "}"]
        self.helpers[name] = "\n".join(body)
        return name

    def onehot_fn(self, shape):
        """@onehot_<shape>(): y[b, c] = (c == (3 b + 1) mod C) for 2-D shapes."""
        name = "onehot_" + "x".join(str(d) for d in shape)
        if name in self.helpers:
            return name
        assert len(shape) == 2
        dt = self.dtype
        self.helpers[name] = "\n".join([
            "func.func private @%s() -> %s {" % (name, self.ty(shape)),
            "  %%e = tensor.empty() : %s" % self.ty(shape),
            "  %%r = linalg.generic {indexing_maps = [%s], iterator_types = [\"parallel\", \"parallel\"]}"
            % ident_map(2),
            "      outs(%%e : %s) {" % self.ty(shape),
            "  ^bb0(%%out: %s):" % dt,
            "    %i = linalg.index 0 : index",
            "    %j = linalg.index 1 : index",
            "    %c1 = arith.constant 1 : index",
            "    %c3 = arith.constant 3 : index",
            "    %%cc = arith.constant %d : index" % shape[1],
            "    %a = arith.muli %i, %c3 : index",
            "    %b = arith.addi %a, %c1 : index",
            "    %l = arith.remui %b, %cc : index",
            "    %eq = arith.cmpi eq, %j, %l : index",
            "    %%one = arith.constant 1.0 : %s" % dt,
            "    %%zero = arith.constant 0.0 : %s" % dt,
            "    %%v = arith.select %%eq, %%one, %%zero : %s" % dt,
            "    linalg.yield %%v : %s" % dt,
            "  } -> %s" % self.ty(shape),
            "  return %%r : %s" % self.ty(shape),
            "}"])
        return name

    def sum_fn(self, shape):
        """@sum_<shape>(t) -> dtype: sum of all elements."""
        name = "sum_" + ("x".join(str(d) for d in shape) or "s")
        if name in self.helpers:
            return name
        r = len(shape)
        dt = self.dtype
        dims = ", ".join("d%d" % i for i in range(r))
        self.helpers[name] = "\n".join([
            "func.func private @%s(%%t: %s) -> %s {" % (name, self.ty(shape), dt),
            "  %%zero = arith.constant 0.0 : %s" % dt,
            "  %%e = tensor.empty() : %s" % self.ty([]),
            "  %%z = linalg.fill ins(%%zero : %s) outs(%%e : %s) -> %s"
            % (dt, self.ty([]), self.ty([])),
            "  %%r = linalg.generic {indexing_maps = [%s, affine_map<(%s) -> ()>], iterator_types = [%s]}"
            % (ident_map(r), dims, ", ".join(['"reduction"'] * r)),
            "      ins(%%t : %s) outs(%%z : %s) {" % (self.ty(shape), self.ty([])),
            "  ^bb0(%%in: %s, %%acc: %s):" % (dt, dt),
            "    %%s = arith.addf %%in, %%acc : %s" % dt,
            "    linalg.yield %%s : %s" % dt,
            "  } -> %s" % self.ty([]),
            "  %%v = tensor.extract %%r[] : %s" % self.ty([]),
            "  return %%v : %s" % dt,
            "}"])
        return name

    def axpy_fn(self, shape):
        """@axpy_<shape>(a, x, y) -> a * x + y."""
        name = "axpy_" + "x".join(str(d) for d in shape)
        if name in self.helpers:
            return name
        r = len(shape)
        dt = self.dtype
        t = self.ty(shape)
        self.helpers[name] = "\n".join([
            "func.func private @%s(%%a: %s, %%x: %s, %%y: %s) -> %s {" % (name, dt, t, t, t),
            "  %%e = tensor.empty() : %s" % t,
            "  %%r = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = [%s]}"
            % (ident_map(r), ident_map(r), ident_map(r), ", ".join(['"parallel"'] * r)),
            "      ins(%%x, %%y : %s, %s) outs(%%e : %s) {" % (t, t, t),
            "  ^bb0(%%xv: %s, %%yv: %s, %%out: %s):" % (dt, dt, dt),
            "    %%m = arith.mulf %%a, %%xv : %s" % dt,
            "    %%s = arith.addf %%m, %%yv : %s" % dt,
            "    linalg.yield %%s : %s" % dt,
            "  } -> %s" % t,
            "  return %%r : %s" % t,
            "}"])
        return name

    def mulall_fn(self, shape):
        """@scale_<shape>(t, a) -> a * t."""
        name = "scale_" + "x".join(str(d) for d in shape)
        if name in self.helpers:
            return name
        r = len(shape)
        dt = self.dtype
        t = self.ty(shape)
        self.helpers[name] = "\n".join([
            "func.func private @%s(%%x: %s, %%a: %s) -> %s {" % (name, t, dt, t),
            "  %%e = tensor.empty() : %s" % t,
            "  %%r = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]}"
            % (ident_map(r), ident_map(r), ", ".join(['"parallel"'] * r)),
            "      ins(%%x : %s) outs(%%e : %s) {" % (t, t),
            "  ^bb0(%%xv: %s, %%out: %s):" % (dt, dt),
            "    %%m = arith.mulf %%a, %%xv : %s" % dt,
            "    linalg.yield %%m : %s" % dt,
            "  } -> %s" % t,
            "  return %%r : %s" % t,
            "}"])
        return name

    def dot_fn(self, shape):
        """@dot_<shape>(x, y) -> sum(x * y)."""
        name = "dot_" + "x".join(str(d) for d in shape)
        if name in self.helpers:
            return name
        r = len(shape)
        dt = self.dtype
        t = self.ty(shape)
        dims = ", ".join("d%d" % i for i in range(r))
        self.helpers[name] = "\n".join([
            "func.func private @%s(%%x: %s, %%y: %s) -> %s {" % (name, t, t, dt),
            "  %%zero = arith.constant 0.0 : %s" % dt,
            "  %%e = tensor.empty() : %s" % self.ty([]),
            "  %%z = linalg.fill ins(%%zero : %s) outs(%%e : %s) -> %s"
            % (dt, self.ty([]), self.ty([])),
            "  %%r = linalg.generic {indexing_maps = [%s, %s, affine_map<(%s) -> ()>], iterator_types = [%s]}"
            % (ident_map(r), ident_map(r), dims, ", ".join(['"reduction"'] * r)),
            "      ins(%%x, %%y : %s, %s) outs(%%z : %s) {" % (t, t, self.ty([])),
            "  ^bb0(%%xv: %s, %%yv: %s, %%acc: %s):" % (dt, dt, dt),
            "    %%m = arith.mulf %%xv, %%yv : %s" % dt,
            "    %%s = arith.addf %%m, %%acc : %s" % dt,
            "    linalg.yield %%s : %s" % dt,
            "  } -> %s" % self.ty([]),
            "  %%v = tensor.extract %%r[] : %s" % self.ty([]),
            "  return %%v : %s" % dt,
            "}"])
        return name

    def loss_only_fn(self, fn, shapes, results):
        """@<fn>_loss(args) -> loss as a scalar: keeps the many updated-parameter
        results of the step inside one function, so that the deallocation pipeline
        bookkeeping for them is emitted once instead of at every call site."""
        name = fn + "_loss"
        if name in self.helpers:
            return name
        dt = self.dtype
        args = ", ".join("%%p%d: %s" % (i, self.ty(s)) for i, s in enumerate(shapes))
        self.helpers[name] = "\n".join([
            "func.func private @%s(%s) -> %s {" % (name, args, dt),
            "  %%r:%d = func.call @%s(%s) : (%s) -> (%s)" %
            (len(results), fn, ", ".join("%%p%d" % i for i in range(len(shapes))),
             ", ".join(self.ty(s) for s in shapes), ", ".join(self.ty(s) for s in results)),
            "  %%l = tensor.extract %%r#0[] : %s" % self.ty([]),
            "  return %%l : %s" % dt,
            "}"])
        return name

    def const(self, v, dtype=None):
        c = self.fresh()
        self.emit("%s = arith.constant %s : %s" % (c, fmt_float(v), dtype or self.dtype))
        return c

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
        out = ["func.func @main() {"] + self.lines + ["  return", "}"]
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
    main_lines = d.lines
    checks = []
    for i in range(nparams):
        if only and not re.search(only, args[i][0]):
            continue
        s = shapes[i]
        name = "gradcheck_" + args[i][0]
        d.lines = []
        d.n = 0
        params = ["%%arg%d" % j for j in range(len(shapes))]
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
                   (lv, d.loss_only_fn(fn, shapes, results), ", ".join(a), arg_types, dtype))
            losses.append(lv)
        delta = d.fresh()
        d.emit("%s = arith.subf %s, %s : %s" % (delta, losses[0], losses[1], dtype))
        fd = d.fresh()
        d.emit("%s = arith.mulf %s, %s : %s" % (fd, delta, d.const(1.0 / (2 * eps)), dtype))
        d.emit("return %s, %s : %s, %s" % (an, fd, dtype, dtype))
        sig = ", ".join("%s: %s" % (p, d.ty(t)) for p, t in zip(params, shapes))
        d.helpers[name] = "\n".join(
            ["func.func private @%s(%s, %%new: %s) -> (%s, %s) {" %
             (name, sig, d.ty(s), dtype, dtype)] + d.lines + ["}"])
        checks.append((i, name))

    if not checks:
        raise SystemExit("error: --only '%s' matches no parameter" % only)
    d.lines = main_lines
    d.n = 10000
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
    fn, args, results, dtype = parse_signature(text, name)
    nparams = len(results) - 1
    if nparams == len(args):
        raise SystemExit("error: @%s has no input argument to split" % fn)
    for a, shape in args[nparams:]:
        if not shape or shape[0] % ranks:
            raise SystemExit("error: input %%%s: batch %s is not a multiple of "
                             "%d ranks" % (a, shape[0] if shape else "(scalar)",
                                           ranks))
    m = re.search(r"func\.func\s+@%s\s*\(.*?\)\s*->\s*\(.*?\)\s*\{\n" % fn,
                  text, re.S)
    end = text.index("\n}\n", m.end())
    body = text[m.end():end]
    lines = ["  // Data parallel over %d ranks: inputs split along the batch, "
             "parameters replicated." % ranks,
             "  %dp_batch = shard.sharding @dp split_axes = [[0]] : !shard.sharding",
             "  %dp_replicated = shard.sharding @dp split_axes = [[]] : !shard.sharding"]
    for i, (a, shape) in enumerate(args):
        sharding = "%dp_replicated" if i < nparams else "%dp_batch"
        ty = "tensor<%s%s>" % ("".join("%dx" % d for d in shape), dtype)
        lines.append("  %%%s_dp = shard.shard %%%s to %s annotate_for_users : %s"
                     % (a, a, sharding, ty))
        body = re.sub(r"%%%s\b" % a, "%%%s_dp" % a, body)
    grid = "shard.grid @dp(shape = %d)\n\n" % ranks
    start = text.rfind("\n", 0, m.start()) + 1
    return (text[:start] + grid + text[start:m.end()] + "\n".join(lines) +
            "\n\n" + body + text[end:])


def emit_driver(text, o, name=None):
    fn, args, results, dtype = parse_signature(text, name)
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
        body = emit_driver(text, o, o.name)
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
    step = gen_step(o)
    out = header + step
    if o.main != "none":
        out += "\n" + emit_driver(step, o, o.name)
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
