"""Sums, means, maxima and variances over dimensions: linalg.generic
reductions (mlir_emitter.Emitter.reduce_generic)."""

from mlir_emitter import is_float

from .registry import Unsupported, lowering


def scaled(e, v, factor):
    """v * factor, element-wise."""
    return e.elementwise([v, factor], v.shape, v.elt,
                         lambda b, s: b.op("arith.mulf", s, v.elt))


def count(v, rdims):
    """The number of elements of `v` reduced over rdims."""
    c = 1
    for d in rdims:
        c *= v.shape[d]
    return c


@lowering("aten.sum", "aten.mean", "aten.amax")
def sum_mean_amax(cx, n):
    v = cx.val(n.args[0])
    if v.elt != cx.elt or not is_float(v.elt):
        raise Unsupported(cx.op + " (of %s into %s: floats only)" % (v.elt, cx.elt))
    rd = list(n.args[1]) if len(n.args) > 1 and n.args[1] is not None else []
    rd = rd or list(range(v.rank))
    res = cx.e.reduce_generic(v, rd, "max" if cx.op == "aten.amax" else "sum",
                              keep_shape=cx.shape)
    if cx.op == "aten.mean":
        res = scaled(cx.e, res, 1.0 / count(v, rd))
    return res


@lowering("prims.sum")
def prims_sum(cx, n):
    return cx.e.reduce_generic(cx.val(n.args[0]), list(n.args[1]), "sum",
                               keep_shape=cx.shape)


@lowering("prims.var")
def prims_var(cx, n):
    corr = n.kwargs.get("correction", n.args[2] if len(n.args) > 2 else 1)
    return variance(cx.e, cx.val(n.args[0]), list(n.args[1]), corr, cx.shape)


@lowering("aten.var")
def var(cx, n):
    corr = n.kwargs.get("correction", 1)
    return variance(cx.e, cx.val(n.args[0]), list(n.args[1]),
                    1 if corr is None else corr, cx.shape)


def variance(e, v, rd, corr, shape):
    """Two-pass variance of `v` over rd with Bessel correction corr,
    reshaped to `shape`."""
    elt = v.elt
    rd = [d % v.rank for d in rd]
    cnt = count(v, rd)
    keep = [1 if i in rd else s for i, s in enumerate(v.shape)]
    mean = scaled(e, e.reduce_generic(v, rd, "sum", keep_shape=keep), 1.0 / cnt)

    def square_diff(b, s):
        d = b.op("arith.subf", s, elt, "d")
        return b.op("arith.mulf", [d, d], elt)

    sq = e.elementwise([v, mean], v.shape, elt, square_diff)
    return scaled(e, e.reduce_generic(sq, rd, "sum", keep_shape=shape), 1.0 / (cnt - corr))
