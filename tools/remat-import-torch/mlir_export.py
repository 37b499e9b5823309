"""Linalg-on-tensors training IR from a traced (decomposed) joint graph.

One func.func: parameters (named_parameters order), the buffers the step
reads (named_buffers order: batch norm's running_mean, running_var and
num_batches_tracked), the optimizer's state (optimizer_spec.py), then the
data inputs and the labels as arguments; the loss, the gradient of every
trainable parameter (or, with an optimizer, the parameter after its
step), every buffer the step updates (named_buffers order), then the new
optimizer state as results; static shapes; every op located
`loc("<module path>/aten.<op>")`. The loss's incoming gradient
(tangents_1) is the constant 1.

Each op is lowered by its function in the one table lowerings.TABLE (one
module per op family under lowerings/); the IR is built by mlir_emitter.
The lowering covers the small core op set left after torch._decomp's
decompositions (torch_trace.MLIR_DECOMPOSITIONS); anything else is collected
and reported at once by UnsupportedOps.
"""

import operator

from mlir_emitter import Argument, Function, Value, decimal_float, hex_float, tensor_type
from lowerings import Context, Unsupported, lower
from lowerings import optimizer as optimizer_lowering
from lowerings.creation import tensor_constant
from lowerings.registry import element_type
from torch_trace import op_name


class UnsupportedOps(Exception):
    pass


def sanitize(name):
    return "".join(c if c.isalnum() else "_" for c in name)


def add_arguments(cx, joint, opt=None, sharding=None):
    """Every buffer and every used placeholder but the tangent becomes an
    argument (the data ones marked remat.data, data_attributes), the
    optimizer's state after the buffers; the tangent the constant 1. With
    `sharding` (shard_export.FullySharded), each parameter argument is the
    rank's shard, gathered where it is first used, and each optimizer
    state slot the rank's shard of it. Returns the state's Values
    (opt.state_names order)."""
    fn, e = cx.function, cx.e
    state = None
    for i, p in enumerate(joint.placeholders):
        kind = joint.placeholder_kind(i)
        if state is None and kind not in ("param", "buffer"):
            state = add_state(cx, joint, opt, sharding)
        v = p.meta["val"]
        elt = element_type(v.dtype, "argument %s" % p.name)
        if kind == "tangent":
            e.loc = "loss/tangent"
            c = e.constant("dense<%s>" % hex_float(1.0, elt), tensor_type(list(v.shape), elt))
            cx.values[p] = Value(c, list(v.shape), elt)
            continue
        if not p.users and kind != "buffer":
            continue
        label = joint.placeholder_label(i)
        if kind == "param" and sharding is not None:
            cx.values[p] = sharding.parameter(
                cx, sanitize(label), list(v.shape), elt, label)
            continue
        data = kind not in ("param", "buffer")
        hint = sanitize(label) if not data else ("x" if kind == "input" else "labels")
        cx.values[p] = fn.argument(hint, list(v.shape), elt, data_attributes(joint, i),
                                   label)
    return state if state is not None else add_state(cx, joint, opt, sharding)


def data_attributes(joint, index):
    """`remat.data` on a data argument, with `remat.high` (the runners'
    integer values lie below it) on an integer one with a bound: token
    ids, the labels of `ce`."""
    spec = joint.data_input(index)
    if spec is None:
        return []
    if spec.high is None:
        return ["remat.data"]
    return ["remat.data", "remat.high = %d : i64" % spec.high]


def trainable(joint):
    """(name, placeholder, gradient) of every parameter with a gradient
    (frozen ones, requires_grad=False, have none)."""
    params = [p for i, p in enumerate(joint.placeholders)
              if joint.placeholder_kind(i) == "param"]
    return [(name, p, g) for name, p, g in zip(joint.param_names, params,
                                                joint.grads) if g is not None]


def add_state(cx, joint, opt, sharding=None):
    """The optimizer's state as arguments, each located at its name
    (`conv1.weight.exp_avg`; AdamW's step count `step`, int64): a slot
    has its parameter's shape and type; with `sharding`
    (shard_export.FullySharded) it is the rank's shard of that, the step
    count replicated."""
    if opt is None:
        return []
    shapes = {"step": ([], "i64")}
    for name, p, _ in trainable(joint):
        v = p.meta["val"]
        for slot in opt.slots:
            shapes["%s.%s" % (name, slot)] = (
                list(v.shape), element_type(v.dtype, "parameter %s" % name))
    names = state_names(joint, opt)
    if sharding is not None:
        return [sharding.state(cx, sanitize(n), *shapes[n], label=n)
                for n in names]
    return [cx.function.argument(sanitize(n), *shapes[n], loc=n)
            for n in names]


def state_names(joint, opt):
    """The labels of the optimizer's state arguments (opt.state_names
    order); none without an optimizer."""
    if opt is None:
        return []
    return opt.state_names([name for name, _, _ in trainable(joint)])


def forward_results(joint):
    """The indices of the results the forward pass computes besides the
    loss (result 0): the updated buffers, which follow one result per
    trainable parameter (to_function's order)."""
    first = 1 + len(trainable(joint))
    return list(range(first, first + len(joint.buffer_updates)))


def lower_graph(cx, joint, after=None):
    """Lowers every call of the graph, calling `after(cx, node)` after each;
    returns {op (form): [module paths]} of the unsupported ones."""
    unknown = {}
    for n in joint.graph.nodes:
        if n.op == "get_attr":
            lower_constant(cx, joint, n, unknown)
        if n.op != "call_function":
            continue
        path = n.meta.get("remat_path", "") or "<top>"
        cx.e.loc = "%s/%s" % (path, op_name(n))
        if n.target is operator.getitem:
            src = cx.values.get(n.args[0])
            cx.values[n] = src[n.args[1]] if isinstance(src, tuple) else cx.stand_in(n)
        else:
            lower_call(cx, n, path, unknown)
        if after is not None:
            after(cx, n)
    return unknown


def lower_constant(cx, joint, n, unknown):
    """A tensor constant of the graph (get_attr) as an IR constant, located
    at its first user's module."""
    path = next((u.meta.get("remat_path") for u in n.users), "") or "<top>"
    cx.e.loc = "%s/constant" % path
    try:
        cx.values[n] = tensor_constant(cx, getattr(joint.gm, n.target),
                                       "tensor constant %s" % n.target)
    except Unsupported as err:
        unknown.setdefault(str(err), []).append(path)


def lower_call(cx, n, path, unknown):
    """Lowers call `n` located at `path`; records it in `unknown` when it is
    unsupported."""
    for a in n.all_input_nodes:
        if a not in cx.values:
            # Its producer was unsupported (reported): lower on with a
            # stand-in so that every unsupported op is found at once.
            cx.values[a] = cx.stand_in(a)
    try:
        cx.values[n] = lower(cx, n)
    except Unsupported as err:
        unknown.setdefault(str(err), []).append(path)


def report(unknown):
    lines = ["%d unsupported op(s) in the MLIR lowering:" % len(unknown)]
    for op in sorted(unknown):
        lines.append("  %s at %s" % (op, ", ".join(sorted(set(unknown[op])))))
    return UnsupportedOps("\n".join(lines))


def header(name, joint, opt):
    """The comment above the function: what it computes, its arguments
    and results in order."""
    state = opt.state_names(["<parameter>"]) if opt is not None else []
    updates = ", ".join(b for b, _ in joint.buffer_updates) or "none"
    return [
        "// Generated by remat-import-torch: one training step of %s" % name,
        "// (forward, loss, backward%s)." % (
            "" if opt is None else ", then one step of " + opt.describe()),
        "// Arguments: parameters, buffers, %sinputs, labels." % (
            "the optimizer state (%s), " % ", ".join(state) if state else ""),
        "// Results: loss, %s," % (
            "the gradient of every trainable parameter" if opt is None else
            "every trainable parameter after the step"),
        "// then every buffer the step updates (%s)%s." % (
            updates, ", then the new optimizer state" if state else "")]


def to_function(joint, name, opt=None, sharding=None):
    """The step as an mlir_emitter.Function (shard_export edits it), with
    the update of `opt` (an optimizer_spec.Optimizer) when given; raises
    UnsupportedOps naming every op it cannot lower. With `sharding`
    (shard_export.FullySharded) the parameters, their gradients, the
    optimizer's state and its step are the rank's shards."""
    fn = Function(sanitize(name))
    cx = Context(joint, fn)
    try:
        state = add_arguments(cx, joint, opt, sharding)
    except Unsupported as err:
        raise UnsupportedOps("unsupported input of the step: %s" % err)
    after = None
    if sharding is not None:
        sharding.expect(joint.grads, joint.param_names, opt, state)
        after = sharding.after
    unknown = lower_graph(cx, joint, after)
    if unknown:
        raise report(unknown)
    for value, label, p in cx.masks:
        fn.args.append(Argument(value, ["remat.data", "remat.bernoulli = %s : f64"
                                        % decimal_float(p)], label))
    if sharding is not None:
        fn.results = [cx.values[joint.loss]] + sharding.results() + \
            [cx.values[v] for _, v in joint.buffer_updates] + \
            sharding.new_state()
        fn.before = header(name, joint, opt)
        return fn
    steps = [(n, cx.values[p], cx.values[g]) for n, p, g in trainable(joint)]
    new_state = []
    if opt is None:
        updated = [g for _, _, g in steps]
    else:
        try:
            updated, new_state = optimizer_lowering.update(cx, opt, steps, state)
        except Unsupported as err:
            raise UnsupportedOps("unsupported optimizer step: %s" % err)
    fn.results = [cx.values[joint.loss]] + updated + \
        [cx.values[v] for _, v in joint.buffer_updates] + new_state
    fn.before = header(name, joint, opt)
    return fn


def to_mlir(joint, name, opt=None):
    """The step's MLIR text (see the module comment)."""
    return to_function(joint, name, opt).text()
