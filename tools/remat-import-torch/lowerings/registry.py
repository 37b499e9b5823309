"""The one table of lowerings: op name -> function(cx, node).

A lowering is a function of a `Context` and a torch.fx node that emits the
node's IR through `cx.e` (an mlir_emitter.Emitter) and returns its Value
(a tuple of Values for an op with several results). It registers itself:

    @lowering("aten.relu")
    def relu(cx, n):
        return cx.e.elementwise([cx.val(n.args[0]), 0.0], cx.shape, cx.elt,
                                lambda b, s: b.op("arith.maximumf", s, cx.elt))

`lower` dispatches through TABLE only. A form of an op that a lowering does
not cover raises `Unsupported("aten.op (what)")`; the caller collects them
and reports all of them at once with their module paths.
"""

import torch

from mlir_emitter import Value
from torch_trace import op_name

TABLE = {}

DTYPES = {torch.bfloat16: "bf16", torch.float32: "f32", torch.float64: "f64",
          torch.int64: "i64",
          torch.int32: "i32", torch.bool: "i1"}


class Unsupported(Exception):
    """An op, or a form of it, that no lowering covers; the message names
    it (`aten.convolution (transposed)`)."""


def lowering(*ops):
    """Registers the decorated function as the lowering of `ops`."""
    def register(fn):
        for op in ops:
            if op in TABLE:
                raise RuntimeError("two lowerings of %s: %s.%s and %s.%s" % (
                    op, TABLE[op].__module__, TABLE[op].__name__,
                    fn.__module__, fn.__name__))
            TABLE[op] = fn
        return fn
    return register


def element_type(dtype, what):
    """The MLIR element type of a torch dtype; Unsupported otherwise."""
    if dtype not in DTYPES:
        raise Unsupported("%s (element type %s)" % (what, dtype))
    return DTYPES[dtype]


class Deferred:
    """A node's Value that is emitted where it is first used: `make(cx)`
    emits it and returns the Value (a fully sharded parameter's all-gather,
    shard_export.FullySharded)."""

    def __init__(self, make):
        self.make = make


class Context:
    """What a lowering sees: the emitter `e`, the Values of the nodes
    lowered so far, the dropout masks the step takes, and
    the node being lowered: its op name `op` and, when it has one tensor
    result, its `shape` and element type `elt` (None otherwise)."""

    def __init__(self, joint, function):
        self.joint = joint
        self.function = function
        self.e = function.body
        self.values = {}
        self.masks = []  # (Value, label, p) of dropout masks made arguments
        self.op, self.shape, self.elt = None, None, None

    def val(self, a):
        """The Value of a node argument; other arguments (scalars, lists,
        None) as they are."""
        if not isinstance(a, torch.fx.Node):
            return a
        v = self.values[a]
        if isinstance(v, Deferred):
            v = self.values[a] = v.make(self)
        return v

    @staticmethod
    def meta(node):
        v = node.meta.get("val")
        if v is None:
            v = node.meta.get("tensor_meta")
        if v is None and node.target in (torch.ops.aten.detach.default,
                                         torch.ops.aten.alias.default):
            return Context.meta(node.args[0])
        return v

    def stand_in(self, node):
        """A placeholder Value for a node that has none (its producer was
        unsupported), so that lowering goes on and finds every problem."""
        m = self.meta(node)
        if m is None or isinstance(m, (tuple, list)):
            return Value("%unsupported", [], "f32")
        return Value("%unsupported", list(m.shape), DTYPES.get(m.dtype, "f32"))

    def out_info(self, node):
        """(shape, element type) of a node's single tensor result."""
        v = self.meta(node)
        return list(v.shape), element_type(v.dtype, op_name(node))


def lower(cx, n):
    """The Value(s) of node `n`, through its lowering in TABLE."""
    cx.op = op_name(n)
    m = cx.meta(n)
    single = m is not None and not isinstance(m, (tuple, list))
    cx.shape, cx.elt = cx.out_info(n) if single else (None, None)
    fn = TABLE.get(cx.op)
    if fn is None:
        raise Unsupported(cx.op)
    return fn(cx, n)
