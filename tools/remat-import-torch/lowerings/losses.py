"""The loss and its gradient's one-hot scatter: nll_loss_forward (mean
over the batch) and scatter of one value per row."""

import torch

from mlir_emitter import Value, affine_map, hex_float, tensor_type

from .registry import Unsupported, lowering


def class_hit(b, label):
    """Payload: whether this iteration's class (linalg.index 1) is `label`."""
    ci = b.cast("arith.index_cast", b.index(1, "c"), "index", "i64", "ci")
    return b.op("arith.cmpi", ["eq", ci, label], "i64", "hit")


@lowering("aten.nll_loss_forward")
def nll_loss(cx, n):
    """(-mean over rows of x[row, label[row]], total weight N)."""
    e = cx.e
    x, t = cx.val(n.args[0]), cx.val(n.args[1])
    weight, reduction = n.args[2], n.args[3]
    if weight is not None or reduction != 1 or x.rank != 2:
        raise Unsupported("aten.nll_loss_forward (weights, reduction other than mean, "
                          "or not 2-D)")
    elt, N = x.elt, x.shape[0]
    init = e.filled([], elt, 0.0)

    def body(b, a):
        hit = class_hit(b, a[1])
        v = b.op("arith.select", [hit, a[0], b.const("0.0", elt, "z")], elt, "v")
        return b.op("arith.subf", [a[2], v], elt)

    tot = e.generic([x, t], [affine_map(2, ["d0", "d1"]), affine_map(2, ["d0"])], [init],
                    [affine_map(2, [])], ["reduction", "reduction"], body, hint="nll")[0]
    loss = e.elementwise([tot, 1.0 / N], [], elt, lambda b, s: b.op("arith.mulf", s, elt))
    total = e.constant("dense<%s>" % hex_float(float(N), elt), tensor_type([], elt))
    return (loss, Value(total, [], elt))


@lowering("aten.scatter")
def scatter_value(cx, n):
    """src with src[row, index[row, 0]] = value (a constant)."""
    args = n.args
    if len(args) != 4 or isinstance(args[3], torch.fx.Node):
        raise Unsupported(cx.op)
    src, dim, index, value = cx.val(args[0]), args[1], cx.val(args[2]), args[3]
    if src.rank != 2 or dim != 1 or index.shape != [src.shape[0], 1]:
        raise Unsupported("aten.scatter (other than one value per row)")
    elt = src.elt
    init = cx.e.empty(src.shape, elt)

    def body(b, a):
        hit = class_hit(b, a[1])
        return b.op("arith.select", [hit, b.const(hex_float(value, elt), elt, "val"), a[0]],
                    elt)

    return cx.e.generic([src, index], [affine_map(2, ["d0", "d1"]), affine_map(2, ["d0", "0"])],
                        [init], [affine_map(2, ["d0", "d1"])], ["parallel", "parallel"],
                        body, hint="sc")[0]
