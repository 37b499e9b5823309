"""mlir_emitter: the one builder of MLIR text for remat-opt's Python tools.

remat-import-torch (its lowerings under lowerings/, shard_export.py) and the
example generator (examples/gen/gen_training_step.py) build IR through this
module: tensor types, float literals, affine maps, and the ops they emit
(tensor.empty, arith.constant, linalg.fill, linalg.generic with its payload,
named linalg ops, reshapes, slices, pads, linalg.reduce), one function at a
time, plus a small reader of function signatures for steps written by hand.

SSA names are the emitter's job, not the caller's. A caller gives a hint;
the emitter returns a name that no other value of the function has:

* `Emitter.fresh(hint)` numbers it: `%<hint><n>`, skipping any number whose
  name is taken (a parameter called `c1` does not clash with the constant
  `%c1`);
* `Emitter.exact(hint)` keeps the hint (`%x`, `%dropout_mask_0`) unless it is
  taken, then appends `_1`, `_2`, ...;
* names inside a region (block arguments, payload ops, from `Block`) keep
  their hint unless a value of the function or of an enclosing region has
  it; sibling regions may reuse them (`%r` in every linalg.generic), as MLIR
  scopes them to their region.

Two layouts (`Style`): remat-import-torch's (four-space indent, every op
located, `%<hint><n>` numbered by one counter) and the example generator's
(two-space indent, no locations, ins/outs of an attributed op on a second
line, one counter per hint from 0). They keep each tool's output as it was.

Python 3 standard library only: the example generator needs no PyTorch.
"""

import contextlib
import re
import struct
from collections import namedtuple


# ===--------------------------------------------------------------------===#
# Types, literals, affine maps.
# ===--------------------------------------------------------------------===#

def tensor_type(shape, elt):
    """`tensor<2x3xf32>`; `tensor<f32>` for a 0-d shape."""
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), elt)


FLOAT_TYPES = ("bf16", "f32", "f64")
_FLOAT_BITS = {"bf16": 16, "f32": 32, "f64": 64}


def is_float(elt):
    """Whether the element type `elt` is a float type (bf16, f32, f64)."""
    return elt in FLOAT_TYPES


def bits(elt):
    """The width of element type `elt` (a float type or iN) in bits."""
    return _FLOAT_BITS.get(elt) or int(elt[1:])


def _float_cast(src, dst):
    """The arith op converting float type `src` to float type `dst`."""
    return "arith.extf" if bits(dst) > bits(src) else "arith.truncf"


def convert_scalar(b, x, src, dst, hint="cv"):
    """Payload: the scalar x of type src as dst, as PyTorch converts:
    floats widened (extf) or rounded to nearest (truncf), booleans to 0/1,
    integers to floats by value (sitofp), floats to integers toward zero
    (fptosi), integers widened (extsi) or cut (trunci), anything to a
    boolean by `!= 0`; x itself when src is dst."""
    if src == dst:
        return x
    if dst == "i1":
        zero = b.const("0.0" if is_float(src) else "0", src, hint + "z")
        return b.op("arith.cmpf" if is_float(src) else "arith.cmpi",
                    ["une" if is_float(src) else "ne", x, zero], src, hint)
    if is_float(src) and is_float(dst):
        instr = _float_cast(src, dst)
    elif is_float(dst):
        instr = "arith.uitofp" if src == "i1" else "arith.sitofp"
    elif is_float(src):
        instr = "arith.fptosi"
    elif bits(dst) > bits(src):
        instr = "arith.extui" if src == "i1" else "arith.extsi"
    else:
        instr = "arith.trunci"
    return b.cast(instr, x, src, dst, hint)


def accumulator_type(elt):
    """The type sums of `elt` values accumulate in: float32 for bf16 (as
    PyTorch's CPU kernels and the GPUs' matrix units do), `elt` otherwise."""
    return "f32" if elt == "bf16" else elt


def widened(blk, x, elt, acc):
    """The payload value `x` of type `elt` in the accumulator type `acc`
    (itself when they are the same)."""
    return x if elt == acc else blk.cast("arith.extf", x, elt, acc, "w")


def hex_float(value, elt="f32"):
    """An exact MLIR float literal: the value rounded to `elt` as PyTorch
    rounds a Python scalar used with a tensor of that type (f32: to nearest;
    bf16: to the nearest float, then to nearest even bfloat16, as
    c10::BFloat16)."""
    if elt == "f64":
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", float(value)))[0]
    bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
    if elt == "f32":
        return "0x%08X" % bits
    if elt != "bf16":
        raise ValueError("no float literal of type %s" % elt)
    if value != value:  # NaN
        return "0x7FC0"
    return "0x%04X" % ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)


def decimal_float(value):
    """A decimal literal the MLIR float parser accepts (`0.1`, `1.0e-05`)."""
    s = repr(float(value))
    if "e" in s:
        mant, exp = s.split("e")
        if "." not in mant:
            mant += ".0"
        return mant + "e" + exp
    return s if "." in s else s + ".0"


def scalar_literal(value, elt):
    """The literal of `value` as an `elt` constant (written `<literal> :
    <elt>`): exact hex for floats, 1/0 for i1, a decimal integer
    otherwise."""
    if is_float(elt):
        return hex_float(value, elt)
    if elt == "i1":
        return "1" if value else "0"
    return str(int(value))


def dims(n):
    return ", ".join("d%d" % i for i in range(n))


def affine_map(n, results):
    """`affine_map<(d0, .., d<n-1>) -> (results)>`."""
    return "affine_map<(%s) -> (%s)>" % (dims(n), ", ".join(results))


def identity_map(n):
    return affine_map(n, ["d%d" % i for i in range(n)])


def broadcast_map(out_shape, shape):
    """Map of an operand of `shape` broadcast (numpy rules) to the
    iteration space `out_shape`."""
    r = len(out_shape)
    off = r - len(shape)
    return affine_map(r, ["0" if s == 1 and out_shape[off + j] != 1
                          else "d%d" % (off + j) for j, s in enumerate(shape)])


def broadcast_shape(shapes):
    """The numpy broadcast of `shapes`."""
    r = max(len(s) for s in shapes) if shapes else 0
    out = [1] * r
    for s in shapes:
        for j, d in enumerate(s):
            if d != 1:
                out[r - len(s) + j] = d
    return out


def reassociation(groups):
    """`[[0, 1], [2]]` of tensor.expand_shape / collapse_shape."""
    return "[%s]" % ", ".join("[%s]" % ", ".join(map(str, g)) for g in groups)


def ints(values):
    return ", ".join(str(v) for v in values)


_TENSOR = re.compile(r"tensor<((?:\d+x)*)([a-z]\w*)>")


def parse_tensor_type(text):
    """(shape, element type) of a static `tensor<...>`, None otherwise."""
    m = _TENSOR.fullmatch(text.strip())
    if not m:
        return None
    return [int(d) for d in m.group(1).split("x") if d], m.group(2)


class Value:
    """An SSA tensor value: its name, static shape and element type."""

    def __init__(self, name, shape, elt):
        self.name, self.shape, self.elt = name, list(shape), elt

    @property
    def type(self):
        return tensor_type(self.shape, self.elt)

    @property
    def rank(self):
        return len(self.shape)

    def __repr__(self):
        return "%s : %s" % (self.name, self.type)


# ===--------------------------------------------------------------------===#
# Names and layout.
# ===--------------------------------------------------------------------===#

class Names:
    """The SSA names of one function. A name defined at function level
    (every fresh() one; exact() ones while no region is open) is never
    given again; a region's names (exact() between `open_region` and
    `close_region`) avoid the function's and the enclosing regions' and are
    forgotten when the region closes, so sibling regions may reuse them."""

    def __init__(self, numbering):
        self.numbering = numbering  # "global" or "per-hint"
        self.function = set()
        self.everywhere = set()  # every name ever defined, regions' too
        self.regions = []
        self.counter = 0
        self.counters = {}

    def _taken(self, name, in_region):
        if not in_region:
            return name in self.everywhere
        return name in self.function or any(name in r for r in self.regions)

    def reserve(self, names):
        """Names defined outside the emitter (in text read from a file);
        any iterable, a generator too."""
        names = set(names)
        self.function.update(names)
        self.everywhere.update(names)

    def _define(self, name, in_region):
        (self.regions[-1] if in_region else self.function).add(name)
        self.everywhere.add(name)
        return name

    def _next_number(self, hint):
        if self.numbering == "global":
            self.counter += 1
            return self.counter
        n = self.counters.get(hint, 0)
        self.counters[hint] = n + 1
        return n

    def fresh(self, hint):
        while True:
            name = "%%%s%d" % (hint, self._next_number(hint))
            if not self._taken(name, False):
                return self._define(name, False)

    def exact(self, hint):
        in_region = bool(self.regions)
        name, k = "%" + hint, 0
        while self._taken(name, in_region):
            k += 1
            name = "%%%s_%d" % (hint, k)
        return self._define(name, in_region)

    def open_region(self):
        self.regions.append(set())

    def close_region(self):
        self.regions.pop()


Style = namedtuple("Style", [
    "indent",        # of an op at function level
    "locations",     # every op carries loc("<Emitter.loc>")
    "split_head",    # an attributed op's ins/outs go on a second line
    "label_indent",  # of a region's block label, after `indent`
    "numbering",     # "global" (one counter from 1) or "per-hint" (from 0)
])
IMPORTER_STYLE = Style("    ", True, False, "  ", "global")
EXAMPLE_STYLE = Style("  ", False, True, "", "per-hint")


def _operands(values):
    """`%a, %b : T1, T2` of Values or (name, type) pairs."""
    pairs = [(v.name, v.type) if isinstance(v, Value) else v for v in values]
    return "%s : %s" % (", ".join(p[0] for p in pairs),
                        ", ".join(p[1] for p in pairs))


# ===--------------------------------------------------------------------===#
# Payloads.
# ===--------------------------------------------------------------------===#

class Block:
    """The body of a region being built: each method emits one payload op
    named from its hint (see Names) and returns that name."""

    def __init__(self, emitter):
        self._names = emitter.names
        self.lines = []

    def let(self, hint, rhs):
        """`%<hint> = <rhs>`: an op the helpers below do not cover."""
        name = self._names.exact(hint)
        self.lines.append("%s = %s" % (name, rhs))
        return name

    def op(self, opname, operands, type, hint="r"):
        """`%r = opname a, b : type` (arith, math; attributes such as a
        comparison's predicate come first among the operands)."""
        return self.let(hint, "%s %s : %s" % (opname, ", ".join(operands), type))

    def const(self, literal, type, hint):
        return self.let(hint, "arith.constant %s : %s" % (literal, type))

    def cast(self, opname, x, src, dst, hint):
        return self.let(hint, "%s %s : %s to %s" % (opname, x, src, dst))

    def index(self, dim, hint):
        return self.let(hint, "linalg.index %d : index" % dim)

    def apply(self, amap, operands, hint):
        return self.let(hint, "affine.apply %s(%s)" % (amap, ", ".join(operands)))

    def call(self, fn, operands, types, result, hint="r"):
        return self.let(hint, "func.call @%s(%s) : (%s) -> %s" % (
            fn, ", ".join(operands), ", ".join(types), result))


# ===--------------------------------------------------------------------===#
# The emitter of one function body.
# ===--------------------------------------------------------------------===#

class Emitter:
    """Builds the body of one function as lines of text; `loc` is the
    location of the ops emitted next (Style.locations)."""

    def __init__(self, style=IMPORTER_STYLE):
        self.style = style
        self.names = Names(style.numbering)
        self.lines = []
        self.loc = "unknown"

    # -- names and raw lines -----------------------------------------------
    def fresh(self, hint):
        return self.names.fresh(hint)

    def exact(self, hint):
        return self.names.exact(hint)

    def _result(self, hint):
        """A name given by fresh()/exact() (starts with %), else a fresh one."""
        return hint if hint.startswith("%") else self.fresh(hint)

    def _located(self, text):
        if self.style.locations:
            return text + ' loc("%s")' % self.loc
        return text

    def emit(self, text):
        """One op at function level (its result named by fresh/exact)."""
        assert not self.names.regions, "a function-level op inside a payload"
        self.lines.append(self.style.indent + self._located(text))

    def comment(self, text):
        self.lines.append(self.style.indent + "// " + text)

    def let(self, hint, rhs):
        """`%<fresh hint> = <rhs>` at function level; returns the name."""
        name = self._result(hint)
        self.emit("%s = %s" % (name, rhs))
        return name

    @contextlib.contextmanager
    def restyled(self, **fields):
        """Emits with some Style fields changed (a layout kept as it was)."""
        saved = self.style
        self.style = saved._replace(**fields)
        try:
            yield
        finally:
            self.style = saved

    def block(self, args, body):
        """Builds a region's block: its arguments named from `args`
        ((hint, type) pairs), then `body(block, arg names)`, which emits the
        payload and returns the terminator's line. Returns the block
        signature `%a: T, ..` and the payload lines."""
        self.names.open_region()
        blk = Block(self)
        names = [self.names.exact(h) for h, _ in args]
        terminator = body(blk, names)
        self.names.close_region()
        sig = ", ".join("%s: %s" % (n, t) for n, (_, t) in zip(names, args))
        return sig, blk.lines + [terminator]

    def region(self, head, args, body, tail):
        """An op with one region: the line `head` (ending in `{`), the block
        `^bb0(args):` that `body` builds (see block()), then `tail`."""
        s = self.style
        self.lines.append(s.indent + head)
        sig, lines = self.block(args, body)
        self.lines.append(s.indent + s.label_indent + "^bb0(%s):" % sig)
        self.lines.extend(s.indent + "  " + l for l in lines)
        self.lines.append(s.indent + self._located(tail))

    # -- constants and initial values --------------------------------------
    def empty(self, shape, elt, hint="e"):
        name = self.let(hint, "tensor.empty() : %s" % tensor_type(shape, elt))
        return Value(name, shape, elt)

    def constant(self, literal, type, hint="c"):
        """`arith.constant literal : type` (a scalar or a dense<> tensor)."""
        return self.let(hint, "arith.constant %s : %s" % (literal, type))

    def fill(self, scalar, init, hint="f"):
        """linalg.fill of `init` with the scalar SSA value `scalar`."""
        return self.named_op("linalg.fill", [(scalar, init.elt)], init, hint=hint)

    def filled(self, shape, elt, value, hint="f"):
        """A tensor of `shape` filled with `value` (empty, constant, fill)."""
        init = self.empty(shape, elt)
        return self.fill(self.constant(scalar_literal(value, elt), elt), init, hint)

    # -- structured ops ----------------------------------------------------
    def named_op(self, opname, ins, init, attrs=None, hint="r"):
        """`%r = opname {attrs} ins(..) outs(init) -> T` (linalg.matmul,
        linalg.conv_*, linalg.fill); ins: Values or (name, type) pairs."""
        name = self._result(hint)
        head = "%s = %s" % (name, opname) + (" {%s}" % attrs if attrs else "")
        rest = "ins(%s) outs(%s) -> %s" % (_operands(ins), _operands([init]),
                                           init.type)
        if attrs and self.style.split_head:
            self.emit(head)
            self.emit("    " + rest)
        else:
            self.emit(head + " " + rest)
        return Value(name, init.shape, init.elt)

    def generic(self, ins, in_maps, outs, out_maps, iterators, body, hint="g",
                arg_hints=None):
        """linalg.generic; `body(block, args)` emits the payload and returns
        the yielded names (one per output); args are the block arguments,
        named from arg_hints (default a0, a1, ..). Returns one Value per
        output."""
        n_outs = len(outs)
        res = [self._result(hint) for _ in outs]  # one number per result
        head = res[0] if n_outs == 1 else "%s:%d" % (res[0], n_outs)
        maps = ", ".join(in_maps + out_maps)
        its = ", ".join('"%s"' % t for t in iterators)
        ins_s = "ins(%s) " % _operands(ins) if ins else ""
        head = "%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}" % (
            head, maps, its)
        rest = "%souts(%s) {" % (ins_s, _operands(outs))
        head = head + "\n" + self.style.indent + "    " + rest \
            if self.style.split_head else head + " " + rest
        args = [(h, v.elt) for h, v in zip(
            arg_hints or ["a%d" % i for i in range(len(ins) + n_outs)], ins + outs)]
        types = [v.elt for v in outs]

        def payload(blk, names):
            ys = body(blk, names)
            ys = [ys] if isinstance(ys, str) else list(ys)
            return "linalg.yield %s : %s" % (", ".join(ys), ", ".join(types))

        tail = "} -> %s" % (outs[0].type if n_outs == 1 else
                            "(%s)" % ", ".join(v.type for v in outs))
        self.region(head, args, payload, tail)
        names = res if n_outs == 1 else ["%s#%d" % (res[0], i) for i in range(n_outs)]
        return [Value(nm, o.shape, o.elt) for nm, o in zip(names, outs)]

    def elementwise(self, operands, out_shape, out_elt, payload, hint="g",
                    promote=None):
        """A broadcasting element-wise linalg.generic into a new tensor.
        operands: Values, Python scalars (constants of out_elt, f32 for an
        i1 result) or (scalar, elt) pairs; payload(block, scalars) returns
        the result's name, scalars being the names of the elements.
        `promote`: a float type that float tensor operands of another float
        type are converted to in the payload (PyTorch's type promotion of a
        bf16 tensor with a float32 one, without a converted copy)."""
        tensors = [o for o in operands if isinstance(o, Value)]
        init = self.empty(out_shape, out_elt)

        def body(blk, args):
            scalars, tensor_args, k = [], iter(args), 0
            for o in operands:
                if isinstance(o, Value):
                    a = next(tensor_args)
                    if promote and is_float(o.elt) and o.elt != promote:
                        a = blk.cast(_float_cast(o.elt, promote), a, o.elt,
                                     promote, "pr")
                    scalars.append(a)
                    continue
                elt = out_elt if out_elt != "i1" else "f32"
                if isinstance(o, tuple):
                    o, elt = o
                scalars.append(blk.const(scalar_literal(o, elt), elt, "k%d" % k))
                k += 1
            return payload(blk, scalars)

        r = len(out_shape)
        return self.generic(tensors, [broadcast_map(out_shape, t.shape) for t in tensors],
                            [init], [identity_map(r)], ["parallel"] * r, body, hint)[0]

    def convert(self, v, elt):
        """`v` with element type `elt` (convert_scalar's rules); `v`
        itself when it has that type already."""
        if v.elt == elt:
            return v
        return self.elementwise([v], v.shape, elt, lambda b, s: convert_scalar(
            b, s[0], v.elt, elt, "cv"))

    def reduce_generic(self, v, rdims, kind, keep_shape=None):
        """Sum or max of `v` over rdims as a linalg.generic, accumulated in
        accumulator_type (float32 for bf16, then rounded); the result has
        the other dims, reshaped to keep_shape when given."""
        r = v.rank
        rdims = sorted(d % r for d in rdims) if r else []
        out_shape = [s for i, s in enumerate(v.shape) if i not in rdims]
        acc = accumulator_type(v.elt)
        init = self.filled(out_shape, acc, 0.0 if kind == "sum" else float("-inf"))
        iters = ["reduction" if i in rdims else "parallel" for i in range(r)]
        omap = affine_map(r, ["d%d" % i for i in range(r) if i not in rdims])
        opname = "arith.addf" if kind == "sum" else "arith.maximumf"
        res = self.generic([v], [identity_map(r)], [init], [omap], iters,
                           lambda b, a: b.op(opname, [widened(b, a[0], v.elt, acc),
                                                      a[1]], acc, "s"))[0]
        res = self.convert(res, v.elt)
        return res if keep_shape is None else self.reshape(res, keep_shape)

    def reduce(self, v, dims_, init, combiner, hint="red"):
        """linalg.reduce of `v` over dims_ into `init` with the binary op
        `combiner` (arith.addf, arith.maximumf)."""
        name = self._result(hint)
        self.emit("%s = linalg.reduce ins(%s) outs(%s) dimensions = [%s]" % (
            name, _operands([v]), _operands([init]), ints(dims_)))
        indent = self.style.indent + "  "
        sig, lines = self.block([("in", v.elt), ("init", v.elt)], lambda b, a: (
            "linalg.yield %s : %s" % (b.op(combiner, a, v.elt), v.elt)))
        self.lines.append(indent + "(%s) {" % sig)
        self.lines.extend(indent + "  " + l for l in lines)
        self.lines.append(indent + self._located("}"))
        return Value(name, init.shape, init.elt)

    def transpose(self, v, perm, init=None, hint="t"):
        """linalg.transpose of `v` (into `init`, else a new tensor)."""
        perm = [p % v.rank for p in perm]
        if perm == list(range(v.rank)):
            return v
        shape = [v.shape[p] for p in perm]
        init = init or self.empty(shape, v.elt)
        name = self.let(hint, "linalg.transpose ins(%s) outs(%s) permutation = [%s]"
                        % (_operands([v]), _operands([init]), ints(perm)))
        return Value(name, shape, v.elt)

    # -- tensor ops --------------------------------------------------------
    def expand_shape(self, v, groups, shape, hint="r"):
        t = tensor_type(shape, v.elt)
        name = self.let(hint, "tensor.expand_shape %s %s output_shape [%s] : %s into %s"
                        % (v.name, reassociation(groups), ints(shape), v.type, t))
        return Value(name, shape, v.elt)

    def collapse_shape(self, v, groups, shape, hint="r"):
        t = tensor_type(shape, v.elt)
        name = self.let(hint, "tensor.collapse_shape %s %s : %s into %s"
                        % (v.name, reassociation(groups), v.type, t))
        return Value(name, shape, v.elt)

    def reshape(self, v, shape):
        """`v` viewed with `shape` (same number of elements): collapse to
        1-D, then expand (a 0-d tensor expands to [1] first)."""
        shape = list(shape)
        if shape == v.shape:
            return v
        cur = v
        if cur.rank == 0:
            cur = self.expand_shape(cur, [], [1])
        if cur.rank != 1:
            n = 1
            for d in cur.shape:
                n *= d
            cur = self.collapse_shape(cur, [list(range(cur.rank))], [n])
        if shape == cur.shape:
            return cur
        if not shape:
            return self.collapse_shape(cur, [], shape)
        return self.expand_shape(cur, [list(range(len(shape)))], shape)

    def pad(self, v, lo, hi, value, hint="p"):
        """tensor.pad of `v` by lo/hi per dim; `value` is a literal float
        (a constant in the region) or a callable(block) -> name."""
        if not any(lo) and not any(hi):
            return v
        shape = [s + a + b for s, a, b in zip(v.shape, lo, hi)]
        name = self._result(hint)

        def body(blk, _):
            pv = value(blk) if callable(value) else blk.const(
                hex_float(value, v.elt), v.elt, "pv")
            return "tensor.yield %s : %s" % (pv, v.elt)

        self.region("%s = tensor.pad %s low[%s] high[%s] {" % (name, v.name, ints(lo), ints(hi)),
                    [("i%d" % i, "index") for i in range(v.rank)], body,
                    "} : %s to %s" % (v.type, tensor_type(shape, v.elt)))
        return Value(name, shape, v.elt)

    def extract_slice(self, v, offsets, sizes, strides, result_shape, hint="sl"):
        t = tensor_type(result_shape, v.elt)
        name = self.let(hint, "tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
            v.name, ints(offsets), ints(sizes), ints(strides), v.type, t))
        return Value(name, result_shape, v.elt)

    def insert_slice(self, src, dest, offsets, sizes, strides, hint="ins"):
        name = self.let(hint, "tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s" % (
            src.name, dest.name, ints(offsets), ints(sizes), ints(strides),
            src.type, dest.type))
        return Value(name, dest.shape, dest.elt)


# ===--------------------------------------------------------------------===#
# Functions.
# ===--------------------------------------------------------------------===#

class Argument:
    """A function argument: its Value, attributes (`remat.data`) and, in a
    located style, its location label."""

    def __init__(self, value, attrs=(), loc=None):
        self.value, self.attrs, self.loc = value, list(attrs), loc

    def text(self):
        s = "%s: %s" % (self.value.name, self.value.type)
        if self.attrs:
            s += " {%s}" % ", ".join(self.attrs)
        return s + (' loc("%s")' % self.loc if self.loc is not None else "")


class Function:
    """One func.func being built: its arguments, the Emitter of its body
    (`body`), its results, and the module lines around it (`before`:
    comments, module-level ops; `after`: declarations)."""

    def __init__(self, name, style=IMPORTER_STYLE):
        self.name = name
        self.body = Emitter(style)
        self.args = []
        self.results = []
        self.return_loc = "output"
        self.before = []
        self.after = []

    def argument(self, hint, shape, elt, attrs=(), loc=None):
        """A new argument named `%<hint>` (made unique); returns its Value."""
        value = Value(self.body.exact(hint), shape, elt)
        self.args.append(Argument(value, attrs, loc))
        return value

    def text(self):
        s = self.body.style
        rtypes = ", ".join(r.type for r in self.results)
        values = ", ".join(r.name for r in self.results)
        if s.locations:
            head = ["func.func @%s(" % self.name,
                    "    %s)" % ",\n    ".join(a.text() for a in self.args),
                    "    -> (%s) {" % rtypes]
            ret = ['%sfunc.return %s : %s loc("%s")' % (s.indent, values, rtypes,
                                                       self.return_loc)]
        else:
            head = ["func.func @%s(%s)" % (self.name, ", ".join(a.text() for a in self.args)),
                    "    -> (%s) {" % rtypes]
            ret = ["%sreturn %s" % (s.indent, values), "      : %s" % rtypes]
        lines = self.before + head + self.body.lines + ret + ["}"] + self.after
        return "\n".join(lines) + "\n"


# ===--------------------------------------------------------------------===#
# Reading the signatures of functions written by hand.
# ===--------------------------------------------------------------------===#

_LEX = re.compile(r'\s+|//[^\n]*|"(?:[^"\\]|\\.)*"|->|[%@^#!]?[\w$.-]+|.', re.S)


def _angle_end(text, pos):
    """The end of the balanced `<...>` group whose `<` is text[pos - 1]
    (`->` inside, as in an affine map, is not a bracket)."""
    depth = 1
    while depth and pos < len(text):
        if text.startswith("->", pos):
            pos += 2
            continue
        depth += {"<": 1, ">": -1}.get(text[pos], 0)
        pos += 1
    return pos


class Token:
    """A lexeme of MLIR text and where it starts and ends. A type or
    attribute with its `<...>` (`tensor<4x?xf32>`) is one token."""

    def __init__(self, text, start, end):
        self.text, self.start, self.end = text, start, end


def tokens(text):
    """The tokens of `text`, comments and white space left out."""
    out, pos = [], 0
    while pos < len(text):
        m = _LEX.match(text, pos)
        pos = m.end()
        if m.group().isspace() or m.group().startswith("//"):
            continue
        if m.group() == "<" and out and out[-1].end == m.start():
            pos = _angle_end(text, pos)
            out[-1] = Token(text[out[-1].start:pos], out[-1].start, pos)
            continue
        out.append(Token(m.group(), m.start(), pos))
    return out


class Signature:
    """A func.func's name, visibility (`private`), arguments [(name
    without %, type text)], the tokens after each argument's type (its
    attribute dictionary and location) as text, result types, and where
    it is: `start` at `func.func`, its body from `body_start` (just after
    `{`) to `body_end` (at the closing `}`)."""

    def __init__(self, name, start):
        self.name, self.start, self.private = name, start, False
        self.args, self.arg_attributes, self.results = [], [], []
        self.body_start = self.body_end = None


def _group(toks, i, close):
    """The items of a comma-separated group that starts after toks[i] and
    ends at the token `close` (nested (), {}, [] skipped): (lists of
    tokens, index after `close`)."""
    items, cur, depth = [], [], 0
    while True:
        i += 1
        t = toks[i].text
        if depth == 0 and t in (",", close):
            items.append(cur)
            cur = []
            if t == close:
                return [it for it in items if it], i + 1
            continue
        depth += (t in "({[") - (t in ")}]") if len(t) == 1 else 0
        cur.append(toks[i])


def _signature(toks, i):
    """The Signature of the func.func at toks[i]; None if it has no body."""
    start, j = toks[i].start, i
    while not toks[i].text.startswith("@"):
        i += 1
    sig = Signature(toks[i].text[1:], start)
    sig.private = any(t.text == "private" for t in toks[j:i])
    args, i = _group(toks, i + 1, ")")
    args = [a for a in args if len(a) > 2 and a[1].text == ":"]
    sig.args = [(a[0].text[1:], a[2].text) for a in args]
    sig.arg_attributes = [" ".join(t.text for t in a[3:]) for a in args]
    # A declaration may end the text: past the last token reads as "".
    text = lambda k: toks[k].text if k < len(toks) else ""
    if text(i) == "->":
        if text(i + 1) == "(":
            results, i = _group(toks, i + 1, ")")
            sig.results = [r[0].text for r in results]
        else:
            sig.results, i = [text(i + 1)], i + 2
    if text(i) == "attributes":
        _, i = _group(toks, i + 1, "}")
    if text(i) != "{":
        return None
    sig.body_start, depth = toks[i].end, 0
    for t in toks[i:]:
        depth += {"{": 1, "}": -1}.get(t.text, 0)
        if depth == 0:
            sig.body_end = t.start
            return sig


def read_signatures(text):
    """The Signature of every func.func with a body in `text`."""
    toks = tokens(text)
    sigs = (_signature(toks, i) for i, t in enumerate(toks) if t.text == "func.func")
    return [s for s in sigs if s is not None]


def rename_values(text, renames):
    """`text` with every SSA value token named in `renames` ({"%a":
    "%b"}) replaced; strings and comments untouched."""
    out, last = [], 0
    for t in tokens(text):
        if t.text in renames:
            out += [text[last:t.start], renames[t.text]]
            last = t.end
    return "".join(out) + text[last:]
