"""The optimizer's update after the gradients (--optimizer; not an op of
the joint graph: mlir_export calls `update`).

One linalg.generic per trainable parameter computes its new value and
its new state together (`loc("<parameter>/<kind>")`), in the order and
precision of torch 1.13's single-tensor step (`_single_tensor_sgd`,
`_single_tensor_adamw`): each torch op one payload op in the parameter's
element type, every Python scalar rounded to that type as torch's kernels
do. AdamW's bias corrections depend on the step count, an int64 argument:
computed once per step in f64, as torch computes them in Python from
`step.item()`, then rounded to the parameters' type
(`loc("step/bias_correction")`). See docs/Importer.md, "Optimizers".
"""

from mlir_emitter import affine_map, hex_float, identity_map, is_float

from .registry import Unsupported


def update(cx, opt, trainable, state):
    """The new parameters and the new state: `trainable` [(name, parameter
    Value, gradient Value)], `state` the state Values in
    opt.state_names order. Returns (new parameters, new state)."""
    e = cx.e
    state = list(state)
    new_state, scalars = step_count(e, opt, state.pop(0) if opt.has_step else None)
    new_params = []
    for k, (name, p, g) in enumerate(trainable):
        slots = state[k * len(opt.slots):(k + 1) * len(opt.slots)]
        outs = update_one(e, opt, name, p, g, slots, scalars)
        new_params.append(outs[0])
        new_state.extend(outs[1:])
    return new_params, new_state


def step_count(e, opt, step):
    """AdamW's new step count (`step` + 1, `loc("step/adamw")`) as a list
    of one Value, and the scalars `update_one` reads; ([], {}) without a
    step count (`step` None)."""
    if step is None:
        return [], {}
    e.loc = "step/adamw"
    new = e.elementwise([step, 1], [], "i64", lambda b, s: b.op(
        "arith.addi", s, "i64"))
    return [new], {"step": new}


def update_one(e, opt, name, p, g, slots, scalars):
    """The step of parameter `name` (Value `p`, gradient `g`, its state
    `slots` in opt.slots order), `loc("<name>/<kind>")`: [p'] + the new
    slots. AdamW's bias corrections are emitted on first need per element
    type and kept in `scalars` (step_count's). Raises Unsupported for a
    parameter that is not a float."""
    if not is_float(p.elt):
        raise Unsupported("--optimizer on parameter '%s' of type %s"
                          % (name, p.elt))
    if opt.kind == "adamw" and p.elt not in scalars:
        e.loc = "step/bias_correction"
        scalars[p.elt] = bias_corrections(e, opt, scalars["step"], p.elt)
    e.loc = "%s/%s" % (name, opt.kind)
    if opt.kind == "adamw":
        return adamw(e, opt, p, g, slots, scalars[p.elt])
    return sgd(e, opt, p, g, slots)


def _fused(e, ins, like, n_outs, payload):
    """One element-wise linalg.generic over `like`'s shape with `n_outs`
    results of its type; 0-d operands broadcast."""
    r = like.rank
    in_maps = [identity_map(r) if v.rank else affine_map(r, []) for v in ins]
    outs = [e.empty(like.shape, like.elt) for _ in range(n_outs)]
    return e.generic(ins, in_maps, outs, [identity_map(r)] * n_outs,
                     ["parallel"] * r, payload, "opt")


def sgd(e, opt, p, g, slots):
    """torch.optim.SGD: d = g (+ wd * p); with momentum
    buf = buf * momentum + (1 - dampening) * d, d = buf (Nesterov:
    d + momentum * buf); p + (-lr) * d. [p'] or [p', buf']."""
    elt = p.elt

    def payload(b, a):
        k = lambda v, hint: b.const(hex_float(v, elt), elt, hint)
        mul = lambda x, y: b.op("arith.mulf", [x, y], elt, "m")
        add = lambda x, y: b.op("arith.addf", [x, y], elt, "s")
        d = a[1]
        if opt.weight_decay:
            d = add(d, mul(a[0], k(opt.weight_decay, "wd")))
        results = []
        if opt.kind == "momentum":
            buf = add(mul(a[2], k(opt.momentum, "mom")),
                      mul(d, k(1 - opt.dampening, "damp")))
            d = add(d, mul(buf, k(opt.momentum, "nes"))) if opt.nesterov \
                else buf
            results.append(buf)
        return [add(a[0], mul(d, k(-opt.lr, "lr")))] + results

    return _fused(e, [p, g] + slots, p, 1 + len(slots), payload)


def bias_corrections(e, opt, step, elt):
    """(-lr / (1 - beta1^t), sqrt(1 - beta2^t)) as 0-d tensors of `elt`,
    t the new step count: torch computes both in Python doubles."""
    beta1, beta2 = opt.betas
    outs = [e.empty([], elt), e.empty([], elt)]

    def payload(b, a):
        f64 = "f64"
        t = b.cast("arith.sitofp", a[0], "i64", f64, "t")
        one = b.const(hex_float(1.0, f64), f64, "one")

        def correction(beta, hint):
            power = b.op("math.powf", [b.const(hex_float(beta, f64), f64, "b"),
                                       t], f64, "pw")
            return b.op("arith.subf", [one, power], f64, hint)

        lr = b.const(hex_float(-opt.lr, f64), f64, "lr")
        size = b.op("arith.divf", [lr, correction(beta1, "bc1")], f64, "ss")
        root = b.op("math.sqrt", [correction(beta2, "bc2")], f64, "bc2s")
        if elt == f64:
            return [size, root]
        return [b.cast("arith.truncf", v, f64, elt, h)
                for v, h in ((size, "ssr"), (root, "bc2r"))]

    return e.generic([step], [affine_map(0, [])], outs, [affine_map(0, [])] * 2,
                     [], payload, "bc")


def adamw(e, opt, p, g, slots, scalars):
    """torch.optim.AdamW (_single_tensor_adamw, no amsgrad): p *= 1 - lr wd;
    m = m b1 + (1 - b1) g; v = v b2 + ((1 - b2) g) g;
    p += (-step_size m) / (sqrt(v) / sqrt(bc2) + eps). [p', m', v']."""
    elt = p.elt
    beta1, beta2 = opt.betas

    def payload(b, a):
        pv, gv, m, v, size, root = a[:6]
        k = lambda x, hint: b.const(hex_float(x, elt), elt, hint)
        op = lambda name, x, y, hint: b.op(name, [x, y], elt, hint)
        decayed = op("arith.mulf", pv, k(1 - opt.lr * opt.weight_decay, "wd"), "pd")
        m1 = op("arith.addf", op("arith.mulf", m, k(beta1, "b1"), "mb"),
                op("arith.mulf", gv, k(1 - beta1, "c1"), "mg"), "m1")
        scaled = op("arith.mulf", k(1 - beta2, "c2"), gv, "vg")
        v1 = op("arith.addf", op("arith.mulf", v, k(beta2, "b2"), "vb"),
                op("arith.mulf", scaled, gv, "vgg"), "v1")
        root_v = b.op("math.sqrt", [v1], elt, "rv")
        denom = op("arith.addf", op("arith.divf", root_v, root, "dv"),
                   k(opt.eps, "eps"), "den")
        step = op("arith.divf", op("arith.mulf", size, m1, "sm"), denom, "q")
        return [op("arith.addf", decayed, step, "p1"), m1, v1]

    return _fused(e, [p, g] + slots + list(scalars), p, 3, payload)
