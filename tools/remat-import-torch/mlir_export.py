"""Linalg-on-tensors training IR from a traced (decomposed) joint graph.

One func.func: parameters (named_parameters order), the buffers the step
reads (named_buffers order: batch norm's running_mean, running_var and
num_batches_tracked), then the input images and the int64 labels as
arguments; the loss, every parameter gradient (or updated parameter), then
every buffer the step updates (named_buffers order) as results; static
shapes; every op located `loc("<module path>/aten.<op>")`. The loss's
incoming gradient (tangents_1) is the constant 1.

Each op is lowered by its function in the one table lowerings.TABLE (one
module per op family under lowerings/); the IR is built by mlir_emitter.
The lowering covers the small core op set left after torch._decomp's
decompositions (torch_trace.MLIR_DECOMPOSITIONS); anything else is collected
and reported at once by UnsupportedOps.
"""

import operator

from mlir_emitter import Argument, Function, Value, decimal_float, hex_float, tensor_type
from lowerings import Context, Unsupported, lower
from lowerings.creation import tensor_constant
from lowerings.optimizer import sgd
from lowerings.registry import element_type
from torch_trace import op_name


class UnsupportedOps(Exception):
    pass


def sanitize(name):
    return "".join(c if c.isalnum() else "_" for c in name)


def add_arguments(cx, joint, sharding=None):
    """Every buffer and every used placeholder but the tangent becomes an
    argument (the data ones marked remat.data, data_attributes); the
    tangent the constant 1. With `sharding` (shard_export.FullySharded),
    each parameter argument is the rank's shard, gathered where it is first
    used."""
    fn, e = cx.function, cx.e
    for i, p in enumerate(joint.placeholders):
        kind = joint.placeholder_kind(i)
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


def header(name, joint, sgd_lr):
    return [
        "// Generated by remat-import-torch: one training step of %s" % name,
        "// (forward, cross-entropy loss, backward). Arguments: parameters,",
        "// buffers, input, labels; results: loss, then %s," % (
            "the gradient of every parameter" if sgd_lr is None else
            "every parameter after one SGD step, p - %r * dp" % sgd_lr),
        "// then every buffer the step updates%s." % (
            " (%s)" % ", ".join(b for b, _ in joint.buffer_updates)
            if joint.buffer_updates else ": none")]


def to_function(joint, name, sgd_lr=None, sharding=None):
    """The step as an mlir_emitter.Function (shard_export edits it);
    raises UnsupportedOps naming every op it cannot lower. With `sharding`
    (shard_export.FullySharded) the parameters, their gradients and the
    SGD step are the rank's shards."""
    fn = Function(sanitize(name))
    cx = Context(joint, fn)
    try:
        add_arguments(cx, joint, sharding)
    except Unsupported as err:
        raise UnsupportedOps("unsupported input of the step: %s" % err)
    after = None
    if sharding is not None:
        sharding.expect(joint.grads, joint.param_names, sgd_lr)
        after = sharding.after
    unknown = lower_graph(cx, joint, after)
    if unknown:
        raise report(unknown)
    for value, label, p in cx.masks:
        fn.args.append(Argument(value, ["remat.data", "remat.bernoulli = %s : f64"
                                        % decimal_float(p)], label))
    results = [cx.values[joint.loss]]
    for g, pname in zip(joint.grads, joint.param_names):
        if g is None:
            raise UnsupportedOps("parameter '%s' has no gradient" % pname)
        results.append(cx.values[g])
    if sharding is not None:
        results = results[:1] + sharding.results()
    elif sgd_lr is not None:
        params = [cx.values[p] for i, p in enumerate(joint.placeholders)
                  if joint.placeholder_kind(i) == "param"]
        results = results[:1] + sgd(cx, params, joint.param_names, results[1:], sgd_lr)
    fn.results = results + [cx.values[v] for _, v in joint.buffer_updates]
    fn.before = header(name, joint, sgd_lr)
    return fn


def to_mlir(joint, name, sgd_lr=None):
    """The step's MLIR text (see the module comment)."""
    return to_function(joint, name, sgd_lr).text()
