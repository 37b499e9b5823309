"""The remat-solve JSON graph (docs/SolverFormat.md) of a traced joint graph.

One node per placeholder and per aten call. Bytes come from the shapes and
dtypes of the fake values; the cost is the FLOPs of `flops()` (docs/Importer.md,
"Cost model"): the conventions of docs/CostModel.md applied to aten ops, or,
for a device, the roofline time in picoseconds (roofline.py).
`add_batch_scaling` splits both into a fixed and a per-sample part from the
same step traced at two batch sizes (docs/Importer.md, "Batch scaling").
"""

import math
import operator

import torch
import torch.fx

import roofline
from torch_trace import op_name

# Ops whose result aliases operand 0 (0 bytes, alias_of its base): PyTorch's
# views. test/Importer/view-ops.test checks them against remat-opt's storage
# model (remat::isViewOp) on the MLIR this importer emits.
VIEW_OPS = {
    "aten.t", "aten.transpose", "aten.view", "aten._reshape_alias",
    "aten._unsafe_view", "aten.expand", "aten.permute", "aten.detach",
    "aten.squeeze", "aten.unsqueeze", "aten.slice", "aten.select",
    "aten.alias", "aten.split", "aten.split_with_sizes", "aten.unbind",
    "aten.as_strided", "aten.reshape", "aten.bernoulli_", "aten.diagonal",
    "aten.unfold", "aten.lift_fresh_copy_", "prims.broadcast_in_dim",
}

# FLOPs per element of result 0 (elementwise ops and data movement).
PER_OUTPUT_ELEMENT = {
    "aten.relu": 1, "aten.threshold_backward": 1, "aten.add": 1,
    "aten.sub": 1, "aten.mul": 1, "aten.div": 1, "aten.neg": 1,
    "aten.rsub": 1, "aten.exp": 1, "aten.log": 1, "aten.sqrt": 1,
    "aten.rsqrt": 1, "aten.reciprocal": 1, "aten.pow": 1, "aten.tanh": 1,
    "aten.sigmoid": 1, "aten.erf": 1, "aten.abs": 1, "aten.where": 1,
    "aten.eq": 1, "aten.ne": 1, "aten.lt": 1, "aten.le": 1, "aten.gt": 1,
    "aten.ge": 1, "aten.maximum": 1, "aten.minimum": 1, "aten.clamp": 1,
    "aten.clamp_min": 1, "aten.clamp_max": 1, "aten.hardtanh": 1,
    "aten.hardtanh_backward": 1, "aten.sigmoid_backward": 2,
    "aten.tanh_backward": 2, "aten.silu": 4, "aten.silu_backward": 6,
    "aten.hardswish": 4, "aten.hardswish_backward": 5,
    "aten.hardsigmoid": 3, "aten.hardsigmoid_backward": 2,
    "aten.gelu": 8, "aten.gelu_backward": 12, "aten.clone": 1,
    "aten.cat": 1, "aten.select_backward": 1, "aten.slice_backward": 1,
    "aten._to_copy": 1, "prims.convert_element_type": 1, "prims.div": 1, "aten.copy": 1, "aten.empty_like": 1,
    "aten.native_batch_norm": 5, "aten.native_batch_norm_backward": 8,
    "aten.native_layer_norm": 5, "aten.native_layer_norm_backward": 8,
    "aten._softmax": 5, "aten._softmax_backward_data": 4,
    "aten._log_softmax": 5, "aten._log_softmax_backward_data": 4,
    "aten.nll_loss_backward": 1, "aten.native_dropout": 2,
    "aten.native_dropout_backward": 1, "aten.scalar_tensor": 0,
    "aten.zeros": 0, "aten.ones": 0, "aten.full": 0, "aten.new_zeros": 0,
    "aten.zeros_like": 0, "aten.ones_like": 0, "aten.full_like": 0,
    "aten.new_ones": 0,
    "aten.fill": 0, "aten.empty": 0, "aten.arange": 0,
    "aten.constant_pad_nd": 1, "aten.masked_fill": 1, "aten.avg_pool2d": 1,
    "aten.avg_pool2d_backward": 1, "aten.leaky_relu": 1,
    "aten.leaky_relu_backward": 1, "aten._adaptive_avg_pool2d_backward": 1,
    "aten.bitwise_not": 1, "aten.logical_not": 1, "aten.bitwise_or": 1,
    "aten.bitwise_and": 1, "aten.logical_and": 1, "aten.logical_or": 1,
    "aten.gather": 1, "aten.new_empty": 0, "aten.new_full": 0,
    "aten.zero": 0, "aten.bernoulli": 1,
    # Data movement into a new tensor (1 per element of the result, as
    # `cat` and `slice_backward`): embedding rows gathered, scatters into a
    # copy of their base, masks, shifts and stacks.
    "aten.embedding": 1,
    "aten.index": 1, "aten.index_select": 1, "aten.index_put": 1,
    "aten.index_add": 1, "aten.scatter": 1, "aten.scatter_add": 1,
    "aten.slice_scatter": 1, "aten.select_scatter": 1,
    "aten.as_strided_scatter": 1, "aten.stack": 1, "aten.roll": 1,
    "aten.tril": 1, "aten.triu": 1, "aten.lift_fresh_copy": 1,
    "aten.cumsum": 1, "aten.mse_loss_backward": 3,
}

# FLOPs per element of operand 0 (reductions).
PER_INPUT_ELEMENT = {
    "aten.sum": 1, "aten.mean": 1, "aten.amax": 1, "aten.amin": 1,
    "aten.var": 2, "aten.var_mean": 3, "aten.argmax": 1,
    "aten._adaptive_avg_pool2d": 1, "prims.sum": 1, "prims.var": 2,
    "aten.mse_loss": 3,
    # The gradient rows added into a zeroed table (zeros are free).
    "aten.embedding_dense_backward": 1,
}


class UnknownOps(Exception):
    pass


def numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def tensor_of(value):
    return value if isinstance(value, torch.Tensor) else None


def value_bytes(value):
    t = tensor_of(value)
    if t is None:
        return 0
    return numel(t.shape) * t.element_size()


def shape_of(node):
    v = node.meta.get("val")
    if isinstance(v, torch.Tensor):
        return list(v.shape)
    tm = node.meta.get("tensor_meta")
    return list(tm.shape) if tm is not None else None


def conv_macs(x_shape, w_shape, out_shape, groups):
    # out: N F OH OW; w: F C/g KH KW
    return numel(out_shape) * numel(w_shape[1:])


def flops(node):
    """FLOPs of one aten call (docs/Importer.md). Raises KeyError when the
    op has no cost rule."""
    name = op_name(node)
    if name in VIEW_OPS or node.target is operator.getitem:
        return 0
    val = node.meta.get("val")
    first = val[0] if isinstance(val, (tuple, list)) else val
    if isinstance(first, torch.Tensor):
        out_elems = numel(first.shape)
    else:
        # A multi-result op without a recorded value: result 0 is the value
        # of its getitem 0 (or, unused, has the shape of operand 0: norms).
        s0 = None
        for u in node.users:
            if u.target is operator.getitem and u.args[1] == 0:
                s0 = shape_of(u)
        if s0 is None and node.args and isinstance(node.args[0], torch.fx.Node):
            s0 = shape_of(node.args[0])
        out_elems = numel(s0) if s0 is not None else 0
    args = node.args
    if name == "aten.convolution":
        x, w = shape_of(args[0]), shape_of(args[1])
        f = 2 * conv_macs(x, w, first.shape, args[8])
        if args[2] is not None:
            f += out_elems
        return f
    if name == "aten.convolution_backward":
        gout, x, w = shape_of(args[0]), shape_of(args[1]), shape_of(args[2])
        mask = args[10]
        macs = conv_macs(x, w, gout, args[9])
        f = 2 * macs * (int(bool(mask[0])) + int(bool(mask[1])))
        if mask[2]:
            f += numel(gout)
        return f
    if name == "aten.mm":
        a, b = shape_of(args[0]), shape_of(args[1])
        return 2 * a[0] * a[1] * b[1]
    if name == "aten.addmm":
        a, b = shape_of(args[1]), shape_of(args[2])
        return 2 * a[0] * a[1] * b[1] + a[0] * b[1]
    if name == "aten.bmm":
        a, b = shape_of(args[0]), shape_of(args[1])
        return 2 * a[0] * a[1] * a[2] * b[2]
    if name == "aten.baddbmm":
        a, b = shape_of(args[1]), shape_of(args[2])
        return 2 * a[0] * a[1] * a[2] * b[2] + out_elems
    if name == "aten.max_pool2d_with_indices":
        k = args[1]
        return out_elems * numel(k)
    if name == "aten.max_pool2d_with_indices_backward":
        return numel(shape_of(args[0])) * numel(args[2])
    if name == "aten.nll_loss_forward":
        return numel(shape_of(args[0]))
    if name in PER_INPUT_ELEMENT:
        return numel(shape_of(args[0])) * PER_INPUT_ELEMENT[name]
    if name in PER_OUTPUT_ELEMENT:
        return out_elems * PER_OUTPUT_ELEMENT[name]
    raise KeyError(name)


def _forward_nodes(joint):
    """Ancestors of the loss and of the buffer updates (batch norm's
    running statistics: computed from forward values)."""
    forward = set()
    todo = [joint.loss] + [v for _, v in joint.buffer_updates]
    while todo:
        n = todo.pop()
        if n in forward:
            continue
        forward.add(n)
        todo.extend(n.all_input_nodes)
    return forward


def _op_entry(n, index, forward, unknown, device):
    """The node fields of an aten call: bytes (0 for views and multi-result
    ops), cost (FLOPs, or the roofline time on `device`), dependencies,
    phase, alias, op name (what selective checkpointing keeps, Blocks.h).
    An op without a cost rule costs 0 and is added to
    `unknown` ({op: [module path]})."""
    deps = []
    for d in n.all_input_nodes:
        if index[d] not in deps:
            deps.append(index[d])
    val = n.meta.get("val")
    alias = None
    if n.target is operator.getitem:
        src = n.args[0]
        nbytes = value_bytes(val)
        if op_name(src) in VIEW_OPS:
            alias, nbytes = index[src.args[0]], 0
    elif isinstance(val, (tuple, list)):
        nbytes = 0  # multi-result op: the getitems hold the bytes
    elif op_name(n) in VIEW_OPS:
        alias, nbytes = index[n.args[0]], 0
    else:
        nbytes = value_bytes(val)
    try:
        cost = flops(n)
    except KeyError:
        unknown.setdefault(op_name(n), []).append(n.meta.get("remat_path", ""))
        cost = 0
    if device is not None:
        cost = roofline.roofline_ps(op_name(n), n, cost, device,
                                    runs_kernel=op_name(n) not in VIEW_OPS)
    return dict(bytes=nbytes, cost=float(cost), deps=deps,
                kind="forward" if n in forward else "backward",
                alias_of=alias, op=op_name(n))


def to_graph(joint, name, opt=None, device=None):
    """The graph dict, with the update of `opt` (an optimizer_spec
    Optimizer) when given, costs in FLOPs or, with a `device` (a
    roofline.Device), in picoseconds on it; raises UnknownOps naming every
    op without a cost rule, with its module path."""
    index = {}
    nodes = []
    unknown = {}
    forward = _forward_nodes(joint)
    kinds = {p: joint.placeholder_kind(i)
             for i, p in enumerate(joint.placeholders)}
    state = None
    for n in joint.graph.nodes:
        if n.op == "output":
            continue
        kind = kinds.get(n)
        if state is None and kind not in ("param", "buffer"):
            # The optimizer's state follows the parameters and buffers.
            state = _add_state(nodes, joint, opt)
        entry = {"id": len(nodes), "name": n.name}
        if n.op == "placeholder":
            entry.update(bytes=value_bytes(n.meta.get("val")), cost=0,
                         deps=[], kind="param" if kind == "param" else "input",
                         alias_of=None)
        elif n.op == "get_attr":
            # A tensor constant of the traced code (swin_t's relative
            # position index): resident, never computed.
            entry.update(bytes=value_bytes(getattr(joint.gm, n.target)),
                         cost=0, deps=[], kind="input", alias_of=None)
        else:
            entry.update(_op_entry(n, index, forward, unknown, device))
        entry["path"] = n.meta.get("remat_path", "")
        index[n] = len(nodes)
        nodes.append(entry)
    if unknown:
        raise UnknownOps(format_unknown(unknown, "no cost rule"))
    grads = [index[g] for g in joint.grads if g is not None]
    buffers = [index[v] for _, v in joint.buffer_updates]
    if opt is None:
        outputs = [index[joint.loss]] + grads + buffers
    else:
        params, new_state = _add_updates(nodes, joint, opt, index, state, device)
        outputs = [index[joint.loss]] + params + buffers + new_state
    graph = {"name": name, "fixed_bytes": 0, "nodes": nodes,
             "outputs": outputs}
    if device is not None:
        graph["device"] = device.name  # informational: costs are ps on it
    return graph


def _trainable(joint):
    """(name, placeholder, gradient) of every parameter with a gradient."""
    return [(name, p, g) for name, p, g in zip(
        joint.param_names, joint.placeholders, joint.grads) if g is not None]


def _add_state(nodes, joint, opt):
    """Appends the optimizer's state (opt.state_names order) as resident
    `param` nodes at path `optimizer`; returns {state name: node id}."""
    if opt is None:
        return {}
    sizes = {"step": 8}
    for name, p, _ in _trainable(joint):
        for slot in opt.slots:
            sizes["%s.%s" % (name, slot)] = value_bytes(p.meta.get("val"))
    ids = {}
    for state_name in opt.state_names([n for n, _, _ in _trainable(joint)]):
        ids[state_name] = len(nodes)
        nodes.append({"id": len(nodes), "name": state_name,
                      "bytes": sizes[state_name], "cost": 0, "deps": [],
                      "kind": "param", "alias_of": None, "path": "optimizer"})
    return ids


def _add_updates(nodes, joint, opt, index, state, device=None):
    """Appends the update: per trainable parameter one node computing it in
    place (alias of the parameter, 0 bytes, the update's FLOPs or, with a
    `device`, its roofline time: parameter and state read and written, the
    gradient read) and one per
    slot of its state (alias of the slot), each reading the parameter, its
    gradient, its state (and AdamW's new step count); returns the ids of
    the new parameters and of the new state (state_names order)."""
    def add(name, base, deps, cost):
        nodes.append({"id": len(nodes), "name": "%s/%s" % (name, opt.kind),
                      "bytes": 0, "cost": float(cost), "deps": deps,
                      "kind": "backward", "alias_of": base,
                      "path": "optimizer"})
        return len(nodes) - 1

    step_cost = 1 if device is None else roofline.time_ps(
        1, device.fp32, 16, device)
    new_state = [add("step", state["step"], [state["step"]], step_cost)] \
        if opt.has_step else []
    params = []
    for name, p, g in _trainable(joint):
        slots = [state["%s.%s" % (name, s)] for s in opt.slots]
        deps = [index[p], index[g]] + slots + new_state[:1]
        elements = numel(p.meta["val"].shape)
        cost = opt.flops_per_element() * elements
        if device is not None:
            cost = roofline.update_ps(cost, elements, p.meta["val"].dtype,
                                      3 + 2 * len(opt.slots), device)
        params.append(add(name, index[p], deps, cost))
        new_state += [add("%s.%s" % (name, s), base, deps, 0)
                      for s, base in zip(opt.slots, slots)]
    return params, new_state


class NotLinear(Exception):
    """The step traced at two batch sizes is not one graph whose sizes are
    a fixed part plus a part per sample."""


def per_sample(node, key, at_batch, at_double, batch, exact=True):
    """The per-sample part of node[key] (bytes or FLOPs) that is `at_batch`
    at `batch` samples and `at_double` at 2 * batch. Not `exact` (a time):
    it need not be a whole number per sample, and the fixed part 2 v - w,
    >= 0 for the roofline's max of two affine functions with non-negative
    intercepts (a convex function), may be below 0 by rounding only."""
    delta = at_double - at_batch
    if exact and delta >= 0 and not delta % batch and at_batch - delta >= 0:
        return delta // batch
    if not exact and delta >= 0 and at_batch - delta >= -1e-9 * at_double:
        part = min(delta, at_batch) / batch
        while part * batch > at_batch:  # remat-solve checks this product
            part = math.nextafter(part, 0.0)
        return part
    raise NotLinear("node %d (%s): %s %s at batch %d but %s at batch %d "
                    "is not a fixed part plus a part per sample" % (
                        node["id"], node["name"], key, at_batch, batch,
                        at_double, 2 * batch))


def add_batch_scaling(graph, double, batch):
    """Gives `graph`, traced at `batch` samples, its "batch" and every
    node's "bytes_per_sample" and "cost_per_sample", from `double`, the
    graph of the same step traced at 2 * batch: a node holds bytes + (b -
    batch) * bytes_per_sample at b samples. Parameters, their gradients and
    reductions over the batch come out fixed, activations per sample.
    Raises NotLinear (leaving `graph` as it was) when the two graphs differ
    in structure or a size is not affine in the batch."""
    nodes, others = graph["nodes"], double["nodes"]
    if len(nodes) != len(others) or graph["outputs"] != double["outputs"]:
        raise NotLinear("the joint graphs at batch %d and %d differ (%d and "
                        "%d nodes)" % (batch, 2 * batch, len(nodes),
                                       len(others)))
    scaling = []
    for n, m in zip(nodes, others):
        same = ("name", "deps", "kind", "alias_of")
        if any(n[k] != m[k] for k in same):
            raise NotLinear("node %d (%s) differs between batch %d and %d" % (
                n["id"], n["name"], batch, 2 * batch))
        scaling.append((per_sample(n, "bytes", n["bytes"], m["bytes"], batch),
                        per_sample(n, "cost", n["cost"], m["cost"], batch,
                                   exact="device" not in graph)))
    for n, (nbytes, cost) in zip(nodes, scaling):
        n["bytes_per_sample"] = nbytes
        n["cost_per_sample"] = float(cost)
    graph["batch"] = batch


def format_unknown(unknown, why):
    lines = ["%d unsupported op(s) (%s):" % (len(unknown), why)]
    for op in sorted(unknown):
        paths = sorted(set(p or "<top>" for p in unknown[op]))
        lines.append("  %s at %s" % (op, ", ".join(paths)))
    return "\n".join(lines)
