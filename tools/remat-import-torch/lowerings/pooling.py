"""2-D pooling (NCHW), forward and backward: max pooling with indices,
average pooling, adaptive average pooling."""

from mlir_emitter import affine_map, identity_map

from .registry import Unsupported, lowering

WINDOW_LOOPS = ["parallel"] * 4 + ["reduction"] * 2
IN_6 = affine_map(6, ["d0", "d1", "d4", "d5"])
OUT_6 = affine_map(6, ["d0", "d1", "d2", "d3"])


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


def divided(e, v, divisor):
    return e.elementwise([v, divisor], v.shape, v.elt,
                         lambda b, s: b.op("arith.divf", s, v.elt))


def added(e, a, b_):
    return e.elementwise([a, b_], a.shape, a.elt, lambda b, s: b.op("arith.addf", s, a.elt))


@lowering("aten.max_pool2d_with_indices")
def max_pool(cx, n):
    """(values, flat indices h * W + w into the unpadded input); NaN wins,
    as in PyTorch."""
    e, args = cx.e, n.args
    x = cx.val(args[0])
    k = list(args[1])
    stride = list(args[2]) if len(args) > 2 and args[2] else k
    pad = list(args[3]) if len(args) > 3 else [0, 0]
    dil = list(args[4]) if len(args) > 4 else [1, 1]
    ceil = args[5] if len(args) > 5 else False
    out = [pool_out_size(x.shape[2 + i], k[i], stride[i], pad[i], dil[i], ceil)
           for i in range(2)]
    shape, elt, W = list(x.shape[:2]) + out, x.elt, x.shape[3]
    hi = [pool_high_pad(x.shape[2 + i], out[i], k[i], stride[i], pad[i], dil[i])
          for i in range(2)]
    xp = e.pad(x, [0, 0, pad[0], pad[1]], [0, 0, hi[0], hi[1]], float("-inf"))
    win = e.empty(k, elt)
    vinit = e.filled(shape, elt, float("-inf"))
    iinit = e.filled(shape, "i64", 0)
    xm = affine_map(6, ["d0", "d1", "d2 * %d + d4 * %d" % (stride[0], dil[0]),
                        "d3 * %d + d5 * %d" % (stride[1], dil[1])])

    def body(b, a):
        oh, ow, kh, kw = (b.index(d, h) for d, h in ((2, "oh"), (3, "ow"), (4, "kh"), (5, "kw")))
        h0 = b.apply("affine_map<(a, b) -> (a * %d + b * %d - %d)>" % (
            stride[0], dil[0], pad[0]), [oh, kh], "h0")
        w0 = b.apply("affine_map<(a, b) -> (a * %d + b * %d - %d)>" % (
            stride[1], dil[1], pad[1]), [ow, kw], "w0")
        fl = b.apply("affine_map<(a, b) -> (a * %d + b)>" % W, [h0, w0], "fl")
        fi = b.cast("arith.index_cast", fl, "index", "i64", "fi")
        gt = b.op("arith.cmpf", ["ogt", a[0], a[2]], elt, "gt")
        nan = b.op("arith.cmpf", ["uno", a[0], a[0]], elt, "nan")
        take = b.op("arith.ori", [gt, nan], "i1", "take")
        return [b.op("arith.select", [take, a[0], a[2]], elt, "v"),
                b.op("arith.select", [take, fi, a[3]], "i64", "i")]

    return tuple(e.generic([xp, win], [xm, affine_map(6, ["d4", "d5"])], [vinit, iinit],
                           [OUT_6, OUT_6], WINDOW_LOOPS, body, hint="mp"))


@lowering("aten.max_pool2d_with_indices_backward")
def max_pool_backward(cx, n):
    """grad_out added into the padded input gradient once per window
    offset (kh, kw), where the saved index is that offset's position."""
    e, args = cx.e, n.args
    g, x = cx.val(args[0]), cx.val(args[1])
    k = list(args[2])
    stride = list(args[3]) if args[3] else k
    pad, dil, idx = list(args[4]), list(args[5]), cx.val(args[7])
    elt = g.elt
    N, C, OH, OW = g.shape
    H, W = x.shape[2], x.shape[3]
    HP = H + pad[0] + pool_high_pad(H, OH, k[0], stride[0], pad[0], dil[0])
    WP = W + pad[1] + pool_high_pad(W, OW, k[1], stride[1], pad[1], dil[1])
    acc = e.filled([N, C, HP, WP], elt, 0.0)
    idm = identity_map(4)

    def body(b, a, kh, kw):
        oh, ow = b.index(2, "oh"), b.index(3, "ow")
        fl = b.apply("affine_map<(a, b) -> (a * %d + b * %d)>" % (stride[0] * W, stride[1]),
                     [oh, ow], "fl")
        fi = b.cast("arith.index_cast", fl, "index", "i64", "fi")
        off = b.const(str((kh * dil[0] - pad[0]) * W + kw * dil[1] - pad[1]), "i64", "off")
        hit = b.op("arith.cmpi", ["eq", a[2], b.op("arith.addi", [fi, off], "i64", "pos")],
                   "i64", "hit")
        add = b.op("arith.select", [hit, a[1], b.const("0.0", elt, "z")], elt, "add")
        return b.op("arith.addf", [a[0], add], elt)

    for kh in range(k[0]):
        for kw in range(k[1]):
            offs, strides = [0, 0, kh * dil[0], kw * dil[1]], [1, 1, stride[0], stride[1]]
            sv = e.extract_slice(acc, offs, g.shape, strides, g.shape)
            init = e.empty(g.shape, elt)
            upd = e.generic([sv, g, idx], [idm] * 3, [init], [idm], ["parallel"] * 4,
                            lambda b, a, kh=kh, kw=kw: body(b, a, kh, kw), hint="mpb")[0]
            acc = e.insert_slice(upd, acc, offs, g.shape, strides, hint="acc")
    if [HP, WP] == [H, W]:
        return acc
    return e.extract_slice(acc, [0, 0, pad[0], pad[1]], [N, C, H, W], [1, 1, 1, 1],
                           [N, C, H, W], hint="gin")


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
        raise Unsupported(what + " (ceil_mode, divisor_override, or padding "
                          "not counted)")
    return k, stride, pad


@lowering("aten.avg_pool2d")
def avg_pool(cx, n):
    """Window sum over the zero-padded input (window operand as in
    linalg.pooling_*), then / (kh * kw)."""
    e = cx.e
    x = cx.val(n.args[0])
    k, stride, pad = avg_pool_params(n.args[1:], "aten.avg_pool2d")
    elt = x.elt
    shape = list(x.shape[:2]) + [
        pool_out_size(x.shape[2 + i], k[i], stride[i], pad[i], 1, False)
        for i in range(2)]
    xp = e.pad(x, [0, 0, pad[0], pad[1]], [0, 0, pad[0], pad[1]], 0.0)
    xm = affine_map(6, ["d0", "d1", "d2 * %d + d4" % stride[0], "d3 * %d + d5" % stride[1]])
    win = e.empty(k, elt)
    init = e.filled(shape, elt, 0.0)
    tot = e.generic([xp, win], [xm, affine_map(6, ["d4", "d5"])], [init], [OUT_6],
                    WINDOW_LOOPS, lambda b, a: b.op("arith.addf", [a[2], a[0]], elt, "s"),
                    hint="ap")[0]
    return divided(e, tot, float(k[0] * k[1]))


@lowering("aten.avg_pool2d_backward")
def avg_pool_backward(cx, n):
    """grad_out / (kh * kw) added into the padded input gradient once per
    window offset (strided extract_slice, add, insert_slice)."""
    e = cx.e
    g, x = cx.val(n.args[0]), cx.val(n.args[1])
    k, stride, pad = avg_pool_params(n.args[2:], "aten.avg_pool2d_backward")
    N, C = g.shape[:2]
    H, W = x.shape[2], x.shape[3]
    gd = divided(e, g, float(k[0] * k[1]))
    acc = e.filled([N, C, H + 2 * pad[0], W + 2 * pad[1]], g.elt, 0.0)
    for kh in range(k[0]):
        for kw in range(k[1]):
            offs, strides = [0, 0, kh, kw], [1, 1, stride[0], stride[1]]
            sl = e.extract_slice(acc, offs, g.shape, strides, g.shape)
            acc = e.insert_slice(added(e, sl, gd), acc, offs, g.shape, strides)
    if not any(pad):
        return acc
    return e.extract_slice(acc, [0, 0, pad[0], pad[1]], [N, C, H, W],
                           [1, 1, 1, 1], [N, C, H, W])


def adaptive_window(b, out_dim, in_dim, in_size, out_size, tag, elt):
    """Payload of an adaptive pooling window along one axis: output index o
    (linalg.index out_dim) covers inputs [o*I floordiv O, ((o+1)*I + O-1)
    floordiv O). Returns (whether input index in_dim is inside it, i1; its
    length, as elt), named %<tag>in and %<tag>k."""
    o, i = b.index(out_dim, tag + "o"), b.index(in_dim, tag + "i")
    lo = b.apply("affine_map<(a) -> ((a * %d) floordiv %d)>" % (in_size, out_size),
                 [o], tag + "lo")
    hi = b.apply("affine_map<(a) -> ((a * %d + %d) floordiv %d)>" % (
        in_size, in_size + out_size - 1, out_size), [o], tag + "hi")
    ge = b.op("arith.cmpi", ["sge", i, lo], "index", tag + "ge")
    lt = b.op("arith.cmpi", ["slt", i, hi], "index", tag + "lt")
    inside = b.op("arith.andi", [ge, lt], "i1", tag + "in")
    length = b.op("arith.subi", [hi, lo], "index", tag + "n")
    length = b.cast("arith.index_cast", length, "index", "i64", tag + "ni")
    return inside, b.cast("arith.sitofp", length, "i64", elt, tag + "k")


def adaptive_windows(b, h_dims, w_dims, sizes, elt):
    """Both axes' windows: (inside both, i1; kh; kw)."""
    (H, OH), (W, OW) = sizes
    hin, hk = adaptive_window(b, h_dims[0], h_dims[1], H, OH, "h", elt)
    win, wk = adaptive_window(b, w_dims[0], w_dims[1], W, OW, "w", elt)
    return hin, win, hk, wk


@lowering("aten._adaptive_avg_pool2d")
def adaptive_avg_pool(cx, n):
    """out[n,c,oh,ow] = (sum of x over the window) / kh / kw, as PyTorch's
    CPU kernel: one linalg.generic over (n, c, oh, ow, h, w) summing the
    inputs inside the window, then the division."""
    e = cx.e
    x = cx.val(n.args[0])
    N, C, H, W = x.shape
    OH, OW = list(n.args[1])
    elt, shape, sizes = x.elt, [N, C, OH, OW], ((H, OH), (W, OW))

    def body(b, a):
        hin, win, _, _ = adaptive_windows(b, (2, 4), (3, 5), sizes, elt)
        inside = b.op("arith.andi", [hin, win], "i1", "in")
        s = b.op("arith.addf", [a[1], a[0]], elt, "s")
        return b.op("arith.select", [inside, s, a[1]], elt)

    def div(b, a):
        _, _, hk, wk = adaptive_windows(b, (2, 2), (3, 3), sizes, elt)
        return b.op("arith.divf", [b.op("arith.divf", [a[0], hk], elt, "q"), wk], elt)

    acc = e.filled(shape, elt, 0.0)
    tot = e.generic([x], [IN_6], [acc], [OUT_6], WINDOW_LOOPS, body, hint="aap")[0]
    init = e.empty(shape, elt)
    return e.generic([tot], [identity_map(4)], [init], [identity_map(4)],
                     ["parallel"] * 4, div, hint="aap")[0]


@lowering("aten._adaptive_avg_pool2d_backward")
def adaptive_avg_pool_backward(cx, n):
    """grad_in[n,c,h,w] = sum over the windows holding (h, w) of
    grad_out / kh / kw (PyTorch's CPU kernel): one linalg.generic over
    (n, c, h, w, oh, ow)."""
    g, x = cx.val(n.args[0]), cx.val(n.args[1])
    elt, sizes = g.elt, ((x.shape[2], g.shape[2]), (x.shape[3], g.shape[3]))

    def body(b, a):
        hin, win, hk, wk = adaptive_windows(b, (4, 2), (5, 3), sizes, elt)
        inside = b.op("arith.andi", [hin, win], "i1", "in")
        d = b.op("arith.divf", [b.op("arith.divf", [a[0], hk], elt, "q"), wk], elt, "d")
        s = b.op("arith.addf", [a[1], d], elt, "s")
        return b.op("arith.select", [inside, s, a[1]], elt)

    acc = cx.e.filled(x.shape, elt, 0.0)
    return cx.e.generic([g], [IN_6], [acc], [OUT_6], WINDOW_LOOPS, body, hint="aapb")[0]
