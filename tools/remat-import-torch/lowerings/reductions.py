"""Sums, means, maxima, variances and the k largest over dimensions:
linalg.generic reductions (mlir_emitter.Emitter.reduce_generic)."""

from mlir_emitter import affine_map, identity_map, is_float

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


@lowering("aten.topk")
def topk(cx, n):
    """(values, indices) of the k largest elements along the last dimension,
    largest first: k passes, pass j a generic over (outer.., i), i a
    reduction in order, keeping the largest element whose index no earlier
    pass took (ties: the lowest index first; PyTorch leaves their order
    unspecified). The smallest (largest=False) and other dimensions are
    Unsupported; NaNs are never taken."""
    x = cx.val(n.args[0])
    k = n.args[1]
    dim = (n.args[2] if len(n.args) > 2 else -1) % max(x.rank, 1)
    largest = n.args[3] if len(n.args) > 3 else True
    if not largest or dim != x.rank - 1 or not is_float(x.elt):
        raise Unsupported(cx.op + " (smallest, not the last dimension, or not floats)")
    e, outer = cx.e, x.shape[:-1]
    values = e.empty(outer + [k], x.elt)
    indices = e.empty(outer + [k], "i64")
    taken = []
    for j in range(k):
        v, i = largest_untaken(e, x, taken)
        at, sizes = [0] * len(outer) + [j], outer + [1]
        values = e.insert_slice(v, values, at, sizes, [1] * x.rank)
        indices = e.insert_slice(i, indices, at, sizes, [1] * x.rank)
        taken.append(i)
    return (values, indices)


def largest_untaken(e, x, taken):
    """(value, index), each of x's shape without its last dimension, of the
    largest element of every row of x whose index is none of `taken`."""
    r, elt = x.rank, x.elt
    row = affine_map(r, ["d%d" % d for d in range(r - 1)])

    def body(b, a):
        i = b.cast("arith.index_cast", b.index(r - 1, "i"), "index", "i64", "ii")
        keep = b.op("arith.cmpf", ["ogt", a[0], a[-2]], elt, "gt")
        for t in a[1:-2]:
            new = b.op("arith.cmpi", ["ne", i, t], "i64", "new")
            keep = b.op("arith.andi", [keep, new], "i1", "keep")
        return [b.op("arith.select", [keep, a[0], a[-2]], elt, "m"),
                b.op("arith.select", [keep, i, a[-1]], "i64", "at")]

    outs = [e.filled(x.shape[:-1], elt, float("-inf")), e.filled(x.shape[:-1], "i64", 0)]
    return e.generic([x] + taken, [identity_map(r)] + [row] * len(taken), outs,
                     [row, row], ["parallel"] * (r - 1) + ["reduction"], body, hint="top")
