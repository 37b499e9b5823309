"""Matrix products: linalg.matmul and linalg.batch_matmul (bf16 ones
accumulate in float32, then round)."""

from mlir_emitter import accumulator_type, hex_float

from .registry import lowering

NAMED = {"aten.mm": ("linalg.matmul", "mm"), "aten.bmm": ("linalg.batch_matmul", "bmm")}


@lowering(*NAMED)
def matmul(cx, n):
    opname, hint = NAMED[cx.op]
    init = cx.e.filled(cx.shape, accumulator_type(cx.elt), 0.0)
    out = cx.e.named_op(opname, [cx.val(n.args[0]), cx.val(n.args[1])], init, hint=hint)
    return cx.e.convert(out, cx.elt)


@lowering("aten.baddbmm")
def baddbmm(cx, n):
    """beta * self + alpha * bmm(b1, b2) (attention scores with a bias or
    mask); beta 0 ignores self, as PyTorch does."""
    s, b1, b2 = (cx.val(a) for a in n.args[:3])
    beta, alpha = n.kwargs.get("beta", 1), n.kwargs.get("alpha", 1)
    elt = cx.elt
    init = cx.e.filled(cx.shape, accumulator_type(elt), 0.0)
    mm = cx.e.convert(cx.e.named_op("linalg.batch_matmul", [b1, b2], init, hint="bmm"), elt)

    def pay(b, v):
        m = v[1] if alpha == 1 else b.op("arith.mulf", [v[1], b.const(
            hex_float(alpha, elt), elt, "al")], elt, "am")
        if beta == 0:
            return m
        x = v[0] if beta == 1 else b.op("arith.mulf", [v[0], b.const(
            hex_float(beta, elt), elt, "be")], elt, "bx")
        return b.op("arith.addf", [x, m], elt)

    return cx.e.elementwise([s, mm], cx.shape, elt, pay)
