"""Element-wise arithmetic, math functions, comparisons and selects: each
one broadcasting linalg.generic (mlir_emitter.Emitter.elementwise)."""

import torch

from mlir_emitter import Value, hex_float

from .registry import Unsupported, lowering

BINARY_F = {
    "aten.add": "arith.addf", "aten.sub": "arith.subf", "aten.mul": "arith.mulf",
    "aten.div": "arith.divf", "aten.maximum": "arith.maximumf",
    "aten.minimum": "arith.minimumf",
}
# The integer forms of BINARY_F (num_batches_tracked's increment).
BINARY_I = {"aten.add": "arith.addi", "aten.sub": "arith.subi",
            "aten.mul": "arith.muli"}
UNARY_F = {
    "aten.exp": "math.exp", "aten.log": "math.log", "aten.rsqrt": "math.rsqrt",
    "aten.sqrt": "math.sqrt", "aten.tanh": "math.tanh",
    "aten.neg": "arith.negf", "aten.abs": "math.absf",
}
CMP_F = {"aten.le": "ole", "aten.lt": "olt", "aten.ge": "oge", "aten.gt": "ogt",
         "aten.eq": "oeq", "aten.ne": "une"}
LOGICAL = {"aten.bitwise_or": "arith.ori", "aten.logical_or": "arith.ori",
           "aten.bitwise_and": "arith.andi", "aten.logical_and": "arith.andi"}


def apply(opname, elt):
    """The payload `%r = opname <scalars> : elt`."""
    return lambda b, s: b.op(opname, s, elt)


@lowering(*BINARY_F)
def binary(cx, n):
    """a op alpha * b (alpha: add and sub's keyword, default 1)."""
    alpha = n.kwargs.get("alpha", 1)
    elt = cx.elt
    integer = elt.startswith("i")
    if integer and cx.op not in BINARY_I:
        raise Unsupported(cx.op + " (integer)")
    instr = (BINARY_I if integer else BINARY_F)[cx.op]

    def pay(b, s):
        rhs = s[1]
        if alpha != 1:
            al = b.const(str(int(alpha)) if integer else hex_float(alpha, elt), elt, "al")
            rhs = b.op("arith.muli" if integer else "arith.mulf", [rhs, al], elt, "am")
        return b.op(instr, [s[0], rhs], elt)

    return cx.e.elementwise([cx.val(n.args[0]), cx.val(n.args[1])], cx.shape, elt, pay,
                            promote=None if integer else elt)


@lowering("prims.div")
def prims_div(cx, n):
    a, b = cx.val(n.args[0]), cx.val(n.args[1])
    return cx.e.elementwise([a, b if isinstance(b, Value) else float(b)], cx.shape,
                            cx.elt, apply("arith.divf", cx.elt), promote=cx.elt)


@lowering(*UNARY_F)
def unary(cx, n):
    return cx.e.elementwise([cx.val(n.args[0])], cx.shape, cx.elt,
                            apply(UNARY_F[cx.op], cx.elt))


@lowering("aten.erf")
def erf(cx, n):
    """remat-lower-to-cpu has no lowering of math.erf: the payload calls the
    C library's erff/erf (declared in the module; the JIT resolves it)."""
    elt = cx.elt
    # bf16 through erff, as PyTorch computes it in float.
    arg = "f64" if elt == "f64" else "f32"
    fn = "erff" if arg == "f32" else "erf"
    cx.externs.add((fn, arg))

    def pay(b, s):
        x = s[0] if elt == arg else b.cast("arith.extf", s[0], elt, arg, "w")
        y = b.call(fn, [x], [arg], arg)
        return y if elt == arg else b.cast("arith.truncf", y, arg, elt, "n")

    return cx.e.elementwise([cx.val(n.args[0])], cx.shape, elt, pay)


@lowering("aten.relu")
def relu(cx, n):
    return cx.e.elementwise([cx.val(n.args[0]), 0.0], cx.shape, cx.elt,
                            apply("arith.maximumf", cx.elt))


@lowering("aten.sigmoid")
def sigmoid(cx, n):
    """1 / (1 + exp(-x))."""
    elt = cx.elt

    def pay(b, s):
        one = b.const("1.0", elt, "one")
        ex = b.op("math.exp", [b.op("arith.negf", s, elt, "n")], elt, "ex")
        return b.op("arith.divf", [one, b.op("arith.addf", [one, ex], elt, "d")], elt)

    return cx.e.elementwise([cx.val(n.args[0])], cx.shape, elt, pay)


@lowering("aten.pow")
def pow_(cx, n):
    """x ** c for a constant exponent c (x * x for 2)."""
    ex = n.args[1]
    if isinstance(ex, torch.fx.Node):
        raise Unsupported(cx.op)
    x, elt = cx.val(n.args[0]), cx.elt
    if ex == 2:
        return cx.e.elementwise([x], cx.shape, elt, lambda b, s: b.op(
            "arith.mulf", [s[0], s[0]], elt))
    return cx.e.elementwise([x, float(ex)], cx.shape, elt, apply("math.powf", elt))


@lowering("aten.clamp")
def clamp(cx, n):
    lo, hi = n.args[1], n.args[2] if len(n.args) > 2 else None
    elt = cx.elt

    def pay(b, s):
        r = s[0]
        if lo is not None:
            r = b.op("arith.maximumf", [r, b.const(hex_float(lo, elt), elt, "lo")], elt, "a")
        if hi is not None:
            r = b.op("arith.minimumf", [r, b.const(hex_float(hi, elt), elt, "hi")], elt, "b")
        return r

    return cx.e.elementwise([cx.val(n.args[0])], cx.shape, elt, pay)


@lowering(*LOGICAL)
def logical(cx, n):
    """Or / and of booleans (i1)."""
    if cx.elt != "i1":
        raise Unsupported(cx.op)
    return cx.e.elementwise([cx.val(n.args[0]), cx.val(n.args[1])], cx.shape, "i1",
                            apply(LOGICAL[cx.op], "i1"))


@lowering(*CMP_F)
def compare(cx, n):
    """An ordered float comparison (`ne`: unordered) into an i1 tensor."""
    a, b = cx.val(n.args[0]), cx.val(n.args[1])
    operands = [a, b if isinstance(b, Value) else (float(b), a.elt)]
    return cx.e.elementwise(operands, cx.shape, "i1", lambda blk, s: blk.op(
        "arith.cmpf", [CMP_F[cx.op]] + s, a.elt))


@lowering("aten.where")
def where(cx, n):
    c, a, b = (cx.val(x) for x in n.args[:3])
    operands = [c] + [x if isinstance(x, Value) else (float(x), cx.elt) for x in (a, b)]
    return cx.e.elementwise(operands, cx.shape, cx.elt, apply("arith.select", cx.elt))


@lowering("prims.convert_element_type")
def convert_element_type(cx, n):
    """Between bf16, f32, f64 and the integers (mlir_emitter's convert;
    no-op for the same type)."""
    src = cx.val(n.args[0])
    out = cx.e.convert(src, cx.elt)
    if out is None:
        raise Unsupported(cx.op + " (%s to %s)" % (src.elt, cx.elt))
    return out
