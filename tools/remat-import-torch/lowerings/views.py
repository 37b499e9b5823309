"""Views and shape ops: pass-throughs, reshapes, transposes, broadcasts,
concatenation, splits and slices (tensor.collapse_shape / expand_shape,
linalg.transpose, tensor.extract_slice / insert_slice)."""

from mlir_emitter import affine_map, identity_map

from .indexing import count
from .registry import Unsupported, lowering

PASS_THROUGH = ("aten.detach", "aten.alias", "aten.clone", "aten.lift_fresh_copy")
RESHAPES = ("aten.view", "aten._unsafe_view", "aten._reshape_alias",
            "aten.reshape", "aten.squeeze", "aten.unsqueeze")


@lowering(*PASS_THROUGH)
def pass_through(cx, n):
    return cx.val(n.args[0])


@lowering("aten._to_copy")
def to_copy(cx, n):
    """A copy (a value, as tensors are), converted when the element type
    changes (`.float()` of a boolean mask, of token ids; bf16 statistics of
    a batch norm kept in float32)."""
    return cx.e.convert(cx.val(n.args[0]), cx.elt)


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


def concatenate(e, parts, dim, shape, elt):
    """Each part inserted at its offset along dim into an empty tensor of
    `shape`."""
    acc = e.empty(shape, elt)
    off = 0
    for part in parts:
        if part.shape[dim] == 0:
            continue
        offs = [0] * len(shape)
        offs[dim] = off
        acc = e.insert_slice(part, acc, offs, part.shape, [1] * len(shape))
        off += part.shape[dim]
    return acc


@lowering("aten.cat")
def cat(cx, n):
    dim = (n.args[1] if len(n.args) > 1 else 0) % len(cx.shape)
    parts = [cx.val(a) for a in n.args[0]]
    if any(p.elt != cx.elt for p in parts):
        raise Unsupported(cx.op + " (parts of different element types)")
    return concatenate(cx.e, parts, dim, cx.shape, cx.elt)


@lowering("aten.stack")
def stack(cx, n):
    """The parts, each given a dimension of 1 at dim, concatenated along it
    (rotary embeddings' pairs)."""
    dim = (n.args[1] if len(n.args) > 1 else 0) % len(cx.shape)
    parts = []
    for p in (cx.val(a) for a in n.args[0]):
        if p.elt != cx.elt:
            raise Unsupported(cx.op + " (parts of different element types)")
        parts.append(cx.e.reshape(p, p.shape[:dim] + [1] + p.shape[dim:]))
    return concatenate(cx.e, parts, dim, cx.shape, cx.elt)


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


@lowering("aten.constant_pad_nd")
def constant_pad_nd(cx, n):
    """pad = (low, high) pairs from the last dimension backwards: negative
    amounts cut (an extract_slice, the backward of a pad), positive ones
    pad with `value` (tensor.pad)."""
    v, pad = cx.val(n.args[0]), list(n.args[1])
    value = n.args[2] if len(n.args) > 2 else n.kwargs.get("value", 0.0)
    lo, hi = [0] * v.rank, [0] * v.rank
    for k in range(len(pad) // 2):
        lo[v.rank - 1 - k], hi[v.rank - 1 - k] = pad[2 * k], pad[2 * k + 1]
    if any(a < 0 for a in lo + hi):
        offs = [max(0, -a) for a in lo]
        size = [s + min(0, a) + min(0, b) for s, a, b in zip(v.shape, lo, hi)]
        v = cx.e.extract_slice(v, offs, size, [1] * v.rank, size)
        lo, hi = [max(0, a) for a in lo], [max(0, b) for b in hi]
    if (any(lo) or any(hi)) and not v.elt.startswith("f"):
        raise Unsupported(cx.op + " (padding %s)" % v.elt)
    return cx.e.pad(v, lo, hi, float(value))


@lowering("aten.roll")
def roll(cx, n):
    """Each dimension rolled by its shift: the last `shift` elements moved
    to the front (two slices concatenated). Without dims, the flattened
    tensor is rolled."""
    v = cx.val(n.args[0])
    shifts = n.args[1] if isinstance(n.args[1], (list, tuple)) else [n.args[1]]
    dims_ = n.args[2] if len(n.args) > 2 else []
    dims_ = list(dims_) if isinstance(dims_, (list, tuple)) else [dims_]
    flat = not dims_
    if flat:
        v, dims_ = cx.e.reshape(v, [count(v.shape)]), [0]
    for shift, dim in zip(shifts, dims_):
        dim %= v.rank
        size = v.shape[dim]
        shift %= max(size, 1)
        if not shift:
            continue
        parts = []
        for start, length in ((size - shift, shift), (0, size - shift)):
            offs, sizes = [0] * v.rank, list(v.shape)
            offs[dim], sizes[dim] = start, length
            parts.append(cx.e.extract_slice(v, offs, sizes, [1] * v.rank, sizes))
        v = concatenate(cx.e, parts, dim, v.shape, v.elt)
    return cx.e.reshape(v, cx.shape) if flat else v


def row_major(size, stride):
    """Whether (size, stride) lays elements out in row-major order with
    no gaps (dimensions of one element have any stride)."""
    expected = 1
    for s, st in reversed(list(zip(size, stride))):
        if s != 1 and st != expected:
            return False
        expected *= s
    return True


def storage(cx, node):
    """The Value of `node` flattened to 1-D, which is its storage when the
    tensor is contiguous from offset 0: as_strided's base tensors, as
    functionalization of in-place views leaves them."""
    m = cx.meta(node)
    if m.storage_offset() != 0 or not m.is_contiguous():
        raise Unsupported(cx.op + " (of a tensor not contiguous from offset 0)")
    v = cx.val(node)
    return cx.e.reshape(v, [count(v.shape)])


def strided_params(cx, n, flat):
    """(size, stride, offset) of as_strided(_scatter)'s arguments after
    the base; Unsupported when they reach beyond the base's storage."""
    args = list(n.args[1:]) if cx.op == "aten.as_strided" else list(n.args[2:])
    size, stride = list(args[0]), list(args[1])
    offset = (args[2] if len(args) > 2 else None) or n.kwargs.get("storage_offset") or 0
    last = offset + sum((s - 1) * st for s, st in zip(size, stride))
    if count(size) and (last >= flat.shape[0] or min(stride + [0]) < 0):
        raise Unsupported(cx.op + " (beyond its base)")
    return size, stride, offset


@lowering("aten.as_strided")
def as_strided(cx, n):
    """The elements at offset + sum(i_k * stride_k) of the base's storage
    when they are contiguous in row-major order (what functionalized
    in-place ops on views leave): a slice and a reshape, views both."""
    flat = storage(cx, n.args[0])
    size, stride, offset = strided_params(cx, n, flat)
    if not row_major(size, stride):
        raise Unsupported(cx.op + " (positions not contiguous)")
    numel = count(size)
    if (offset, numel) != (0, flat.shape[0]):
        flat = cx.e.extract_slice(flat, [offset], [numel], [1], [numel])
    return cx.e.reshape(flat, cx.shape)


@lowering("aten.as_strided_scatter")
def as_strided_scatter(cx, n):
    """The base with src written at the positions as_strided would read:
    an insert_slice into the flattened base when they are contiguous in
    row-major order (efficientnet_b0's in-place dropout on a view)."""
    flat, src = storage(cx, n.args[0]), cx.val(n.args[1])
    size, stride, offset = strided_params(cx, n, flat)
    if not row_major(size, stride):
        raise Unsupported(cx.op + " (positions not contiguous)")
    numel = count(size)
    part = cx.e.reshape(src, [numel])
    if (offset, numel) != (0, flat.shape[0]):
        part = cx.e.insert_slice(part, flat, [offset], [numel], [1])
    return cx.e.reshape(part, cx.shape)
