"""New tensors: empty, constant-filled, ranges, scalar constants, and
dropout's random mask (an argument of the step)."""

import torch

from mlir_emitter import (Value, affine_map, convert_scalar as convert, hex_float,
                          identity_map, is_float, scalar_literal, tensor_type)

from .registry import Unsupported, element_type, lowering


@lowering("aten.empty", "aten.empty_like", "aten.new_empty")
def empty(cx, n):
    return cx.e.empty(cx.shape, cx.elt)


@lowering("aten.zeros", "aten.zeros_like", "aten.new_zeros", "aten.zero")
def zeros(cx, n):
    return cx.e.filled(cx.shape, cx.elt, 0.0 if cx.elt.startswith("f") else 0)


@lowering("aten.ones", "aten.ones_like", "aten.new_ones")
def ones(cx, n):
    return cx.e.filled(cx.shape, cx.elt, 1.0 if cx.elt.startswith("f") else 1)


@lowering("aten.full", "aten.full_like", "aten.new_full")
def full(cx, n):
    """A tensor of the result's shape filled with the scalar argument."""
    return cx.e.filled(cx.shape, cx.elt, n.args[-1] if cx.op == "aten.new_full"
                       else n.args[1])


@lowering("aten.fill")
def fill(cx, n):
    """The functional fill: a new tensor of x's shape holding `value` (a
    scalar, or a 0-d tensor broadcast)."""
    value = cx.val(n.args[1])
    if not isinstance(value, Value):
        return cx.e.filled(cx.shape, cx.elt, value)
    if value.rank:
        raise Unsupported(cx.op + " (value of rank %d)" % value.rank)
    init = cx.e.empty(cx.shape, cx.elt)
    r = len(cx.shape)
    return cx.e.generic([value], [affine_map(r, [])], [init], [identity_map(r)],
                        ["parallel"] * r, lambda b, a: convert(b, a[0], value.elt, cx.elt))[0]


def arange_params(n):
    """(start, step) of aten.arange's overloads: (end), (start, end),
    (start, end, step)."""
    args = [a for a in n.args if not isinstance(a, torch.fx.Node)]
    if len(args) == 1:
        return 0, 1
    return args[0], args[2] if len(args) > 2 else 1


@lowering("aten.arange")
def arange(cx, n):
    """start + i * step: exact in integers; in floats computed in f64 and
    rounded once, as PyTorch's CPU kernel does."""
    start, step = arange_params(n)
    elt = cx.elt
    wide = elt if not is_float(elt) else "f64"

    def body(b, a):
        i = b.cast("arith.index_cast", b.index(0, "i"), "index", "i64", "ii")
        i = convert(b, i, "i64", wide, "iw")
        lit = (lambda v: hex_float(v, "f64")) if is_float(wide) else (lambda v: str(int(v)))
        add, mul = ("arith.addf", "arith.mulf") if is_float(wide) else ("arith.addi", "arith.muli")
        v = b.op(mul, [i, b.const(lit(step), wide, "step")], wide, "m")
        v = b.op(add, [v, b.const(lit(start), wide, "start")], wide, "v")
        return convert(b, v, wide, elt)

    if len(cx.shape) != 1:
        raise Unsupported(cx.op + " (not 1-D)")
    init = cx.e.empty(cx.shape, elt)
    return cx.e.generic([], [], [init], [identity_map(1)], ["parallel"], body, hint="ar")[0]


# A tensor constant of the graph (a get_attr node: swin_t's 0-d mask
# values) up to this many elements becomes an arith.constant.
MAX_CONSTANT_ELEMENTS = 1 << 16


def tensor_constant(cx, tensor, what):
    """`tensor`'s values as an arith.constant: a splat, or a 1-D dense
    literal reshaped."""
    elt, shape = element_type(tensor.dtype, what), list(tensor.shape)
    flat = tensor.detach().flatten().tolist()
    if len(flat) > MAX_CONSTANT_ELEMENTS:
        raise Unsupported("%s (%d elements)" % (what, len(flat)))
    if len(flat) == 1:
        c = cx.e.constant("dense<%s>" % scalar_literal(flat[0], elt), tensor_type(shape, elt))
        return Value(c, shape, elt)
    literal = "dense<[%s]>" % ", ".join(scalar_literal(x, elt) for x in flat)
    c = Value(cx.e.constant(literal, tensor_type([len(flat)], elt)), [len(flat)], elt)
    return cx.e.reshape(c, shape)


@lowering("aten.scalar_tensor")
def scalar_tensor(cx, n):
    t = tensor_type([], cx.elt)
    return Value(cx.e.constant("dense<%s>" % hex_float(n.args[0], cx.elt), t), [], cx.elt)


@lowering("aten.bernoulli", "aten.bernoulli_")
def bernoulli(cx, n):
    """The random mask becomes an argument of the step, drawn by the caller
    with the probability p of a 1 that it carries: recomputing the dropout
    reuses the same mask (docs/Importer.md, "Dropout")."""
    p = n.args[1] if len(n.args) > 1 else n.kwargs.get(
        "p", 0.5 if cx.op == "aten.bernoulli_" else None)
    if p is None or isinstance(p, torch.fx.Node) or not 0.0 <= float(p) <= 1.0:
        raise Unsupported(cx.op + " (probabilities from a tensor)")
    m = cx.meta(n)
    value = Value(cx.e.exact("dropout_mask_%d" % len(cx.masks)), list(m.shape),
                  element_type(m.dtype, cx.op))
    cx.masks.append((value, "%s/dropout mask" % (n.meta.get("remat_path", "") or "<top>"),
                     float(p)))
    return value
