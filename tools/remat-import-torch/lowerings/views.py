"""Views and shape ops: pass-throughs, reshapes, transposes, broadcasts,
concatenation, splits and slices (tensor.collapse_shape / expand_shape,
linalg.transpose, tensor.extract_slice / insert_slice)."""

from mlir_emitter import affine_map, identity_map

from .registry import Unsupported, lowering

PASS_THROUGH = ("aten.detach", "aten.alias", "aten.clone", "aten.lift_fresh_copy")
RESHAPES = ("aten.view", "aten._unsafe_view", "aten._reshape_alias",
            "aten.reshape", "aten.squeeze", "aten.unsqueeze")


@lowering(*PASS_THROUGH)
def pass_through(cx, n):
    return cx.val(n.args[0])


@lowering("aten._to_copy")
def to_copy(cx, n):
    """A copy (a value, as tensors are), converted to its result's element
    type (mlir_emitter's convert: bf16 statistics of a batch norm kept in
    float32)."""
    src = cx.val(n.args[0])
    out = cx.e.convert(src, cx.elt)
    if out is None:
        raise Unsupported(cx.op + " (%s to %s)" % (src.elt, cx.elt))
    return out


@lowering(*RESHAPES)
def reshape(cx, n):
    return cx.e.reshape(cx.val(n.args[0]), cx.shape)


@lowering("aten.transpose")
def transpose(cx, n):
    v = cx.val(n.args[0])
    perm = list(range(v.rank))
    a, b = n.args[1] % v.rank, n.args[2] % v.rank
    perm[a], perm[b] = perm[b], perm[a]
    return cx.e.transpose(v, perm)


@lowering("aten.t")
def t(cx, n):
    v = cx.val(n.args[0])
    return cx.e.transpose(v, [1, 0]) if v.rank == 2 else v


@lowering("aten.permute")
def permute(cx, n):
    return cx.e.transpose(cx.val(n.args[0]), list(n.args[1]))


@lowering("aten.expand")
def expand(cx, n):
    v = cx.val(n.args[0])
    if v.shape == cx.shape:
        return v
    return cx.e.elementwise([v], cx.shape, cx.elt, lambda b, s: s[0])


@lowering("prims.broadcast_in_dim")
def broadcast_in_dim(cx, n):
    """args[2] names the result dim of each source dim; a source dim of 1
    is broadcast."""
    src, shape = cx.val(n.args[0]), cx.shape
    r = len(shape)
    res = ["0" if src.shape[i] == 1 and shape[d] != 1 else "d%d" % d
           for i, d in enumerate(n.args[2])]
    init = cx.e.empty(shape, cx.elt)
    return cx.e.generic([src], [affine_map(r, res)], [init], [identity_map(r)],
                        ["parallel"] * r, lambda b, a: a[0])[0]


@lowering("aten.cat")
def cat(cx, n):
    """Each part inserted at its offset along dim into an empty result."""
    shape = cx.shape
    dim = (n.args[1] if len(n.args) > 1 else 0) % len(shape)
    acc = cx.e.empty(shape, cx.elt)
    off = 0
    for part in (cx.val(a) for a in n.args[0]):
        if part.shape[dim] == 0:
            continue
        offs = [0] * len(shape)
        offs[dim] = off
        acc = cx.e.insert_slice(part, acc, offs, part.shape, [1] * len(shape))
        off += part.shape[dim]
    return acc


@lowering("aten.split", "aten.split_with_sizes")
def split(cx, n):
    v = cx.val(n.args[0])
    dim = (n.args[2] if len(n.args) > 2 else 0) % v.rank
    sizes = n.args[1]
    if isinstance(sizes, int):
        sizes = [min(sizes, v.shape[dim] - i) for i in range(0, v.shape[dim], sizes)]
    outs, off = [], 0
    for sz in sizes:
        offs = [0] * v.rank
        offs[dim] = off
        size = list(v.shape)
        size[dim] = sz
        outs.append(cx.e.extract_slice(v, offs, size, [1] * v.rank, size))
        off += sz
    return tuple(outs)


def slice_params(base, args):
    """offsets and strides of aten.slice(_scatter)'s (dim, start, end,
    step) arguments `args` on `base`."""
    dim, start, end, step = (list(args) + [0, None, None, 1][len(args):])[:4]
    dim %= base.rank
    start, end, step = slice(start, end, step).indices(base.shape[dim])
    offs, strides = [0] * base.rank, [1] * base.rank
    offs[dim], strides[dim] = start, step
    return offs, strides


def select_params(base, dim, index):
    """offsets and sizes of the slice of `base` at `index` along `dim`."""
    dim %= base.rank
    offs, size = [0] * base.rank, list(base.shape)
    offs[dim], size[dim] = index % base.shape[dim], 1
    return offs, size


@lowering("aten.slice")
def slice_(cx, n):
    v = cx.val(n.args[0])
    offs, strides = slice_params(v, n.args[1:])
    return cx.e.extract_slice(v, offs, cx.shape, strides, cx.shape)


@lowering("aten.slice_scatter")
def slice_scatter(cx, n):
    base, src = cx.val(n.args[0]), cx.val(n.args[1])
    offs, strides = slice_params(base, n.args[2:])
    return cx.e.insert_slice(src, base, offs, src.shape, strides)


@lowering("aten.select")
def select(cx, n):
    v = cx.val(n.args[0])
    offs, size = select_params(v, n.args[1], n.args[2])
    return cx.e.extract_slice(v, offs, size, [1] * v.rank, cx.shape)


@lowering("aten.select_scatter")
def select_scatter(cx, n):
    base, src = cx.val(n.args[0]), cx.val(n.args[1])
    offs, size = select_params(base, n.args[2], n.args[3])
    return cx.e.insert_slice(src, base, offs, size, [1] * base.rank)
