"""New tensors: empty, constant-filled, scalar constants, and dropout's
random mask (an argument of the step)."""

from mlir_emitter import Value, hex_float, tensor_type

from .registry import element_type, lowering


@lowering("aten.empty", "aten.empty_like")
def empty(cx, n):
    return cx.e.empty(cx.shape, cx.elt)


@lowering("aten.zeros", "aten.zeros_like", "aten.new_zeros")
def zeros(cx, n):
    return cx.e.filled(cx.shape, cx.elt, 0.0 if cx.elt.startswith("f") else 0)


@lowering("aten.ones", "aten.ones_like", "aten.new_ones")
def ones(cx, n):
    return cx.e.filled(cx.shape, cx.elt, 1.0 if cx.elt.startswith("f") else 1)


@lowering("aten.full")
def full(cx, n):
    return cx.e.filled(cx.shape, cx.elt, n.args[1])


@lowering("aten.scalar_tensor")
def scalar_tensor(cx, n):
    t = tensor_type([], cx.elt)
    return Value(cx.e.constant("dense<%s>" % hex_float(n.args[0], cx.elt), t), [], cx.elt)


@lowering("aten.bernoulli", "aten.bernoulli_")
def bernoulli(cx, n):
    """The random mask becomes an argument of the step: recomputing the
    dropout reuses the same mask (docs/Importer.md, "Dropout")."""
    m = cx.meta(n)
    value = Value(cx.e.exact("dropout_mask_%d" % len(cx.masks)), list(m.shape),
                  element_type(m.dtype, cx.op))
    cx.masks.append((value, "%s/dropout mask" % (n.meta.get("remat_path", "") or "<top>")))
    return value
