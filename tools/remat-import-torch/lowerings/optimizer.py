"""Optimizer updates that follow the gradients in the step (--sgd-lr)."""

def sgd(cx, params, names, grads, lr):
    """Every parameter after one plain SGD step (torch.optim.SGD without
    momentum or weight decay: p.add_(dp, alpha=-lr)), located at
    '<parameter>/sgd'."""
    e = cx.e
    out = []
    for pname, p, g in zip(names, params, grads):
        e.loc = "%s/sgd" % pname
        out.append(e.elementwise([p, g, -lr], p.shape, p.elt, lambda b, s: b.op(
            "arith.addf", [s[0], b.op("arith.mulf", s[1:], p.elt, "m")], p.elt)))
    return out
