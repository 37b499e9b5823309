"""Gathers and scatters by index tensors: embedding and its backward,
gather, scatter, scatter_add.

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

from .elementwise import is_float
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
