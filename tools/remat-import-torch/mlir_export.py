"""Linalg-on-tensors training IR from a traced (decomposed) joint graph.

One func.func: parameters (named_parameters order), the buffers the step
reads (named_buffers order: batch norm's running_mean, running_var and
num_batches_tracked), then the input images and the int64 labels as
arguments; the loss, every parameter gradient (or updated parameter), then
every buffer the step updates (named_buffers order) as results; static
shapes; every op located `loc("<module path>/aten.<op>")`. The loss's
incoming gradient (tangents_1) is the constant 1.

The lowering covers the small core op set left after torch._decomp's
decompositions (torch_trace.MLIR_DECOMPOSITIONS); anything else is collected
and reported at once by UnsupportedOps.
"""

import operator
import struct

import torch

from torch_trace import op_name


class UnsupportedOps(Exception):
    pass


DTYPES = {torch.float32: "f32", torch.float64: "f64", torch.int64: "i64",
          torch.int32: "i32", torch.bool: "i1"}


def ttype(shape, elt):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), elt)


def fconst(value, elt="f32"):
    """An exact MLIR float literal: the value rounded to f32 as PyTorch
    does for a Python scalar used with a float32 tensor."""
    if elt == "f32":
        bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
        return "0x%08X" % bits
    bits = struct.unpack("<Q", struct.pack("<d", float(value)))[0]
    return "0x%016X" % bits


class Val:
    """An SSA tensor value with its static shape and element type."""

    def __init__(self, name, shape, elt):
        self.name, self.shape, self.elt = name, list(shape), elt

    @property
    def type(self):
        return ttype(self.shape, self.elt)

    @property
    def rank(self):
        return len(self.shape)


def dims(n):
    return ", ".join("d%d" % i for i in range(n))


def amap(n, results):
    return "affine_map<(%s) -> (%s)>" % (dims(n), ", ".join(results))


def bcast_map(out_rank, out_shape, shape):
    """Map of an operand broadcast (numpy rules) to the iteration space."""
    res = []
    off = out_rank - len(shape)
    for j, s in enumerate(shape):
        if s == 1 and out_shape[off + j] != 1:
            res.append("0")
        else:
            res.append("d%d" % (off + j))
    return amap(out_rank, res)


def broadcast_shape(shapes):
    r = max(len(s) for s in shapes) if shapes else 0
    out = [1] * r
    for s in shapes:
        for j, d in enumerate(s):
            k = r - len(s) + j
            if d != 1:
                out[k] = d
    return out


class Emitter:
    def __init__(self):
        self.lines = []
        self.counter = 0
        self.loc = "unknown"

    def fresh(self, hint="v"):
        self.counter += 1
        return "%%%s%d" % (hint, self.counter)

    def emit(self, text):
        self.lines.append("    " + text + ' loc("%s")' % self.loc)

    def emit_region(self, head, body, tail):
        self.lines.append("    " + head)
        for b in body:
            self.lines.append("      " + b)
        self.lines.append("    " + tail + ' loc("%s")' % self.loc)

    # -- building blocks --------------------------------------------------
    def empty(self, shape, elt):
        v = self.fresh("e")
        self.emit("%s = tensor.empty() : %s" % (v, ttype(shape, elt)))
        return Val(v, shape, elt)

    def scalar_const(self, value, elt):
        v = self.fresh("c")
        if elt in ("f32", "f64"):
            lit = fconst(value, elt)
        elif elt == "i1":
            lit = "true" if value else "false"
        else:
            lit = str(int(value))
        self.emit("%s = arith.constant %s : %s" % (v, lit, elt))
        return v

    def filled(self, shape, elt, value):
        init = self.empty(shape, elt)
        c = self.scalar_const(value, elt)
        v = self.fresh("f")
        self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            v, c, elt, init.name, init.type, init.type))
        return Val(v, shape, elt)

    def generic(self, ins, in_maps, outs, out_maps, iters, body, hint="g"):
        """ins/outs: lists of Val; body(args) -> list of lines, last
        'linalg.yield'. args are the block argument names."""
        n_args = len(ins) + len(outs)
        args = ["%%a%d" % i for i in range(n_args)]
        res = [self.fresh(hint) for _ in outs]
        maps = ", ".join(in_maps + out_maps)
        it = ", ".join('"%s"' % t for t in iters)
        ins_s = ""
        if ins:
            ins_s = " ins(%s : %s)" % (", ".join(v.name for v in ins),
                                       ", ".join(v.type for v in ins))
        head = "%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}%s outs(%s : %s) {" % (
            ", ".join(res) if len(res) > 1 else res[0], maps, it, ins_s,
            ", ".join(v.name for v in outs), ", ".join(v.type for v in outs))
        if len(res) > 1:
            head = "%s:%d" % (res[0].split(":")[0], len(res)) + head[len(", ".join(res)):]
            names = ["%s#%d" % (res[0], i) for i in range(len(res))]
        else:
            names = res
        blk = "^bb0(%s):" % ", ".join(
            "%s: %s" % (a, v.elt) for a, v in zip(args, ins + outs))
        tail = "} -> %s" % ", ".join(v.type for v in outs)
        if len(outs) > 1:
            tail = "} -> (%s)" % ", ".join(v.type for v in outs)
        self.emit_region(head, [blk] + body(args), tail)
        return [Val(nm, o.shape, o.elt) for nm, o in zip(names, outs)]

    def elementwise(self, operands, out_shape, out_elt, payload):
        """operands: Val or Python scalars; payload(scalars) -> (lines,
        result) where scalars are SSA names of the elements."""
        tensors = [o for o in operands if isinstance(o, Val)]
        r = len(out_shape)
        maps = [bcast_map(r, out_shape, t.shape) for t in tensors]
        init = self.empty(out_shape, out_elt)

        def body(args):
            lines = []
            scalars = []
            k = 0
            for o in operands:
                if isinstance(o, Val):
                    scalars.append(args[k])
                    k += 1
                else:
                    c = "%%k%d" % len(lines)
                    elt = out_elt if out_elt != "i1" else "f32"
                    if isinstance(o, tuple):  # (value, elt)
                        o, elt = o
                    lit = fconst(o, elt) if elt.startswith("f") else str(int(o))
                    lines.append("%s = arith.constant %s : %s" % (c, lit, elt))
                    scalars.append(c)
            more, result = payload(scalars)
            return lines + more + ["linalg.yield %s : %s" % (result, out_elt)]

        return self.generic(tensors, maps, [init], [amap(r, ["d%d" % i for i in range(r)])],
                            ["parallel"] * r, body)[0]

    def reshape(self, v, shape):
        shape = list(shape)
        if shape == v.shape:
            return v
        cur = v
        if cur.rank == 0:  # a scalar (new_ones of an affine-free batch norm)
            n = self.fresh("r")
            self.emit("%s = tensor.expand_shape %s [] output_shape [1] : %s into %s"
                      % (n, cur.name, cur.type, ttype([1], cur.elt)))
            cur = Val(n, [1], cur.elt)
        if cur.rank != 1:
            flat = [1]
            for d in cur.shape:
                flat[0] *= d
            n = self.fresh("r")
            reassoc = "[[%s]]" % ", ".join(str(i) for i in range(cur.rank))
            self.emit("%s = tensor.collapse_shape %s %s : %s into %s" % (
                n, cur.name, reassoc, cur.type, ttype(flat, cur.elt)))
            cur = Val(n, flat, cur.elt)
        if shape == cur.shape:
            return cur
        n = self.fresh("r")
        if not shape:
            self.emit("%s = tensor.collapse_shape %s [] : %s into %s" % (
                n, cur.name, cur.type, ttype(shape, cur.elt)))
        else:
            self.emit("%s = tensor.expand_shape %s [[%s]] output_shape [%s] : %s into %s" % (
                n, cur.name, ", ".join(str(i) for i in range(len(shape))),
                ", ".join(str(d) for d in shape), cur.type, ttype(shape, cur.elt)))
        return Val(n, shape, cur.elt)

    def reduce(self, v, rdims, kind, keep_shape=None):
        """Sum or max over rdims; result without the reduced dims, then
        reshaped to keep_shape when given."""
        r = v.rank
        rdims = sorted(d % r for d in rdims) if r else []
        out_shape = [s for i, s in enumerate(v.shape) if i not in rdims]
        init = self.filled(out_shape, v.elt, 0.0 if kind == "sum" else float("-inf"))
        iters = ["reduction" if i in rdims else "parallel" for i in range(r)]
        omap = amap(r, ["d%d" % i for i in range(r) if i not in rdims])

        def body(a):
            if kind == "sum":
                return ["%%s = arith.addf %s, %s : %s" % (a[0], a[1], v.elt),
                        "linalg.yield %%s : %s" % v.elt]
            return ["%%s = arith.maximumf %s, %s : %s" % (a[0], a[1], v.elt),
                    "linalg.yield %%s : %s" % v.elt]

        res = self.generic([v], [amap(r, ["d%d" % i for i in range(r)])],
                           [init], [omap], iters, body)[0]
        if keep_shape is not None:
            res = self.reshape(res, keep_shape)
        return res

    def transpose(self, v, perm):
        perm = [p % v.rank for p in perm]
        if perm == list(range(v.rank)):
            return v
        shape = [v.shape[p] for p in perm]
        init = self.empty(shape, v.elt)
        n = self.fresh("t")
        self.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [%s]" % (
            n, v.name, v.type, init.name, init.type, ", ".join(str(p) for p in perm)))
        return Val(n, shape, v.elt)

    def pad(self, v, lo, hi, value):
        if not any(lo) and not any(hi):
            return v
        shape = [s + a + b for s, a, b in zip(v.shape, lo, hi)]
        n = self.fresh("p")
        idx = ", ".join("%%i%d: index" % i for i in range(v.rank))
        head = "%s = tensor.pad %s low[%s] high[%s] {" % (
            n, v.name, ", ".join(map(str, lo)), ", ".join(map(str, hi)))
        body = ["^bb0(%s):" % idx,
                "%%pv = arith.constant %s : %s" % (fconst(value, v.elt), v.elt),
                "tensor.yield %%pv : %s" % v.elt]
        self.emit_region(head, body, "} : %s to %s" % (v.type, ttype(shape, v.elt)))
        return Val(n, shape, v.elt)


def _fix_percent(lines):
    return lines


class Lowering:
    def __init__(self, joint, name):
        self.joint = joint
        self.name = name
        self.e = Emitter()
        self.values = {}
        self.masks = []  # (Val, label) of dropout masks made arguments
        self.externs = set()  # (C function, element type) called by payloads

    # -- helpers ----------------------------------------------------------
    def val(self, a):
        if isinstance(a, torch.fx.Node):
            return self.values[a]
        return a

    @staticmethod
    def meta(node):
        v = node.meta.get("val")
        if v is None:
            v = node.meta.get("tensor_meta")
        if v is None and node.target in (torch.ops.aten.detach.default,
                                         torch.ops.aten.alias.default):
            return Lowering.meta(node.args[0])
        return v

    def stand_in(self, node):
        m = self.meta(node)
        if m is None or isinstance(m, (tuple, list)):
            return Val("%unsupported", [], "f32")
        return Val("%unsupported", list(m.shape), DTYPES.get(m.dtype, "f32"))

    def out_info(self, node):
        v = self.meta(node)
        return list(v.shape), DTYPES[v.dtype]


BINARY_F = {
    "aten.add": "arith.addf", "aten.sub": "arith.subf", "aten.mul": "arith.mulf",
    "aten.div": "arith.divf", "aten.maximum": "arith.maximumf",
    "aten.minimum": "arith.minimumf",
}
UNARY_F = {
    "aten.exp": "math.exp", "aten.log": "math.log", "aten.rsqrt": "math.rsqrt",
    "aten.sqrt": "math.sqrt", "aten.tanh": "math.tanh",
    "aten.neg": "arith.negf", "aten.abs": "math.absf",
}
# The integer forms of BINARY_F (num_batches_tracked's increment).
BINARY_I = {"aten.add": "arith.addi", "aten.sub": "arith.subi",
            "aten.mul": "arith.muli"}
CMP_F = {"aten.le": "ole", "aten.lt": "olt", "aten.ge": "oge", "aten.gt": "ogt",
         "aten.eq": "oeq", "aten.ne": "une"}
PASS_THROUGH = {"aten.detach", "aten.alias", "aten.clone", "aten.lift_fresh_copy"}
RESHAPES = {"aten.view", "aten._unsafe_view", "aten._reshape_alias",
            "aten.reshape", "aten.squeeze", "aten.unsqueeze"}


def lower_node(L, n):
    e = L.e
    op = op_name(n)
    args = n.args
    m = L.meta(n)
    shape, elt = L.out_info(n) if m is not None and not isinstance(m, (tuple, list)) else (None, None)

    if op in PASS_THROUGH:
        return L.val(args[0])
    if op == "aten._to_copy":
        src = L.val(args[0])
        if src.elt == elt:
            return src
        raise KeyError(op + " (dtype conversion)")
    if op in RESHAPES:
        return e.reshape(L.val(args[0]), shape)
    if op in ("aten.transpose",):
        v = L.val(args[0])
        perm = list(range(v.rank))
        a, b = args[1] % v.rank, args[2] % v.rank
        perm[a], perm[b] = perm[b], perm[a]
        return e.transpose(v, perm)
    if op == "aten.t":
        v = L.val(args[0])
        return e.transpose(v, [1, 0]) if v.rank == 2 else v
    if op == "aten.permute":
        return e.transpose(L.val(args[0]), list(args[1]))
    if op == "aten.expand":
        v = L.val(args[0])
        if v.shape == shape:
            return v
        return e.elementwise([v], shape, elt, lambda s: ([], s[0]))
    if op in BINARY_F:
        a, b = L.val(args[0]), L.val(args[1])
        alpha = n.kwargs.get("alpha", 1)
        ops_ = [a, b]
        integer = elt.startswith("i")
        if integer and op not in BINARY_I:
            raise KeyError(op + " (integer)")
        instr = (BINARY_I if integer else BINARY_F)[op]

        def pay(s):
            lines = []
            rhs = s[1]
            if alpha != 1:
                lit = str(int(alpha)) if integer else fconst(alpha, elt)
                lines.append("%%al = arith.constant %s : %s" % (lit, elt))
                lines.append("%%am = %s %s, %%al : %s" % (
                    "arith.muli" if integer else "arith.mulf", rhs, elt))
                rhs = "%am"
            lines.append("%%r = %s %s, %s : %s" % (instr, s[0], rhs, elt))
            return lines, "%r"

        return e.elementwise(ops_, shape, elt, pay)
    if op in UNARY_F:
        instr = UNARY_F[op]
        return e.elementwise([L.val(args[0])], shape, elt,
                             lambda s: (["%%r = %s %s : %s" % (instr, s[0], elt)], "%r"))
    if op == "aten.erf":
        # remat-lower-to-cpu has no lowering of math.erf: call the C
        # library's erf/erff (declared in the module; the JIT resolves it).
        fn = "erff" if elt == "f32" else "erf"
        L.externs.add((fn, elt))
        return e.elementwise([L.val(args[0])], shape, elt, lambda s_: (
            ["%%r = func.call @%s(%s) : (%s) -> %s" % (fn, s_[0], elt, elt)], "%r"))
    if op == "aten.relu":
        return e.elementwise([L.val(args[0]), 0.0], shape, elt,
                             lambda s: (["%%r = arith.maximumf %s, %s : %s" % (s[0], s[1], elt)], "%r"))
    if op == "aten.sigmoid":
        def pay(s):
            return (["%%one = arith.constant 1.0 : %s" % elt,
                     "%%n = arith.negf %s : %s" % (s[0], elt),
                     "%%ex = math.exp %%n : %s" % elt,
                     "%%d = arith.addf %%one, %%ex : %s" % elt,
                     "%%r = arith.divf %%one, %%d : %s" % elt], "%r")
        return e.elementwise([L.val(args[0])], shape, elt, pay)
    if op == "aten.pow" and not isinstance(args[1], torch.fx.Node):
        ex = args[1]
        if ex == 2:
            return e.elementwise([L.val(args[0])], shape, elt,
                                 lambda s: (["%%r = arith.mulf %s, %s : %s" % (s[0], s[0], elt)], "%r"))
        return e.elementwise([L.val(args[0]), float(ex)], shape, elt,
                             lambda s: (["%%r = math.powf %s, %s : %s" % (s[0], s[1], elt)], "%r"))
    if op == "aten.clamp":
        lo, hi = args[1], args[2] if len(args) > 2 else None
        def pay(s_):
            lines, r = [], s_[0]
            if lo is not None:
                lines += ["%%lo = arith.constant %s : %s" % (fconst(lo, elt), elt),
                          "%%a = arith.maximumf %s, %%lo : %s" % (r, elt)]
                r = "%a"
            if hi is not None:
                lines += ["%%hi = arith.constant %s : %s" % (fconst(hi, elt), elt),
                          "%%b = arith.minimumf %s, %%hi : %s" % (r, elt)]
                r = "%b"
            return lines, r
        return e.elementwise([L.val(args[0])], shape, elt, pay)
    if op in ("aten.bitwise_or", "aten.logical_or", "aten.bitwise_and", "aten.logical_and") and elt == "i1":
        instr = "arith.ori" if op.endswith("or") else "arith.andi"
        return e.elementwise([L.val(args[0]), L.val(args[1])], shape, elt,
                             lambda s_: (["%%r = %s %s, %s : i1" % (instr, s_[0], s_[1])], "%r"))
    if op in CMP_F:
        a = L.val(args[0])
        b = L.val(args[1])
        pred = CMP_F[op]
        operands = [a, (float(b), a.elt) if not isinstance(b, Val) else b]
        return e.elementwise(operands, shape, "i1",
                             lambda s: (["%%r = arith.cmpf %s, %s, %s : %s" % (pred, s[0], s[1], a.elt)], "%r"))
    if op == "aten.where":
        c, a, b = (L.val(x) for x in args[:3])
        ops_ = [c] + [x if isinstance(x, Val) else (float(x), elt) for x in (a, b)]
        return e.elementwise(ops_, shape, elt,
                             lambda s: (["%%r = arith.select %s, %s, %s : %s" % (s[0], s[1], s[2], elt)], "%r"))
    if op == "prims.convert_element_type":
        src = L.val(args[0])
        if src.elt == elt:
            return src
        if src.elt in ("f32", "f64") and elt in ("f32", "f64"):
            instr = "arith.extf" if elt == "f64" else "arith.truncf"
            return e.elementwise([src], shape, elt, lambda s_: (
                ["%%r = %s %s : %s to %s" % (instr, s_[0], src.elt, elt)], "%r"))
        raise KeyError(op + " (%s to %s)" % (src.elt, elt))
    if op == "prims.broadcast_in_dim":
        src = L.val(args[0])
        bdims = list(args[2])
        r = len(shape)
        res = []
        for i, d in enumerate(bdims):
            res.append("0" if src.shape[i] == 1 and shape[d] != 1 else "d%d" % d)
        init = e.empty(shape, elt)
        return e.generic([src], [amap(r, res)], [init], [amap(r, ["d%d" % i for i in range(r)])],
                         ["parallel"] * r, lambda a: ["linalg.yield %s : %s" % (a[0], elt)])[0]
    if op in ("prims.sum", "prims.var"):
        v = L.val(args[0])
        rd = list(args[1])
        if op == "prims.sum":
            return e.reduce(v, rd, "sum", keep_shape=shape)
        return lower_var(e, v, rd, n.kwargs.get("correction", args[2] if len(args) > 2 else 1), shape)
    if op == "prims.div":
        a, b = L.val(args[0]), L.val(args[1])
        return e.elementwise([a, b if isinstance(b, Val) else float(b)], shape, elt,
                             lambda s_: (["%%r = arith.divf %s, %s : %s" % (s_[0], s_[1], elt)], "%r"))
    if op == "aten.cat":
        dim = args[1] if len(args) > 1 else 0
        parts = [L.val(a) for a in args[0]]
        dim %= len(shape)
        acc = e.empty(shape, elt)
        off = 0
        for p_ in parts:
            if p_.shape[dim] == 0:
                continue
            offs = [0] * len(shape)
            offs[dim] = off
            acc = insert_slice(e, p_, acc, offs, p_.shape, [1] * len(shape))
            off += p_.shape[dim]
        return acc
    if op == "aten.split_with_sizes" or op == "aten.split":
        v = L.val(args[0])
        dim = (args[2] if len(args) > 2 else 0) % v.rank
        sizes = args[1]
        if isinstance(sizes, int):
            sizes = [min(sizes, v.shape[dim] - i) for i in range(0, v.shape[dim], sizes)]
        outs, off = [], 0
        for sz in sizes:
            offs = [0] * v.rank
            offs[dim] = off
            size = list(v.shape)
            size[dim] = sz
            outs.append(extract_slice(e, v, offs, size, [1] * v.rank, size))
            off += sz
        return tuple(outs)
    if op == "aten.slice":
        v = L.val(args[0])
        dim, start, end, step = (list(args[1:]) + [0, None, None, 1][len(args) - 1:])[:4]
        dim %= v.rank
        start, end, step = slice(start, end, step).indices(v.shape[dim])
        offs = [0] * v.rank
        offs[dim] = start
        strides = [1] * v.rank
        strides[dim] = step
        return extract_slice(e, v, offs, shape, strides, shape)
    if op == "aten.select":
        v = L.val(args[0])
        dim, index = args[1] % v.rank, args[2] % v.shape[args[1] % v.rank]
        offs = [0] * v.rank
        offs[dim] = index
        size = list(v.shape)
        size[dim] = 1
        return extract_slice(e, v, offs, size, [1] * v.rank, shape)
    if op == "aten.select_scatter":
        base, src = L.val(args[0]), L.val(args[1])
        dim = args[2] % base.rank
        index = args[3] % base.shape[dim]
        offs = [0] * base.rank
        offs[dim] = index
        size = list(base.shape)
        size[dim] = 1
        return insert_slice(e, src, base, offs, size, [1] * base.rank)
    if op == "aten.slice_scatter":
        base, src = L.val(args[0]), L.val(args[1])
        dim, start, end, step = (list(args[2:]) + [0, None, None, 1][len(args) - 2:])[:4]
        dim %= base.rank
        start, end, step = slice(start, end, step).indices(base.shape[dim])
        offs = [0] * base.rank
        offs[dim] = start
        strides = [1] * base.rank
        strides[dim] = step
        return insert_slice(e, src, base, offs, src.shape, strides)
    if op in ("aten.empty_like", "aten.empty"):
        return e.empty(shape, elt)
    if op in ("aten.bernoulli_", "aten.bernoulli"):
        # The random mask becomes an argument of the step: recomputing the
        # dropout reuses the same mask (docs/Importer.md, "Dropout").
        v = L.meta(n)
        k = len(L.masks)
        val = Val("%%dropout_mask_%d" % k, list(v.shape), DTYPES[v.dtype])
        L.masks.append((val, "%s/dropout mask" % (n.meta.get("remat_path", "") or "<top>")))
        return val
    if op == "aten.scalar_tensor":
        c = e.fresh("c")
        e.emit("%s = arith.constant dense<%s> : %s" % (c, fconst(args[0], elt), ttype([], elt)))
        return Val(c, [], elt)
    if op in ("aten.zeros_like", "aten.zeros", "aten.new_zeros"):
        return e.filled(shape, elt, 0.0 if elt.startswith("f") else 0)
    if op in ("aten.ones_like", "aten.ones", "aten.new_ones"):
        return e.filled(shape, elt, 1.0 if elt.startswith("f") else 1)
    if op == "aten.full":
        return e.filled(shape, elt, args[1])
    if op in ("aten.sum", "aten.mean", "aten.amax"):
        v = L.val(args[0])
        rd = list(args[1]) if len(args) > 1 and args[1] is not None else list(range(v.rank))
        if not rd:
            rd = list(range(v.rank))
        res = e.reduce(v, rd, "max" if op == "aten.amax" else "sum", keep_shape=shape)
        if op == "aten.mean":
            cnt = 1
            for d in rd:
                cnt *= v.shape[d]
            res = e.elementwise([res, 1.0 / cnt], shape, elt,
                                lambda s: (["%%r = arith.mulf %s, %s : %s" % (s[0], s[1], elt)], "%r"))
        return res
    if op == "aten.var":
        corr = n.kwargs.get("correction", 1)
        return lower_var(e, L.val(args[0]), list(args[1]), 1 if corr is None else corr, shape)
    if op == "aten.mm":
        a, b = L.val(args[0]), L.val(args[1])
        init = e.filled(shape, elt, 0.0)
        r = e.fresh("mm")
        e.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            r, a.name, b.name, a.type, b.type, init.name, init.type, init.type))
        return Val(r, shape, elt)
    if op == "aten.bmm":
        a, b = L.val(args[0]), L.val(args[1])
        init = e.filled(shape, elt, 0.0)
        r = e.fresh("bmm")
        e.emit("%s = linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            r, a.name, b.name, a.type, b.type, init.name, init.type, init.type))
        return Val(r, shape, elt)
    if op == "aten.convolution":
        return lower_conv(L, n)
    if op == "aten.convolution_backward":
        return lower_conv_backward(L, n)
    if op == "aten.max_pool2d_with_indices":
        return lower_maxpool(L, n)
    if op == "aten.max_pool2d_with_indices_backward":
        return lower_maxpool_backward(L, n)
    if op == "aten.avg_pool2d":
        return lower_avg_pool(L, n)
    if op == "aten.avg_pool2d_backward":
        return lower_avg_pool_backward(L, n)
    if op == "aten._adaptive_avg_pool2d":
        return lower_adaptive_avg_pool(L, n)
    if op == "aten._adaptive_avg_pool2d_backward":
        return lower_adaptive_avg_pool_backward(L, n)
    if op == "aten.nll_loss_forward":
        return lower_nll_loss(L, n)
    if op == "remat.all_reduce_sum":
        # Synchronized batch norm (shard_export.py): the sum over the
        # data-parallel grid the per-rank step is written for.
        v = L.val(args[0])
        name = e.fresh("ar")
        e.emit("%s = shard.all_reduce %s on @dp grid_axes = [0] : %s -> %s"
               % (name, v.name, v.type, v.type))
        return Val(name, v.shape, v.elt)
    if op == "aten.scatter" and len(args) == 4 and not isinstance(args[3], torch.fx.Node):
        return lower_scatter_value(L, n)
    raise KeyError(op)


def lower_var(e, v, rd, corr, shape):
    """Two-pass variance over rd with Bessel correction corr."""
    elt = v.elt
    rd = [d % v.rank for d in rd]
    cnt = 1
    for d in rd:
        cnt *= v.shape[d]
    keep = [1 if i in rd else s for i, s in enumerate(v.shape)]
    mean = e.reduce(v, rd, "sum", keep_shape=keep)
    mean = e.elementwise([mean, 1.0 / cnt], keep, elt,
                         lambda s: (["%%r = arith.mulf %s, %s : %s" % (s[0], s[1], elt)], "%r"))
    sq = e.elementwise([v, mean], v.shape, elt,
                       lambda s: (["%%d = arith.subf %s, %s : %s" % (s[0], s[1], elt),
                                   "%%r = arith.mulf %%d, %%d : %s" % elt], "%r"))
    tot = e.reduce(sq, rd, "sum", keep_shape=shape)
    return e.elementwise([tot, 1.0 / (cnt - corr)], shape, elt,
                         lambda s: (["%%r = arith.mulf %s, %s : %s" % (s[0], s[1], elt)], "%r"))


def extract_slice(e, v, offs, sizes, strides, result_shape):
    n = e.fresh("sl")
    e.emit("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
        n, v.name, ", ".join(map(str, offs)), ", ".join(map(str, sizes)),
        ", ".join(map(str, strides)), v.type, ttype(result_shape, v.elt)))
    return Val(n, result_shape, v.elt)


def insert_slice(e, src, dest, offs, sizes, strides):
    n = e.fresh("ins")
    e.emit("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s" % (
        n, src.name, dest.name, ", ".join(map(str, offs)), ", ".join(map(str, sizes)),
        ", ".join(map(str, strides)), src.type, dest.type))
    return Val(n, dest.shape, dest.elt)


def lower_conv(L, n):
    e = L.e
    x, w, b = L.val(n.args[0]), L.val(n.args[1]), n.args[2]
    stride, pad, dil, transposed, _, groups = n.args[3:9]
    shape, elt = L.out_info(n)
    if transposed:
        raise KeyError("aten.convolution (transposed)")
    xp = e.pad(x, [0, 0, pad[0], pad[1]], [0, 0, pad[0], pad[1]], 0.0)
    if groups != 1:
        out = grouped_conv(e, xp, w, groups, stride, dil, shape)
        if b is not None:
            bv = e.reshape(L.val(b), [shape[1], 1, 1])
            out = e.elementwise([out, bv], shape, elt,
                                lambda s: (["%%r = arith.addf %s, %s : %s" % (s[0], s[1], elt)], "%r"))
        return out
    init = e.filled(shape, elt, 0.0)
    r = e.fresh("conv")
    e.emit("%s = linalg.conv_2d_nchw_fchw {dilations = dense<[%d, %d]> : tensor<2xi64>, strides = dense<[%d, %d]> : tensor<2xi64>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
        r, dil[0], dil[1], stride[0], stride[1], xp.name, w.name, xp.type, w.type,
        init.name, init.type, init.type))
    out = Val(r, shape, elt)
    if b is not None:
        bv = e.reshape(L.val(b), [shape[1], 1, 1])
        out = e.elementwise([out, bv], shape, elt,
                            lambda s: (["%%r = arith.addf %s, %s : %s" % (s[0], s[1], elt)], "%r"))
    return out


def group_reassociation(rank, dim):
    """Reassociation between a rank-`rank` shape and the same shape with
    dimension `dim` split in two: [[0], .., [dim, dim+1], [dim+2], ..]."""
    return [[i] if i < dim else [i, i + 1] if i == dim else [i + 1]
            for i in range(rank)]


def split_groups(e, v, groups, dim):
    """[.., C, ..] -> [.., G, C/G, ..] at dim (a view)."""
    shape = v.shape[:dim] + [groups, v.shape[dim] // groups] + v.shape[dim + 1:]
    reassoc = group_reassociation(v.rank, dim)
    n = e.fresh("grp")
    e.emit("%s = tensor.expand_shape %s [%s] output_shape [%s] : %s into %s" % (
        n, v.name, ", ".join("[%s]" % ", ".join(map(str, r)) for r in reassoc),
        ", ".join(map(str, shape)), v.type, ttype(shape, v.elt)))
    return Val(n, shape, v.elt)


def merge_groups(e, v, dim, shape):
    """[.., G, C/G, ..] at dim -> [.., C, ..] (a view)."""
    reassoc = group_reassociation(v.rank - 1, dim)
    n = e.fresh("grp")
    e.emit("%s = tensor.collapse_shape %s [%s] : %s into %s" % (
        n, v.name, ", ".join("[%s]" % ", ".join(map(str, r)) for r in reassoc),
        v.type, ttype(shape, v.elt)))
    return Val(n, shape, v.elt)


MAC_BODY = lambda elt: (lambda a: [
    "%%m = arith.mulf %s, %s : %s" % (a[0], a[1], elt),
    "%%s = arith.addf %s, %%m : %s" % (a[2], elt),
    "linalg.yield %%s : %s" % elt])


def grouped_conv(e, xp, w, groups, stride, dil, shape):
    """out[n, g, f, oh, ow] = sum_{c, kh, kw} x[n, g, c, oh*s + kh*d, ...]
    * w[g, f, c, kh, kw]; loops (n, g, f, oh, ow, c, kh, kw)."""
    x5 = split_groups(e, xp, groups, 1)
    w5 = split_groups(e, w, groups, 0)
    N, F, OH, OW = shape
    init = e.filled([N, groups, F // groups, OH, OW], xp.elt, 0.0)
    xm = amap(8, ["d0", "d1", "d5", "d3 * %d + d6 * %d" % (stride[0], dil[0]),
                  "d4 * %d + d7 * %d" % (stride[1], dil[1])])
    wm = amap(8, ["d1", "d2", "d5", "d6", "d7"])
    om = amap(8, ["d0", "d1", "d2", "d3", "d4"])
    out = e.generic([x5, w5], [xm, wm], [init], [om], ["parallel"] * 5 + ["reduction"] * 3,
                    MAC_BODY(xp.elt), hint="gconv")[0]
    return merge_groups(e, out, 1, shape)


def grouped_conv_grad_input(e, gp, w, groups, dil, shape):
    """gin[n, g, c, h, w] = sum_{f, kh, kw} gp[n, g, f, h + kh*d, w + kw*d]
    * w[g, f, c, K-1-kh, K-1-kw]; loops (n, g, c, h, w, f, kh, kw)."""
    g5 = split_groups(e, gp, groups, 1)
    w5 = split_groups(e, w, groups, 0)
    N, C, H, W = shape
    KH, KW = w.shape[2], w.shape[3]
    init = e.filled([N, groups, C // groups, H, W], gp.elt, 0.0)
    gm = amap(8, ["d0", "d1", "d5", "d3 + d6 * %d" % dil[0], "d4 + d7 * %d" % dil[1]])
    wm = amap(8, ["d1", "d5", "d2", "%d - d6" % (KH - 1), "%d - d7" % (KW - 1)])
    om = amap(8, ["d0", "d1", "d2", "d3", "d4"])
    # kh, kw appear only in non-trivial expressions: a window operand gives
    # their ranges, as in linalg.pooling_*.
    win = e.empty([KH, KW], gp.elt)
    winm = amap(8, ["d6", "d7"])
    out = e.generic([g5, w5, win], [gm, wm, winm], [init], [om],
                    ["parallel"] * 5 + ["reduction"] * 3,
                    lambda a: ["%%m = arith.mulf %s, %s : %s" % (a[0], a[1], gp.elt),
                               "%%s = arith.addf %s, %%m : %s" % (a[3], gp.elt),
                               "linalg.yield %%s : %s" % gp.elt], hint="gin")[0]
    return merge_groups(e, out, 1, shape)


def grouped_conv_grad_weight(e, xp, g, w, groups, stride, dil):
    """gw[g, f, c, kh, kw] = sum_{n, oh, ow} x[n, g, c, oh*s + kh*d, ...]
    * gout[n, g, f, oh, ow]; loops (g, f, c, kh, kw, n, oh, ow)."""
    x5 = split_groups(e, xp, groups, 1)
    g5 = split_groups(e, g, groups, 1)
    F, Cg, KH, KW = w.shape
    init = e.filled([groups, F // groups, Cg, KH, KW], xp.elt, 0.0)
    xm = amap(8, ["d5", "d0", "d2", "d6 * %d + d3 * %d" % (stride[0], dil[0]),
                  "d7 * %d + d4 * %d" % (stride[1], dil[1])])
    gm = amap(8, ["d5", "d0", "d1", "d6", "d7"])
    om = amap(8, ["d0", "d1", "d2", "d3", "d4"])
    out = e.generic([x5, g5], [xm, gm], [init], [om], ["parallel"] * 5 + ["reduction"] * 3,
                    MAC_BODY(xp.elt), hint="gw")[0]
    return merge_groups(e, out, 0, list(w.shape))


def lower_conv_backward(L, n):
    e = L.e
    g, x, w = (L.val(a) for a in n.args[:3])
    _, stride, pad, dil, transposed, _, groups, mask = n.args[3:11]
    if transposed:
        raise KeyError("aten.convolution_backward (transposed)")
    elt = g.elt
    N, F, OH, OW = g.shape
    _, C, H, W = x.shape
    KH, KW = w.shape[2], w.shape[3]
    results = [None, None, None]
    if mask[0]:
        # grad_input = conv(zero-insert(g, stride) padded by d(K-1)-p,
        #                   flip(W)^T, stride 1, dilation d)
        lo = [dil[0] * (KH - 1) - pad[0], dil[1] * (KW - 1) - pad[1]]
        if lo[0] < 0 or lo[1] < 0:
            raise KeyError("aten.convolution_backward (padding > dilation*(kernel-1))")
        HP, WP = H + dil[0] * (KH - 1), W + dil[1] * (KW - 1)
        gp = g
        if [HP, WP] != [OH, OW] or stride != [1, 1] or lo != [0, 0]:
            z = e.filled([N, F, HP, WP], elt, 0.0)
            r = e.fresh("ins")
            e.emit("%s = tensor.insert_slice %s into %s[0, 0, %d, %d] [%d, %d, %d, %d] [1, 1, %d, %d] : %s into %s" % (
                r, g.name, z.name, lo[0], lo[1], N, F, OH, OW, stride[0], stride[1], g.type, z.type))
            gp = Val(r, [N, F, HP, WP], elt)
        if groups != 1:
            results[0] = grouped_conv_grad_input(e, gp, w, groups, dil, [N, C, H, W])
        else:
          finit = e.empty([C, F, KH, KW], elt)
          wf = e.generic([w], [amap(4, ["d1", "d0", "%d - d2" % (KH - 1), "%d - d3" % (KW - 1)])],
                         [finit], [amap(4, ["d0", "d1", "d2", "d3"])], ["parallel"] * 4,
                         lambda a: ["linalg.yield %s : %s" % (a[0], elt)])[0]
          init = e.filled([N, C, H, W], elt, 0.0)
          r = e.fresh("gin")
          e.emit("%s = linalg.conv_2d_nchw_fchw {dilations = dense<[%d, %d]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
              r, dil[0], dil[1], gp.name, wf.name, gp.type, wf.type, init.name, init.type, init.type))
          results[0] = Val(r, [N, C, H, W], elt)
    if mask[1] and groups != 1:
        xp = e.pad(x, [0, 0, pad[0], pad[1]], [0, 0, pad[0], pad[1]], 0.0)
        results[1] = grouped_conv_grad_weight(e, xp, g, w, groups, stride, dil)
    elif mask[1]:
        xp = e.pad(x, [0, 0, pad[0], pad[1]], [0, 0, pad[0], pad[1]], 0.0)
        init = e.filled(list(w.shape), elt, 0.0)
        xm = amap(7, ["d4", "d1", "d5 * %d + d2 * %d" % (stride[0], dil[0]),
                      "d6 * %d + d3 * %d" % (stride[1], dil[1])])
        gm = amap(7, ["d4", "d0", "d5", "d6"])
        om = amap(7, ["d0", "d1", "d2", "d3"])
        results[1] = e.generic(
            [xp, g], [xm, gm], [init], [om], ["parallel"] * 4 + ["reduction"] * 3,
            lambda a: ["%%m = arith.mulf %s, %s : %s" % (a[0], a[1], elt),
                       "%%s = arith.addf %s, %%m : %s" % (a[2], elt),
                       "linalg.yield %%s : %s" % elt], hint="gw")[0]
    if mask[2]:
        results[2] = e.reduce(g, [0, 2, 3], "sum")
    return tuple(results)


def pool_out_size(size, k, stride, pad, dil, ceil):
    """PyTorch's pooling output size; with ceil_mode the last window may
    start in the padding on the right but not beyond it."""
    span = size + 2 * pad - dil * (k - 1) - 1
    out = (span + (stride - 1 if ceil else 0)) // stride + 1
    if ceil and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def pool_high_pad(size, out, k, stride, pad, dil):
    """Padding on the right that holds every window of `out` outputs (more
    than `pad` when ceil_mode adds a last, partial window)."""
    return max(pad, (out - 1) * stride + dil * (k - 1) + 1 - size - pad)


def lower_maxpool(L, n):
    e = L.e
    x = L.val(n.args[0])
    k = list(n.args[1])
    stride = list(n.args[2]) if len(n.args) > 2 and n.args[2] else k
    pad = list(n.args[3]) if len(n.args) > 3 else [0, 0]
    dil = list(n.args[4]) if len(n.args) > 4 else [1, 1]
    ceil = n.args[5] if len(n.args) > 5 else False
    out = [pool_out_size(x.shape[2 + i], k[i], stride[i], pad[i], dil[i], ceil)
           for i in range(2)]
    shape = list(x.shape[:2]) + out
    elt = x.elt
    H, W = x.shape[2], x.shape[3]
    hi = [pool_high_pad(x.shape[2 + i], out[i], k[i], stride[i], pad[i], dil[i])
          for i in range(2)]
    xp = e.pad(x, [0, 0, pad[0], pad[1]], [0, 0, hi[0], hi[1]], float("-inf"))
    win = e.empty(k, elt)
    vinit = e.filled(shape, elt, float("-inf"))
    iinit = e.filled(shape, "i64", 0)
    xm = amap(6, ["d0", "d1", "d2 * %d + d4 * %d" % (stride[0], dil[0]),
                  "d3 * %d + d5 * %d" % (stride[1], dil[1])])
    wm = amap(6, ["d4", "d5"])
    om = amap(6, ["d0", "d1", "d2", "d3"])

    def body(a):
        return [
            "%oh = linalg.index 2 : index", "%ow = linalg.index 3 : index",
            "%kh = linalg.index 4 : index", "%kw = linalg.index 5 : index",
            "%%h0 = affine.apply affine_map<(a, b) -> (a * %d + b * %d - %d)>(%%oh, %%kh)" % (stride[0], dil[0], pad[0]),
            "%%w0 = affine.apply affine_map<(a, b) -> (a * %d + b * %d - %d)>(%%ow, %%kw)" % (stride[1], dil[1], pad[1]),
            "%%fl = affine.apply affine_map<(a, b) -> (a * %d + b)>(%%h0, %%w0)" % W,
            "%fi = arith.index_cast %fl : index to i64",
            "%%gt = arith.cmpf ogt, %s, %s : %s" % (a[0], a[2], elt),
            "%%nan = arith.cmpf uno, %s, %s : %s" % (a[0], a[0], elt),
            "%take = arith.ori %gt, %nan : i1",
            "%%v = arith.select %%take, %s, %s : %s" % (a[0], a[2], elt),
            "%%i = arith.select %%take, %%fi, %s : i64" % a[3],
            "linalg.yield %%v, %%i : %s, i64" % elt]

    res = e.generic([xp, win], [xm, wm], [vinit, iinit], [om, om],
                    ["parallel"] * 4 + ["reduction"] * 2, body, hint="mp")
    return tuple(res)


def lower_maxpool_backward(L, n):
    e = L.e
    g, x = L.val(n.args[0]), L.val(n.args[1])
    k = list(n.args[2])
    stride = list(n.args[3]) if n.args[3] else k
    pad, dil, ceil, idx = list(n.args[4]), list(n.args[5]), n.args[6], L.val(n.args[7])
    elt = g.elt
    N, C, OH, OW = g.shape
    H, W = x.shape[2], x.shape[3]
    HP = H + pad[0] + pool_high_pad(H, OH, k[0], stride[0], pad[0], dil[0])
    WP = W + pad[1] + pool_high_pad(W, OW, k[1], stride[1], pad[1], dil[1])
    acc = e.filled([N, C, HP, WP], elt, 0.0)
    sl_shape = [N, C, OH, OW]
    for kh in range(k[0]):
        for kw in range(k[1]):
            s = e.fresh("sl")
            e.emit("%s = tensor.extract_slice %s[0, 0, %d, %d] [%d, %d, %d, %d] [1, 1, %d, %d] : %s to %s" % (
                s, acc.name, kh * dil[0], kw * dil[1], N, C, OH, OW, stride[0], stride[1],
                acc.type, ttype(sl_shape, elt)))
            sv = Val(s, sl_shape, elt)
            idm = amap(4, ["d0", "d1", "d2", "d3"])

            def body(a, kh=kh, kw=kw):
                return [
                    "%oh = linalg.index 2 : index", "%ow = linalg.index 3 : index",
                    "%%fl = affine.apply affine_map<(a, b) -> (a * %d + b * %d)>(%%oh, %%ow)" % (stride[0] * W, stride[1]),
                    "%fi = arith.index_cast %fl : index to i64",
                    "%%off = arith.constant %d : i64" % ((kh * dil[0] - pad[0]) * W + kw * dil[1] - pad[1]),
                    "%pos = arith.addi %fi, %off : i64",
                    "%%hit = arith.cmpi eq, %s, %%pos : i64" % a[2],
                    "%%z = arith.constant 0.0 : %s" % elt,
                    "%%add = arith.select %%hit, %s, %%z : %s" % (a[1], elt),
                    "%%r = arith.addf %s, %%add : %s" % (a[0], elt),
                    "linalg.yield %%r : %s" % elt]

            init = e.empty(sl_shape, elt)
            upd = e.generic([sv, g, idx], [idm, idm, idm], [init], [idm],
                            ["parallel"] * 4, body, hint="mpb")[0]
            r = e.fresh("acc")
            e.emit("%s = tensor.insert_slice %s into %s[0, 0, %d, %d] [%d, %d, %d, %d] [1, 1, %d, %d] : %s into %s" % (
                r, upd.name, acc.name, kh * dil[0], kw * dil[1], N, C, OH, OW, stride[0], stride[1],
                upd.type, acc.type))
            acc = Val(r, acc.shape, elt)
    if [HP, WP] == [H, W]:
        return acc
    r = e.fresh("gin")
    e.emit("%s = tensor.extract_slice %s[0, 0, %d, %d] [%d, %d, %d, %d] [1, 1, 1, 1] : %s to %s" % (
        r, acc.name, pad[0], pad[1], N, C, H, W, acc.type, ttype([N, C, H, W], elt)))
    return Val(r, [N, C, H, W], elt)


def avg_pool_params(args, what):
    """kernel, stride, padding of avg_pool2d(_backward)'s arguments from
    position 0 (kernel_size); only a fixed divisor kh * kw is lowered."""
    k = list(args[0])
    stride = list(args[1]) if len(args) > 1 and args[1] else k
    pad = list(args[2]) if len(args) > 2 else [0, 0]
    ceil = args[3] if len(args) > 3 else False
    include = args[4] if len(args) > 4 else True
    override = args[5] if len(args) > 5 else None
    if ceil or override is not None or (not include and any(pad)):
        raise KeyError(what + " (ceil_mode, divisor_override, or padding "
                       "not counted)")
    return k, stride, pad


def lower_avg_pool(L, n):
    """Window sum over the zero-padded input (window operand as in
    linalg.pooling_*), then / (kh * kw)."""
    e = L.e
    x = L.val(n.args[0])
    k, stride, pad = avg_pool_params(n.args[1:], "aten.avg_pool2d")
    elt = x.elt
    shape = list(x.shape[:2]) + [
        pool_out_size(x.shape[2 + i], k[i], stride[i], pad[i], 1, False)
        for i in range(2)]
    xp = e.pad(x, [0, 0, pad[0], pad[1]], [0, 0, pad[0], pad[1]], 0.0)
    xm = amap(6, ["d0", "d1", "d2 * %d + d4" % stride[0],
                  "d3 * %d + d5" % stride[1]])
    tot = e.generic([xp, e.empty(k, elt)], [xm, amap(6, ["d4", "d5"])],
                    [e.filled(shape, elt, 0.0)], [amap(6, ["d0", "d1", "d2", "d3"])],
                    ["parallel"] * 4 + ["reduction"] * 2,
                    lambda a: ["%%s = arith.addf %s, %s : %s" % (a[2], a[0], elt),
                               "linalg.yield %%s : %s" % elt], hint="ap")[0]
    return e.elementwise([tot, float(k[0] * k[1])], shape, elt, lambda s_: (
        ["%%r = arith.divf %s, %s : %s" % (s_[0], s_[1], elt)], "%r"))


def lower_avg_pool_backward(L, n):
    """grad_out / (kh * kw) added into the padded input gradient once per
    window offset (strided extract_slice, add, insert_slice)."""
    e = L.e
    g, x = L.val(n.args[0]), L.val(n.args[1])
    k, stride, pad = avg_pool_params(n.args[2:], "aten.avg_pool2d_backward")
    elt = g.elt
    N, C, OH, OW = g.shape
    H, W = x.shape[2], x.shape[3]
    gd = e.elementwise([g, float(k[0] * k[1])], g.shape, elt, lambda s_: (
        ["%%r = arith.divf %s, %s : %s" % (s_[0], s_[1], elt)], "%r"))
    acc = e.filled([N, C, H + 2 * pad[0], W + 2 * pad[1]], elt, 0.0)
    for kh in range(k[0]):
        for kw in range(k[1]):
            offs = [0, 0, kh, kw]
            strides = [1, 1, stride[0], stride[1]]
            sl = extract_slice(e, acc, offs, g.shape, strides, g.shape)
            upd = e.elementwise([sl, gd], g.shape, elt, lambda s_: (
                ["%%r = arith.addf %s, %s : %s" % (s_[0], s_[1], elt)], "%r"))
            acc = insert_slice(e, upd, acc, offs, g.shape, strides)
    if not any(pad):
        return acc
    return extract_slice(e, acc, [0, 0, pad[0], pad[1]], [N, C, H, W],
                         [1, 1, 1, 1], [N, C, H, W])


def adaptive_window(out_dim, in_dim, in_size, out_size, tag, elt):
    """Payload lines of an adaptive pooling window along one axis: output
    index o (linalg.index out_dim) covers inputs [o*I floordiv O,
    ((o+1)*I + O-1) floordiv O); defines %<tag>in (the input index inside
    it, i1) and %<tag>k (its length, as elt)."""
    return [
        "%%%so = linalg.index %d : index" % (tag, out_dim),
        "%%%si = linalg.index %d : index" % (tag, in_dim),
        "%%%slo = affine.apply affine_map<(a) -> ((a * %d) floordiv %d)>(%%%so)" % (
            tag, in_size, out_size, tag),
        "%%%shi = affine.apply affine_map<(a) -> ((a * %d + %d) floordiv %d)>(%%%so)" % (
            tag, in_size, in_size + out_size - 1, out_size, tag),
        "%%%sge = arith.cmpi sge, %%%si, %%%slo : index" % (tag, tag, tag),
        "%%%slt = arith.cmpi slt, %%%si, %%%shi : index" % (tag, tag, tag),
        "%%%sin = arith.andi %%%sge, %%%slt : i1" % (tag, tag, tag),
        "%%%sn = arith.subi %%%shi, %%%slo : index" % (tag, tag, tag),
        "%%%sni = arith.index_cast %%%sn : index to i64" % (tag, tag),
        "%%%sk = arith.sitofp %%%sni : i64 to %s" % (tag, tag, elt)]


def lower_adaptive_avg_pool(L, n):
    """out[n,c,oh,ow] = (sum of x over the window) / kh / kw, as PyTorch's
    CPU kernel: one linalg.generic over (n, c, oh, ow, h, w) summing the
    inputs inside the window, then the division."""
    e = L.e
    x = L.val(n.args[0])
    N, C, H, W = x.shape
    OH, OW = list(n.args[1])
    elt = x.elt
    shape = [N, C, OH, OW]

    def body(a):
        return (adaptive_window(2, 4, H, OH, "h", elt) +
                adaptive_window(3, 5, W, OW, "w", elt) +
                ["%in = arith.andi %hin, %win : i1",
                 "%%s = arith.addf %s, %s : %s" % (a[1], a[0], elt),
                 "%%r = arith.select %%in, %%s, %s : %s" % (a[1], elt),
                 "linalg.yield %%r : %s" % elt])

    acc = e.filled(shape, elt, 0.0)
    tot = e.generic([x], [amap(6, ["d0", "d1", "d4", "d5"])], [acc],
                    [amap(6, ["d0", "d1", "d2", "d3"])],
                    ["parallel"] * 4 + ["reduction"] * 2, body, hint="aap")[0]

    def div(a):
        return (adaptive_window(2, 2, H, OH, "h", elt) +
                adaptive_window(3, 3, W, OW, "w", elt) +
                ["%%q = arith.divf %s, %%hk : %s" % (a[0], elt),
                 "%%r = arith.divf %%q, %%wk : %s" % elt,
                 "linalg.yield %%r : %s" % elt])

    idm = amap(4, ["d0", "d1", "d2", "d3"])
    return e.generic([tot], [idm], [e.empty(shape, elt)], [idm],
                     ["parallel"] * 4, div, hint="aap")[0]


def lower_adaptive_avg_pool_backward(L, n):
    """grad_in[n,c,h,w] = sum over the windows holding (h, w) of
    grad_out / kh / kw (PyTorch's CPU kernel): one linalg.generic over
    (n, c, h, w, oh, ow)."""
    e = L.e
    g, x = L.val(n.args[0]), L.val(n.args[1])
    N, C, OH, OW = g.shape
    H, W = x.shape[2], x.shape[3]
    elt = g.elt

    def body(a):
        return (adaptive_window(4, 2, H, OH, "h", elt) +
                adaptive_window(5, 3, W, OW, "w", elt) +
                ["%in = arith.andi %hin, %win : i1",
                 "%%q = arith.divf %s, %%hk : %s" % (a[0], elt),
                 "%%d = arith.divf %%q, %%wk : %s" % elt,
                 "%%s = arith.addf %s, %%d : %s" % (a[1], elt),
                 "%%r = arith.select %%in, %%s, %s : %s" % (a[1], elt),
                 "linalg.yield %%r : %s" % elt])

    acc = e.filled(x.shape, elt, 0.0)
    return e.generic([g], [amap(6, ["d0", "d1", "d4", "d5"])], [acc],
                     [amap(6, ["d0", "d1", "d2", "d3"])],
                     ["parallel"] * 4 + ["reduction"] * 2, body, hint="aapb")[0]


def lower_nll_loss(L, n):
    e = L.e
    x, t = L.val(n.args[0]), L.val(n.args[1])
    weight, reduction, ignore = n.args[2], n.args[3], n.args[4]
    if weight is not None or reduction != 1 or x.rank != 2:
        raise KeyError("aten.nll_loss_forward (weights, reduction other than mean, or not 2-D)")
    elt = x.elt
    N, C = x.shape
    init = e.filled([], elt, 0.0)

    def body(a):
        return ["%c = linalg.index 1 : index",
                "%ci = arith.index_cast %c : index to i64",
                "%%hit = arith.cmpi eq, %%ci, %s : i64" % a[1],
                "%%z = arith.constant 0.0 : %s" % elt,
                "%%v = arith.select %%hit, %s, %%z : %s" % (a[0], elt),
                "%%r = arith.subf %s, %%v : %s" % (a[2], elt),
                "linalg.yield %%r : %s" % elt]

    tot = e.generic([x, t], [amap(2, ["d0", "d1"]), amap(2, ["d0"])], [init], [amap(2, [])],
                    ["reduction", "reduction"], body, hint="nll")[0]
    loss = e.elementwise([tot, 1.0 / N], [], elt,
                         lambda s: (["%%r = arith.mulf %s, %s : %s" % (s[0], s[1], elt)], "%r"))
    c = e.fresh("c")
    e.emit("%s = arith.constant dense<%s> : %s" % (c, fconst(float(N), elt), ttype([], elt)))
    return (loss, Val(c, [], elt))


def lower_scatter_value(L, n):
    e = L.e
    src, dim, index, value = L.val(n.args[0]), n.args[1], L.val(n.args[2]), n.args[3]
    if src.rank != 2 or dim != 1 or index.shape != [src.shape[0], 1]:
        raise KeyError("aten.scatter (other than one value per row)")
    elt = src.elt
    init = e.empty(src.shape, elt)

    def body(a):
        return ["%c = linalg.index 1 : index",
                "%ci = arith.index_cast %c : index to i64",
                "%%hit = arith.cmpi eq, %%ci, %s : i64" % a[1],
                "%%val = arith.constant %s : %s" % (fconst(value, elt), elt),
                "%%r = arith.select %%hit, %%val, %s : %s" % (a[0], elt),
                "linalg.yield %%r : %s" % elt]

    return e.generic([src, index], [amap(2, ["d0", "d1"]), amap(2, ["d0", "0"])], [init],
                     [amap(2, ["d0", "d1"])], ["parallel", "parallel"], body, hint="sc")[0]


def sgd_update(L, grads, lr):
    """Every parameter after one plain SGD step (torch.optim.SGD without
    momentum or weight decay: p.add_(dp, alpha=-lr)), located at
    '<parameter>/sgd'."""
    e = L.e
    joint = L.joint
    params = [L.values[p] for i, p in enumerate(joint.placeholders)
              if joint.placeholder_kind(i) == "param"]
    out = []
    for pname, p, g in zip(joint.param_names, params, grads):
        e.loc = "%s/sgd" % pname
        out.append(e.elementwise([p, g, -lr], p.shape, p.elt, lambda s_: ([
            "%%m = arith.mulf %s, %s : %s" % (s_[1], s_[2], p.elt),
            "%%r = arith.addf %s, %%m : %s" % (s_[0], p.elt)], "%r")))
    return out


def sanitize(name):
    return "".join(c if c.isalnum() else "_" for c in name)


def to_mlir(joint, name, sgd_lr=None):
    L = Lowering(joint, name)
    e = L.e
    args = []
    data = set()  # the data arguments, marked remat.data
    unknown = {}
    # Arguments: every buffer and every used placeholder but the tangent.
    for i, p in enumerate(joint.placeholders):
        kind = joint.placeholder_kind(i)
        v = p.meta["val"]
        if kind == "tangent":
            e.loc = "loss/tangent"
            c = e.fresh("c")
            telt = DTYPES[v.dtype]
            e.emit("%s = arith.constant dense<%s> : %s" % (c, fconst(1.0, telt), ttype(list(v.shape), telt)))
            L.values[p] = Val(c, list(v.shape), telt)
            continue
        if not p.users and kind != "buffer":
            continue
        label = joint.placeholder_label(i)
        ssa = "%" + sanitize(label if kind in ("param", "buffer") else ("x" if kind == "input" else "labels"))
        val = Val(ssa, list(v.shape), DTYPES[v.dtype])
        args.append((val, label))
        if kind not in ("param", "buffer"):
            data.add(ssa)
        L.values[p] = val
    for n in joint.graph.nodes:
        if n.op != "call_function":
            continue
        path = n.meta.get("remat_path", "") or "<top>"
        opn = op_name(n)
        e.loc = "%s/%s" % (path, opn)
        if n.target is operator.getitem:
            src = L.values.get(n.args[0])
            if isinstance(src, tuple):
                L.values[n] = src[n.args[1]]
            else:
                L.values[n] = L.stand_in(n)
            continue
        for a in n.all_input_nodes:
            if a not in L.values:
                # Its producer was unsupported (reported): lower on with a
                # stand-in so that every unsupported op is found at once.
                L.values[a] = L.stand_in(a)
        try:
            L.values[n] = lower_node(L, n)
        except KeyError as err:
            key = str(err.args[0]) if err.args else opn
            unknown.setdefault(key, []).append(path)
    if unknown:
        lines = ["%d unsupported op(s) in the MLIR lowering:" % len(unknown)]
        for op in sorted(unknown):
            paths = sorted(set(unknown[op]))
            lines.append("  %s at %s" % (op, ", ".join(paths)))
        raise UnsupportedOps("\n".join(lines))
    args.extend(L.masks)
    data.update(v.name for v, _ in L.masks)
    results = [L.values[joint.loss]]
    for g, pname in zip(joint.grads, joint.param_names):
        if g is None:
            raise UnsupportedOps("parameter '%s' has no gradient" % pname)
        results.append(L.values[g])
    if sgd_lr is not None:
        results = results[:1] + sgd_update(L, results[1:], sgd_lr)
    results += [L.values[v] for _, v in joint.buffer_updates]
    out = []
    out.append("// Generated by remat-import-torch: one training step of %s" % name)
    out.append("// (forward, cross-entropy loss, backward). Arguments: parameters,")
    out.append("// buffers, input, labels; results: loss, then %s," % (
        "the gradient of every parameter" if sgd_lr is None else
        "every parameter after one SGD step, p - %r * dp" % sgd_lr))
    out.append("// then every buffer the step updates%s." % (
        " (%s)" % ", ".join(b for b, _ in joint.buffer_updates)
        if joint.buffer_updates else ": none"))
    sig = ",\n    ".join('%s: %s%s loc("%s")' % (v.name, v.type, " {remat.data}" if v.name in data else "", label)
                          for v, label in args)
    rtypes = ", ".join(r.type for r in results)
    out.append("func.func @%s(\n    %s)\n    -> (%s) {" % (sanitize(name), sig, rtypes))
    out.extend(e.lines)
    out.append('    func.return %s : %s loc("output")' % (
        ", ".join(r.name for r in results), rtypes))
    out.append("}")
    for fn, elt in sorted(L.externs):
        out.append("func.func private @%s(%s) -> %s" % (fn, elt, elt))
    return "\n".join(out) + "\n"
