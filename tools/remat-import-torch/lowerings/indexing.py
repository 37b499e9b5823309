"""Gathers and scatters by index tensors: embedding and its backward,
gather, scatter, scatter_add, index, index_select, index_put, index_add.

A gather reads its source at positions that are data: a linalg.generic over
the result whose payload reads the source (captured from the function, not
an operand) with tensor.extract. A scatter writes at positions that are
data, which linalg's affine output maps cannot express; it is lowered as a
gather over the destination instead: each destination element scans the
indices that may hit it, in index order, so a scatter with duplicates (an
embedding row used by several tokens) is deterministic, and recomputing it
gives the same bits.
"""

from mlir_emitter import affine_map, identity_map, scalar_literal

from mlir_emitter import is_float
from .registry import Unsupported, lowering


def extract(b, source, coords, hint="v"):
    """Payload: source[coords] (index values)."""
    return b.let(hint, "tensor.extract %s[%s] : %s" % (
        source.name, ", ".join(coords), source.type))


def as_index(b, x, elt, hint):
    return b.cast("arith.index_cast", x, elt, "index", hint)


@lowering("aten.embedding")
def embedding(cx, n):
    """out[i.., d] = weight[indices[i..], d] (padding_idx and
    scale_grad_by_freq only change the backward). Token ids must be in
    [0, rows): the lowering does not check them."""
    w, idx = cx.val(n.args[0]), cx.val(n.args[1])
    if w.rank != 2:
        raise Unsupported(cx.op + " (weight not 2-D)")
    r = len(cx.shape)

    def body(b, a):
        row = as_index(b, a[0], idx.elt, "row")
        return extract(b, w, [row, b.index(r - 1, "col")])

    init = cx.e.empty(cx.shape, cx.elt)
    return cx.e.generic([idx], [affine_map(r, loops(r - 1))], [init], [identity_map(r)], ["parallel"] * r, body, hint="emb")[0]


@lowering("aten.embedding_dense_backward")
def embedding_dense_backward(cx, n):
    """table[v, d] = sum over tokens t with indices[t] == v (and !=
    padding_idx) of grad[t, d], in token order: loops (v, d, t), t a
    reduction."""
    g, idx = cx.val(n.args[0]), cx.val(n.args[1])
    rows, padding_idx, by_freq = n.args[2:5]
    if by_freq:
        raise Unsupported(cx.op + " (scale_grad_by_freq)")
    e, elt = cx.e, cx.elt
    tokens = count(idx.shape)
    g2 = e.reshape(g, [tokens, g.shape[-1]])
    i1 = e.reshape(idx, [tokens])

    def body(b, a):
        v = b.cast("arith.index_cast", b.index(0, "v"), "index", idx.elt, "vi")
        hit = b.op("arith.cmpi", ["eq", a[0], v], idx.elt, "hit")
        if padding_idx is not None and padding_idx >= 0:
            pad = b.const(str(int(padding_idx)), idx.elt, "pad")
            keep = b.op("arith.cmpi", ["ne", a[0], pad], idx.elt, "keep")
            hit = b.op("arith.andi", [hit, keep], "i1", "use")
        s = b.op("arith.addf", [a[2], a[1]], elt, "s")
        return b.op("arith.select", [hit, s, a[2]], elt)

    init = e.filled([rows, g.shape[-1]], elt, 0.0)
    return e.generic([i1, g2], [affine_map(3, ["d2"]), affine_map(3, ["d2", "d1"])], [init],
                     [affine_map(3, ["d0", "d1"])], ["parallel", "parallel", "reduction"],
                     body, hint="embb")[0]


def count(shape):
    c = 1
    for s in shape:
        c *= s
    return c


def loops(r):
    """d0, .., d<r-1>: the first r loops."""
    return ["d%d" % i for i in range(r)]


@lowering("aten.gather")
def gather(cx, n):
    """out[p] = x[p with p[dim] = index[p]]: a generic over the index's
    shape reading x."""
    x, dim, index = cx.val(n.args[0]), n.args[1], cx.val(n.args[2])
    if n.kwargs.get("sparse_grad") or (len(n.args) > 3 and n.args[3]):
        raise Unsupported(cx.op + " (sparse_grad)")
    r = index.rank
    dim %= max(r, 1)

    def body(b, a):
        coords = [as_index(b, a[0], index.elt, "at") if d == dim else b.index(d, "i%d" % d)
                  for d in range(r)]
        return extract(b, x, coords)

    init = cx.e.empty(cx.shape, cx.elt)
    return cx.e.generic([index], [identity_map(r)], [init], [identity_map(r)],
                        ["parallel"] * r, body, hint="ga")[0]


def scatter_into(cx, base, dim, index, src, accumulate):
    """base with, for every position q of index, src[q] (a Value, or a
    Python scalar) written (accumulate: added) at q with q[dim] replaced
    by index[q]. One generic over (base's dims, k), k running over
    index's extent along dim (a reduction, in order: the last write wins,
    sums add in index order). index (and src) must match base in every
    other dimension."""
    r = base.rank
    dim %= r
    shapes = [index.shape] + ([src.shape] if not isinstance(src, (int, float)) else [])
    if any(len(s) != r or any(s[d] != base.shape[d] for d in range(r) if d != dim)
           for s in shapes):
        raise Unsupported(cx.op + " (index smaller than the destination outside dim)")
    elt = base.elt
    qmap = affine_map(r + 1, ["d%d" % (r if d == dim else d) for d in range(r)])
    ins, maps = [index], [qmap]
    if not isinstance(src, (int, float)):
        ins, maps = ins + [src], maps + [qmap]

    def body(b, a):
        at = b.cast("arith.index_cast", b.index(dim, "at"), "index", index.elt, "ati")
        hit = b.op("arith.cmpi", ["eq", a[0], at], index.elt, "hit")
        if isinstance(src, (int, float)):
            v = b.const(scalar_literal(src, elt), elt, "val")
        else:
            v = a[1]
        if accumulate:
            v = b.op("arith.addf" if is_float(elt) else "arith.addi", [a[-1], v], elt, "s")
        return b.op("arith.select", [hit, v, a[-1]], elt)

    return cx.e.generic(ins, maps, [base], [affine_map(r + 1, loops(r))],
                        ["parallel"] * r + ["reduction"], body, hint="sc")[0]


@lowering("aten.scatter")
def scatter(cx, n):
    """scatter.value / scatter.src: the last write wins (PyTorch leaves
    duplicates unspecified). nll_loss_backward's one value per row too."""
    if len(n.args) > 4 or n.kwargs.get("reduce"):
        raise Unsupported(cx.op + " (reduce)")
    src = cx.val(n.args[3])
    return scatter_into(cx, cx.val(n.args[0]), n.args[1], cx.val(n.args[2]), src, False)


@lowering("aten.scatter_add")
def scatter_add(cx, n):
    """Sums in index order (gather's backward)."""
    return scatter_into(cx, cx.val(n.args[0]), n.args[1], cx.val(n.args[2]),
                        cx.val(n.args[3]), True)


def index_operand(cx, indices, base):
    """(position, Value) of the one index tensor of aten.index(_put)'s
    `indices` (None elsewhere, as x[:, idx]); Unsupported otherwise."""
    tensors = [(p, cx.val(i)) for p, i in enumerate(indices) if i is not None]
    if len(tensors) != 1:
        raise Unsupported(cx.op + " (%d index tensors)" % len(tensors))
    p, idx = tensors[0]
    if idx.elt == "i1":
        raise Unsupported(cx.op + " (boolean mask)")
    return p, idx


def wrapped_index(b, x, elt, size, hint):
    """Payload: index x of a dimension of `size` as an index value,
    negative ones counted from the end as PyTorch does."""
    zero, n = b.const("0", elt, hint + "z"), b.const(str(size), elt, hint + "n")
    neg = b.op("arith.cmpi", ["slt", x, zero], elt, hint + "neg")
    up = b.op("arith.addi", [x, n], elt, hint + "up")
    return as_index(b, b.op("arith.select", [neg, up, x], elt, hint + "w"), elt, hint)


@lowering("aten.index")
def index(cx, n):
    """x[:, .., idx, ..]: one index tensor at position p."""
    x = cx.val(n.args[0])
    p, idx = index_operand(cx, n.args[1], x)
    return gather_at(cx, x, p, idx)


@lowering("aten.index_select")
def index_select(cx, n):
    """x.index_select(dim, idx): x[:, .., idx] with idx at dim (a mixture
    of experts' routed tokens)."""
    x = cx.val(n.args[0])
    return gather_at(cx, x, n.args[1] % x.rank, cx.val(n.args[2]))


def gather_at(cx, x, p, idx):
    """x indexed by the tensor idx at dimension p; the result's dimensions
    are x's before p, idx's, then x's after p. A gather: a generic over
    the result reading x (swin's relative position bias)."""
    r, k = len(cx.shape), idx.rank

    def body(b, a):
        at = wrapped_index(b, a[0], idx.elt, x.shape[p], "at")
        coords = [b.index(d, "i%d" % d) for d in range(p)] + [at] + \
            [b.index(d + k - 1, "i%d" % d) for d in range(p + 1, x.rank)]
        return extract(b, x, coords)

    init = cx.e.empty(cx.shape, cx.elt)
    imap = affine_map(r, ["d%d" % d for d in range(p, p + k)])
    return cx.e.generic([idx], [imap], [init], [identity_map(r)], ["parallel"] * r,
                        body, hint="ix")[0]


@lowering("aten.index_put")
def index_put(cx, n):
    """base[.., idx, ..] = values (accumulate: +=) for one index tensor."""
    base, values = cx.val(n.args[0]), cx.val(n.args[2])
    accumulate = n.args[3] if len(n.args) > 3 else n.kwargs.get("accumulate", False)
    p, idx = index_operand(cx, n.args[1], base)
    return put_at(cx, base, p, idx, values, accumulate)


@lowering("aten.index_add")
def index_add(cx, n):
    """base.index_add(dim, idx, source): source's slices added to base's
    at idx along dim, in index order (index_select's backward; a mixture
    of experts' combine). alpha other than 1 is Unsupported."""
    base = cx.val(n.args[0])
    if n.kwargs.get("alpha", n.args[4] if len(n.args) > 4 else 1) != 1:
        raise Unsupported(cx.op + " (alpha)")
    return put_at(cx, base, n.args[1] % base.rank, cx.val(n.args[2]),
                  cx.val(n.args[3]), True)


def put_at(cx, base, p, idx, values, accumulate):
    """base[.., idx[t], ..] = values[.., t, ..] (accumulate: +=) at
    dimension p, written as a gather over the base: loops (base's dims,
    t), t a reduction in index order, so duplicates add (or the last write
    wins) deterministically (the backward of aten.index)."""
    tokens, r = count(idx.shape), base.rank
    if values.shape != base.shape[:p] + idx.shape + base.shape[p + 1:]:
        raise Unsupported(cx.op + " (values broadcast)")
    i1 = cx.e.reshape(idx, [tokens])
    v2 = cx.e.reshape(values, base.shape[:p] + [tokens] + base.shape[p + 1:])

    def body(b, a):
        at = wrapped_index(b, a[0], idx.elt, base.shape[p], "at")
        hit = b.op("arith.cmpi", ["eq", at, b.index(p, "pos")], "index", "hit")
        v = a[1]
        if accumulate:
            v = b.op("arith.addf" if is_float(cx.elt) else "arith.addi", [a[2], v], cx.elt, "s")
        return b.op("arith.select", [hit, v, a[2]], cx.elt)

    vmap = affine_map(r + 1, ["d%d" % (r if d == p else d) for d in range(r)])
    return cx.e.generic([i1, v2], [affine_map(r + 1, ["d%d" % r]), vmap], [base],
                        [affine_map(r + 1, loops(r))], ["parallel"] * r + ["reduction"],
                        body, hint="ip")[0]
