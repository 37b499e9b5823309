"""Matrix products: linalg.matmul and linalg.batch_matmul (bf16 ones
accumulate in float32, then round)."""

from mlir_emitter import accumulator_type

from .registry import lowering

NAMED = {"aten.mm": ("linalg.matmul", "mm"), "aten.bmm": ("linalg.batch_matmul", "bmm")}


@lowering(*NAMED)
def matmul(cx, n):
    opname, hint = NAMED[cx.op]
    init = cx.e.filled(cx.shape, accumulator_type(cx.elt), 0.0)
    out = cx.e.named_op(opname, [cx.val(n.args[0]), cx.val(n.args[1])], init, hint=hint)
    return cx.e.convert(out, cx.elt)
