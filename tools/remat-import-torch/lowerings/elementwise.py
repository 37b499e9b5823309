"""Element-wise arithmetic, math functions, comparisons and selects: each
one broadcasting linalg.generic (mlir_emitter.Emitter.elementwise)."""

import torch

from mlir_emitter import (Value, bits, convert_scalar as convert, hex_float, is_float,
                          scalar_literal)

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
# Their integer forms: signed for integers, unsigned for booleans.
CMP_I = {"aten.le": "sle", "aten.lt": "slt", "aten.ge": "sge", "aten.gt": "sgt",
         "aten.eq": "eq", "aten.ne": "ne"}
CMP_BOOL = {"aten.le": "ule", "aten.lt": "ult", "aten.ge": "uge", "aten.gt": "ugt",
            "aten.eq": "eq", "aten.ne": "ne"}
LOGICAL = {"aten.bitwise_or": "arith.ori", "aten.logical_or": "arith.ori",
           "aten.bitwise_and": "arith.andi", "aten.logical_and": "arith.andi"}


def apply(opname, elt):
    """The payload `%r = opname <scalars> : elt`."""
    return lambda b, s: b.op(opname, s, elt)


def common_type(elts):
    """The element type PyTorch computes a mix of `elts` in: the widest
    float if there is one, else the widest integer (booleans lowest)."""
    floats = [t for t in elts if is_float(t)]
    return max(floats or elts, key=bits)


def operand(x, elt):
    """A node argument as an elementwise() operand: a Value, or a Python
    scalar as a constant of `elt`."""
    if isinstance(x, Value):
        return x
    return (float(x) if is_float(elt) else int(x), elt)


def elt_of(x, default):
    return x.elt if isinstance(x, Value) else default


@lowering(*BINARY_F)
def binary(cx, n):
    """a op alpha * b (alpha: add and sub's keyword, default 1), each
    operand first converted to the result's type (a float times a boolean
    mask, an integer divided into a float)."""
    alpha = n.kwargs.get("alpha", 1)
    if n.kwargs.get("rounding_mode") is not None:
        raise Unsupported(cx.op + " (rounding_mode)")
    elt = cx.elt
    integer = not is_float(elt)
    if integer and cx.op not in BINARY_I:
        raise Unsupported(cx.op + " (integer)")
    instr = (BINARY_I if integer else BINARY_F)[cx.op]
    a, b_ = cx.val(n.args[0]), cx.val(n.args[1])
    srcs = [elt_of(a, elt), elt_of(b_, elt)]

    def pay(b, s):
        lhs, rhs = (convert(b, x, t, elt, "cv%d" % i) for i, (x, t) in enumerate(zip(s, srcs)))
        if alpha != 1:
            al = b.const(str(int(alpha)) if integer else hex_float(alpha, elt), elt, "al")
            rhs = b.op("arith.muli" if integer else "arith.mulf", [rhs, al], elt, "am")
        return b.op(instr, [lhs, rhs], elt)

    return cx.e.elementwise([operand(a, srcs[0]), operand(b_, srcs[1])], cx.shape, elt, pay)


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
    """math.erf: the CPU lowering calls the C library's erff/erf for it
    (remat-math-to-libm), the GPU lowering libdevice's; bf16 through f32,
    as PyTorch computes it in float."""
    elt = cx.elt
    arg = "f64" if elt == "f64" else "f32"

    def pay(b, s):
        y = b.op("math.erf", [convert(b, s[0], elt, arg, "w")], arg)
        return convert(b, y, arg, elt, "n")

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


def power(b, x, ex, elt):
    """Payload: x ** ex for the exponents PyTorch's CPU kernel computes
    without pow (1, 2, 3, 0.5, -0.5, -1, -2), math.powf otherwise."""
    if ex == 1:
        return x
    if ex in (2, 3, -1, -2):
        r = x
        for _ in range(abs(int(ex)) - 1):
            r = b.op("arith.mulf", [r, x], elt, "sq")
        if ex > 0:
            return r
        return b.op("arith.divf", [b.const("1.0", elt, "one"), r], elt)
    if ex in (0.5, -0.5):
        return b.op("math.sqrt" if ex > 0 else "math.rsqrt", [x], elt)
    return b.op("math.powf", [x, b.const(hex_float(ex, elt), elt, "ex")], elt)


@lowering("aten.pow")
def pow_(cx, n):
    """x ** c for a constant exponent c."""
    ex = n.args[1]
    x, elt = cx.val(n.args[0]), cx.elt
    if isinstance(ex, torch.fx.Node) or not isinstance(x, Value) or not is_float(elt):
        raise Unsupported(cx.op + " (other than a float tensor to a constant power)")
    return cx.e.elementwise([x], cx.shape, elt, lambda b, s: power(b, s[0], ex, elt))


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
    """Or / and of booleans (i1), or bitwise of integers."""
    a, b = cx.val(n.args[0]), cx.val(n.args[1])
    if is_float(cx.elt) or (cx.elt != "i1" and cx.op.startswith("aten.logical")):
        raise Unsupported(cx.op + " (%s)" % cx.elt)
    return cx.e.elementwise([operand(a, cx.elt), operand(b, cx.elt)], cx.shape, cx.elt,
                            apply(LOGICAL[cx.op], cx.elt))


@lowering("aten.bitwise_not", "aten.logical_not")
def bitwise_not(cx, n):
    """not of a boolean (xor with true), or of an integer's bits (xor with
    -1); logical_not of anything: `== 0`."""
    x = cx.val(n.args[0])
    if cx.op == "aten.logical_not" and x.elt != "i1":
        def pay(b, s):
            return b.op("arith.xori", [convert(b, s[0], x.elt, "i1"),
                                       b.const("1", "i1", "t")], "i1")
        return cx.e.elementwise([x], cx.shape, "i1", pay)
    if is_float(x.elt):
        raise Unsupported(cx.op + " (float)")
    return cx.e.elementwise([x, (-1, x.elt)], cx.shape, x.elt, apply("arith.xori", x.elt))


def comparison(b, op, s, elt):
    """Payload: the comparison `op` (aten.lt, ...) of s[0] and s[1], both
    of type elt, into an i1."""
    if is_float(elt):
        return b.op("arith.cmpf", [CMP_F[op]] + s, elt)
    return b.op("arith.cmpi", [(CMP_BOOL if elt == "i1" else CMP_I)[op]] + s, elt)


@lowering(*CMP_F)
def compare(cx, n):
    """A comparison into an i1 tensor, in the operands' common type: an
    ordered float comparison (`ne`: unordered), signed for integers,
    unsigned for booleans."""
    a, b = cx.val(n.args[0]), cx.val(n.args[1])
    ta = elt_of(a, None)
    tb = elt_of(b, None)
    if tb is None:  # a Python scalar: a float one makes integers compare as floats
        tb = ta if isinstance(b, bool) or float(b).is_integer() or is_float(ta) else "f64"
    elt = common_type([ta, tb])
    srcs = [ta, tb]

    def pay(blk, s):
        return comparison(blk, cx.op, [convert(blk, x, t, elt, "cv%d" % i)
                                       for i, (x, t) in enumerate(zip(s, srcs))], elt)

    return cx.e.elementwise([operand(a, ta), operand(b, tb)], cx.shape, "i1", pay)


@lowering("aten.where")
def where(cx, n):
    """cond ? a : b, a and b converted to the result's type."""
    c, a, b = (cx.val(x) for x in n.args[:3])
    elt = cx.elt
    srcs = [elt_of(a, elt), elt_of(b, elt)]

    def pay(blk, s):
        x, y = (convert(blk, v, t, elt, "cv%d" % i) for i, (v, t) in enumerate(zip(s[1:], srcs)))
        return blk.op("arith.select", [convert(blk, s[0], c.elt, "i1"), x, y], elt)

    return cx.e.elementwise([c, operand(a, srcs[0]), operand(b, srcs[1])], cx.shape, elt, pay)


@lowering("aten.masked_fill")
def masked_fill(cx, n):
    """x with `value` where mask is true (the causal mask's -inf)."""
    x, mask, value = (cx.val(a) for a in n.args[:3])
    elt = cx.elt
    src = elt_of(value, elt)

    def pay(b, s):
        return b.op("arith.select", [s[1], convert(b, s[2], src, elt), s[0]], elt)

    return cx.e.elementwise([x, mask, operand(value, src)], cx.shape, elt, pay)


@lowering("aten.tril", "aten.triu")
def tril(cx, n):
    """The lower (upper) triangle of the last two dimensions from diagonal
    k on (column - row <= k, >= k), zero elsewhere: a select on the loop
    indices."""
    x, elt = cx.val(n.args[0]), cx.elt
    k = n.args[1] if len(n.args) > 1 else n.kwargs.get("diagonal", 0)
    r = x.rank

    def pay(b, s):
        row, col = b.index(r - 2, "row"), b.index(r - 1, "col")
        d = b.op("arith.subi", [col, row], "index", "d")
        keep = b.op("arith.cmpi", ["sle" if cx.op == "aten.tril" else "sge", d,
                                   b.const(str(int(k)), "index", "k")], "index", "keep")
        zero = b.const(scalar_literal(0, elt), elt, "zero")
        return b.op("arith.select", [keep, s[0], zero], elt)

    return cx.e.elementwise([x], cx.shape, elt, pay)


@lowering("prims.convert_element_type")
def convert_element_type(cx, n):
    """Between floats, integers and booleans (mlir_emitter.convert_scalar's
    rules; no-op for the same type)."""
    return cx.e.convert(cx.val(n.args[0]), cx.elt)
