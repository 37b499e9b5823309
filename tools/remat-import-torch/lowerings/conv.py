"""2-D convolutions (NCHW, FCHW filters), forward and backward: named
linalg.conv_2d_nchw_fchw where it fits, linalg.generic for groups."""

from mlir_emitter import accumulator_type, affine_map, identity_map, widened

from .registry import Unsupported, lowering

CONV = "linalg.conv_2d_nchw_fchw"


def conv_attrs(dil, stride):
    return ("dilations = dense<[%d, %d]> : tensor<2xi64>, strides = %s : tensor<2xi64>"
            % (dil[0], dil[1], "dense<1>" if stride is None else
               "dense<[%d, %d]>" % (stride[0], stride[1])))


def pad_hw(e, x, pad):
    """x zero-padded by pad[0] rows and pad[1] columns on both sides."""
    return e.pad(x, [0, 0, pad[0], pad[1]], [0, 0, pad[0], pad[1]], 0.0)


def mac(elt):
    """The payload acc + in0 * in1 (the accumulator is the last argument),
    in accumulator_type(elt): bf16 inputs widened to float32."""
    acc = accumulator_type(elt)
    return lambda b, a: b.op("arith.addf", [a[-1], b.op(
        "arith.mulf", [widened(b, x, elt, acc) for x in a[:2]], acc, "m")], acc, "s")


def accumulator(e, shape, elt):
    """A zero accumulator of `shape` for sums of `elt` values."""
    return e.filled(shape, accumulator_type(elt), 0.0)


def add_bias(cx, out, bias):
    if bias is None:
        return out
    bv = cx.e.reshape(cx.val(bias), [out.shape[1], 1, 1])
    return cx.e.elementwise([out, bv], out.shape, out.elt,
                            lambda b, s: b.op("arith.addf", s, out.elt))


@lowering("aten.convolution")
def convolution(cx, n):
    x, w = cx.val(n.args[0]), cx.val(n.args[1])
    stride, pad, dil, transposed, _, groups = n.args[3:9]
    if transposed:
        raise Unsupported("aten.convolution (transposed)")
    xp = pad_hw(cx.e, x, pad)
    if groups != 1:
        out = grouped_conv(cx.e, xp, w, groups, stride, dil, cx.shape)
    else:
        init = accumulator(cx.e, cx.shape, cx.elt)
        out = cx.e.convert(cx.e.named_op(CONV, [xp, w], init, conv_attrs(dil, stride),
                                         "conv"), cx.elt)
    return add_bias(cx, out, n.args[2])


def group_reassociation(rank, dim):
    """Reassociation between a rank-`rank` shape and the same shape with
    dimension `dim` split in two: [[0], .., [dim, dim+1], [dim+2], ..]."""
    return [[i] if i < dim else [i, i + 1] if i == dim else [i + 1]
            for i in range(rank)]


def split_groups(e, v, groups, dim):
    """[.., C, ..] -> [.., G, C/G, ..] at dim (a view)."""
    shape = v.shape[:dim] + [groups, v.shape[dim] // groups] + v.shape[dim + 1:]
    return e.expand_shape(v, group_reassociation(v.rank, dim), shape, hint="grp")


def merge_groups(e, v, dim, shape):
    """[.., G, C/G, ..] at dim -> [.., C, ..] (a view)."""
    return e.collapse_shape(v, group_reassociation(v.rank - 1, dim), shape, hint="grp")


LOOPS_8 = ["parallel"] * 5 + ["reduction"] * 3
OUT_5 = affine_map(8, ["d0", "d1", "d2", "d3", "d4"])


def grouped_conv(e, xp, w, groups, stride, dil, shape):
    """out[n, g, f, oh, ow] = sum_{c, kh, kw} x[n, g, c, oh*s + kh*d, ...]
    * w[g, f, c, kh, kw]; loops (n, g, f, oh, ow, c, kh, kw)."""
    x5 = split_groups(e, xp, groups, 1)
    w5 = split_groups(e, w, groups, 0)
    N, F, OH, OW = shape
    init = accumulator(e, [N, groups, F // groups, OH, OW], xp.elt)
    xm = affine_map(8, ["d0", "d1", "d5", "d3 * %d + d6 * %d" % (stride[0], dil[0]),
                        "d4 * %d + d7 * %d" % (stride[1], dil[1])])
    wm = affine_map(8, ["d1", "d2", "d5", "d6", "d7"])
    out = e.generic([x5, w5], [xm, wm], [init], [OUT_5], LOOPS_8, mac(xp.elt),
                    hint="gconv")[0]
    return merge_groups(e, e.convert(out, xp.elt), 1, shape)


def grouped_conv_grad_input(e, gp, w, groups, dil, shape):
    """gin[n, g, c, h, w] = sum_{f, kh, kw} gp[n, g, f, h + kh*d, w + kw*d]
    * w[g, f, c, K-1-kh, K-1-kw]; loops (n, g, c, h, w, f, kh, kw)."""
    g5 = split_groups(e, gp, groups, 1)
    w5 = split_groups(e, w, groups, 0)
    N, C, H, W = shape
    KH, KW = w.shape[2], w.shape[3]
    init = accumulator(e, [N, groups, C // groups, H, W], gp.elt)
    gm = affine_map(8, ["d0", "d1", "d5", "d3 + d6 * %d" % dil[0], "d4 + d7 * %d" % dil[1]])
    wm = affine_map(8, ["d1", "d5", "d2", "%d - d6" % (KH - 1), "%d - d7" % (KW - 1)])
    # kh, kw appear only in non-trivial expressions: a window operand gives
    # their ranges, as in linalg.pooling_*.
    win = e.empty([KH, KW], gp.elt)
    out = e.generic([g5, w5, win], [gm, wm, affine_map(8, ["d6", "d7"])], [init], [OUT_5],
                    LOOPS_8, mac(gp.elt), hint="gin")[0]
    return merge_groups(e, e.convert(out, gp.elt), 1, shape)


def grouped_conv_grad_weight(e, xp, g, w, groups, stride, dil):
    """gw[g, f, c, kh, kw] = sum_{n, oh, ow} x[n, g, c, oh*s + kh*d, ...]
    * gout[n, g, f, oh, ow]; loops (g, f, c, kh, kw, n, oh, ow)."""
    x5 = split_groups(e, xp, groups, 1)
    g5 = split_groups(e, g, groups, 1)
    F, Cg, KH, KW = w.shape
    init = accumulator(e, [groups, F // groups, Cg, KH, KW], xp.elt)
    xm = affine_map(8, ["d5", "d0", "d2", "d6 * %d + d3 * %d" % (stride[0], dil[0]),
                        "d7 * %d + d4 * %d" % (stride[1], dil[1])])
    gm = affine_map(8, ["d5", "d0", "d1", "d6", "d7"])
    out = e.generic([x5, g5], [xm, gm], [init], [OUT_5], LOOPS_8, mac(xp.elt),
                    hint="gw")[0]
    return merge_groups(e, e.convert(out, xp.elt), 0, list(w.shape))


@lowering("aten.convolution_backward")
def convolution_backward(cx, n):
    """(grad_input, grad_weight, grad_bias), each when its output_mask bit
    is set (None otherwise)."""
    g, x, w = (cx.val(a) for a in n.args[:3])
    _, stride, pad, dil, transposed, _, groups, mask = n.args[3:11]
    if transposed:
        raise Unsupported("aten.convolution_backward (transposed)")
    results = [None, None, None]
    if mask[0]:
        results[0] = conv_grad_input(cx.e, g, x, w, stride, pad, dil, groups)
    if mask[1]:
        results[1] = conv_grad_weight(cx.e, g, x, w, stride, pad, dil, groups)
    if mask[2]:
        results[2] = cx.e.reduce_generic(g, [0, 2, 3], "sum")
    return tuple(results)


def conv_grad_input(e, g, x, w, stride, pad, dil, groups):
    """grad_input = conv(zero-insert(g, stride) padded by d(K-1)-p,
    flip(W)^T, stride 1, dilation d)."""
    elt = g.elt
    N, F, OH, OW = g.shape
    _, C, H, W = x.shape
    KH, KW = w.shape[2], w.shape[3]
    lo = [dil[0] * (KH - 1) - pad[0], dil[1] * (KW - 1) - pad[1]]
    if lo[0] < 0 or lo[1] < 0:
        raise Unsupported("aten.convolution_backward (padding > dilation*(kernel-1))")
    HP, WP = H + dil[0] * (KH - 1), W + dil[1] * (KW - 1)
    gp = g
    if [HP, WP] != [OH, OW] or stride != [1, 1] or lo != [0, 0]:
        z = e.filled([N, F, HP, WP], elt, 0.0)
        gp = e.insert_slice(g, z, [0, 0, lo[0], lo[1]], [N, F, OH, OW],
                            [1, 1, stride[0], stride[1]])
    if groups != 1:
        return grouped_conv_grad_input(e, gp, w, groups, dil, [N, C, H, W])
    finit = e.empty([C, F, KH, KW], elt)
    flip = affine_map(4, ["d1", "d0", "%d - d2" % (KH - 1), "%d - d3" % (KW - 1)])
    wf = e.generic([w], [flip], [finit], [identity_map(4)], ["parallel"] * 4,
                   lambda b, a: a[0])[0]
    init = accumulator(e, [N, C, H, W], elt)
    return e.convert(e.named_op(CONV, [gp, wf], init, conv_attrs(dil, None), "gin"), elt)


def conv_grad_weight(e, g, x, w, stride, pad, dil, groups):
    """grad_weight[f, c, kh, kw] = sum_{n, oh, ow} xpad[n, c, oh*s + kh*d,
    ow*s + kw*d] * g[n, f, oh, ow]; loops (f, c, kh, kw, n, oh, ow)."""
    xp = pad_hw(e, x, pad)
    if groups != 1:
        return grouped_conv_grad_weight(e, xp, g, w, groups, stride, dil)
    init = accumulator(e, list(w.shape), g.elt)
    xm = affine_map(7, ["d4", "d1", "d5 * %d + d2 * %d" % (stride[0], dil[0]),
                        "d6 * %d + d3 * %d" % (stride[1], dil[1])])
    gm = affine_map(7, ["d4", "d0", "d5", "d6"])
    return e.convert(e.generic([xp, g], [xm, gm], [init], [affine_map(7, ["d0", "d1", "d2", "d3"])],
                               ["parallel"] * 4 + ["reduction"] * 3, mac(g.elt), hint="gw")[0],
                     g.elt)
