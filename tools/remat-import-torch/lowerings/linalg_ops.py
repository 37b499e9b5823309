"""Matrix products: linalg.matmul and linalg.batch_matmul."""

from .registry import lowering

NAMED = {"aten.mm": ("linalg.matmul", "mm"), "aten.bmm": ("linalg.batch_matmul", "bmm")}


@lowering(*NAMED)
def matmul(cx, n):
    opname, hint = NAMED[cx.op]
    init = cx.e.filled(cx.shape, cx.elt, 0.0)
    return cx.e.named_op(opname, [cx.val(n.args[0]), cx.val(n.args[1])], init, hint=hint)
