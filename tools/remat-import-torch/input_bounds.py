"""The bounds of integer inputs, read off the traced step.

An integer input (token ids, class labels) is drawn from [0, high) by
whoever gives it values (remat-run's `remat.high`, check-numerics). What
reads it fixes how large `high` may be: the rows of an embedding table, the
classes of a loss, the size of the dimension an index_select, gather,
scatter or index picks from, the length of an arange it is compared with.
`bound_inputs(joint)` follows every integer input through the ops that keep
its values (views, copies, slices) to those readers, makes the smallest
size its default bound and refuses a larger bound given by the user, naming
the input and the module that reads it.
"""

import torch

from torch_trace import ImportError_, op_name

# Ops whose result holds (some of) the values of their first argument.
KEEPS_VALUES = {
    "aten.view", "aten._unsafe_view", "aten.reshape", "aten.unsqueeze",
    "aten.squeeze", "aten.expand", "aten.clone", "aten.permute",
    "aten.transpose", "aten.t", "aten.slice", "aten.select", "aten.alias",
    "aten.detach", "aten.contiguous", "aten.flatten", "aten._to_copy",
    "aten.lift_fresh_copy", "aten.repeat",
}


def _shape(node):
    return list(node.meta["val"].shape)


def _class_count(logits):
    """The classes of nll_loss's input: dimension 1, or 0 when 1-D."""
    shape = _shape(logits)
    return shape[1] if len(shape) > 1 else shape[0]


def _dim_size(source, dim):
    shape = _shape(source)
    return shape[dim % len(shape)] if shape else 1


def _rows(args, at):
    """aten.embedding(weight, indices)."""
    return [(_shape(args[0])[0], "the %d rows of the embedding")] \
        if 1 in at else []


def _rows_backward(args, at):
    """aten.embedding_dense_backward(grad, indices, num_weights, ...)."""
    return [(args[2], "the %d rows of the embedding")] if 1 in at else []


def _classes(args, at):
    """aten.nll_loss_forward(logits, target, ...)."""
    return [(_class_count(args[0]), "the %d classes of the loss")] \
        if 1 in at else []


def _classes_backward(args, at):
    """aten.nll_loss_backward(grad, logits, target, ...)."""
    return [(_class_count(args[1]), "the %d classes of the loss")] \
        if 2 in at else []


def _along_dim(args, at):
    """aten.index_select, gather, scatter(_add)(source, dim, index, ...)."""
    return [(_dim_size(args[0], args[1]), "dimension %d (%%d long) of the "
             "source" % args[1])] if 2 in at else []


def _indexing(args, value):
    """aten.index(_put)(source, [None, .., index, ..], ...)."""
    return [(_dim_size(args[0], p), "dimension %d (%%d long) of the "
             "indexed tensor" % p)
            for p, i in enumerate(args[1]) if i is value]


def _one_hot(args, at):
    return [(args[1], "the %d classes of one_hot")] \
        if 0 in at and len(args) > 1 and args[1] > 0 else []


def _compared_with_arange(args, at):
    """eq / ne with an arange: the arange's length."""
    others = [a for k, a in enumerate(args[:2]) if k not in at]
    if others and getattr(others[0], "op", None) == "call_function" and \
            op_name(others[0]) == "aten.arange":
        return [(_shape(others[0])[0], "an arange of length %d")]
    return []


# aten op -> its readers: fn(args, positions of the value) -> [(size, what
# it indexes, '%d' for the size)].
READERS = {
    "aten.embedding": _rows,
    "aten.embedding_dense_backward": _rows_backward,
    "aten.nll_loss_forward": _classes,
    "aten.nll_loss2d_forward": _classes,
    "aten.nll_loss_backward": _classes_backward,
    "aten.nll_loss2d_backward": _classes_backward,
    "aten.index_select": _along_dim,
    "aten.gather": _along_dim,
    "aten.scatter": _along_dim,
    "aten.scatter_add": _along_dim,
    "aten.one_hot": _one_hot,
    "aten.eq": _compared_with_arange,
    "aten.ne": _compared_with_arange,
}


def _readers(node, value):
    """[(size, what)] of the indexing `node` does with `value`."""
    name, args = op_name(node), node.args
    if name in ("aten.index", "aten.index_put"):
        return _indexing(args, value)
    reader = READERS.get(name)
    return reader(args, [k for k, a in enumerate(args) if a is value]) \
        if reader else []


def derived_bound(placeholder):
    """(size, what it is, module path) of the smallest thing the values of
    `placeholder` index, or None when nothing indexes with them."""
    best, seen, todo = None, {placeholder}, [placeholder]
    while todo:
        value = todo.pop()
        for user in value.users:
            if user.op != "call_function":
                continue
            if op_name(user) in KEEPS_VALUES and user.args[0] is value:
                if user not in seen:
                    seen.add(user)
                    todo.append(user)
                continue
            for size, what in _readers(user, value):
                if best is None or size < best[0]:
                    best = (size, what % size,
                            user.meta.get("remat_path") or "<top>")
    return best


def bound_inputs(joint):
    """Gives every integer data input of `joint` (torch_trace.Joint) the
    bound of what reads it when it has none; raises ImportError_ when a
    given bound exceeds it."""
    for index, p in enumerate(joint.placeholders):
        spec = joint.data_input(index)
        if spec is None or spec.dtype.is_floating_point or \
                spec.dtype == torch.bool:
            continue
        found = derived_bound(p)
        if found is None:
            continue
        size, what, path = found
        if spec.high is None:
            spec.high = size
        elif spec.high > size:
            raise ImportError_(
                "input '%s' is bounded by %d, but it indexes %s in module "
                "'%s': give a bound of at most %d"
                % (spec.name, spec.high, what, path, size))
