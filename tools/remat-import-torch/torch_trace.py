"""Tracing one training step into a joint forward+backward FX graph.

`trace(spec)` (spec: a model_spec.ModelSpec) runs functorch's AOT autograd
(torch 1.13) on fake tensors and captures the joint graph the partitioner
would receive: placeholders `primals_*` (parameters, then buffers, then the
data inputs and the labels) and `tangents_1` (the loss's incoming gradient),
then aten ops in execution order, and an output list [loss, d(param_0), ...
(None for a frozen parameter), new value of every buffer the step updates].
Every node gets meta['remat_path'], the module path ("layer1.0.conv1";
"loss" for the loss; empty for the placeholders) of the nn.Module whose
forward produced it, or whose forward the backward node differentiates.

Buffer updates (batch norm's running_mean, running_var and
num_batches_tracked) are in-place ops in PyTorch, which AOT autograd 1.13 does
not functionalize: the traced step returns every buffer after the forward,
and `functionalize_buffer_updates` rewrites the in-place ops that produced
them (`copy_`, `add_`) into the values they store.

A few calls that torch 1.13's fake tensors cannot trace (repeat_interleave,
label-smoothed cross-entropy, one_hot) are rewritten while tracing into
equivalent ones that they can (`_TraceRewrites`); an exception while tracing
names the module that was running (`_tracing_error`). A model constructed
under `OnMeta` (--meta) holds no weights; it is traced from fake CPU
tensors of its parameters' shapes.
"""

import collections
import contextlib

import torch
import torch.fx
import torch.nn.functional as F
from functorch.compile import aot_function, config as aot_config
from torch._decomp import get_decompositions
from torch._subclasses.fake_tensor import (DynamicOutputShapeException,
                                           FakeTensor, FakeTensorMode)
from torch.overrides import TorchFunctionMode
from torch.utils._mode_utils import no_dispatch


class ImportError_(Exception):
    """A user-facing error (bad model name, bad module file...)."""


# Ops decomposed before lowering to MLIR (PyTorch's own decompositions into
# primitive aten ops, torch._decomp).
MLIR_DECOMPOSITIONS = [
    torch.ops.aten.native_batch_norm,
    torch.ops.aten.native_batch_norm_backward,
    torch.ops.aten.native_layer_norm,
    torch.ops.aten.native_layer_norm_backward,
    torch.ops.aten._log_softmax,
    torch.ops.aten._log_softmax_backward_data,
    torch.ops.aten._softmax,
    torch.ops.aten._softmax_backward_data,
    torch.ops.aten.nll_loss_backward,
    torch.ops.aten.threshold_backward,
    torch.ops.aten.hardtanh,
    torch.ops.aten.hardtanh_backward,
    torch.ops.aten.gelu,
    torch.ops.aten.gelu_backward,
    torch.ops.aten.sigmoid_backward,
    torch.ops.aten.tanh_backward,
    torch.ops.aten.silu,
    torch.ops.aten.silu_backward,
    torch.ops.aten.hardswish,
    torch.ops.aten.hardswish_backward,
    torch.ops.aten.hardsigmoid,
    torch.ops.aten.hardsigmoid_backward,
    torch.ops.aten.var_mean,
    torch.ops.aten.rsub,
    torch.ops.aten._reshape_alias,
    torch.ops.aten._unsafe_view,
    torch.ops.aten.t,
    torch.ops.aten.clamp_min,
    torch.ops.aten.clamp_max,
    torch.ops.aten.select_backward,
    torch.ops.aten.slice_backward,
    torch.ops.aten.addmm,
    torch.ops.aten.split,
    torch.ops.aten.mse_loss,
    torch.ops.aten.mse_loss_backward,
]

# The "decomposed" graph set of the bench graphs (docs/Benchmarks-solvers.md): norms,
# activations, softmax and losses only.
GRAPH_DECOMPOSITIONS = MLIR_DECOMPOSITIONS[:22]


class Joint:
    """The traced joint graph and what its placeholders mean: every
    parameter (named_parameters order; a tied weight once), every buffer,
    the data inputs (model_spec.InputSpec: forward's inputs, then the
    labels of a named loss), then the tangent of the loss."""

    def __init__(self, gm, param_names, buffer_names, inputs,
                 updated_buffers=()):
        self.gm = gm
        self.graph = gm.graph
        self.param_names = param_names
        self.buffer_names = buffer_names
        self.inputs = list(inputs)
        nodes = list(self.graph.nodes)
        self.placeholders = [n for n in nodes if n.op == "placeholder"]
        self.output = [n for n in nodes if n.op == "output"][0]
        outs = self.output.args[0]
        self.loss = outs[0]
        # Gradients of the parameters, in named_parameters order (None for
        # a frozen one, requires_grad=False).
        self.grads = list(outs[1:1 + len(param_names)])
        # (name, new value) of every buffer the step updates, in
        # named_buffers order.
        self.buffer_updates = list(zip(
            updated_buffers, outs[1 + len(param_names):]))

    def placeholder_kind(self, index):
        """'param', 'buffer', 'input', 'labels' or 'tangent'."""
        np_, nb = len(self.param_names), len(self.buffer_names)
        if index < np_:
            return "param"
        if index < np_ + nb:
            return "buffer"
        if index < np_ + nb + len(self.inputs):
            role = self.inputs[index - np_ - nb].role
            return "labels" if role == "labels" else "input"
        return "tangent"

    def data_input(self, index):
        """The model_spec.InputSpec of placeholder `index` if it is a data
        input or the labels, else None."""
        first = len(self.param_names) + len(self.buffer_names)
        if first <= index < first + len(self.inputs):
            return self.inputs[index - first]
        return None

    def placeholder_label(self, index):
        """The parameter's or buffer's name, the input's name ('input' for
        the one input of --input-shape and --model), 'labels' or
        'tangent'."""
        kind = self.placeholder_kind(index)
        np_, nb = len(self.param_names), len(self.buffer_names)
        if kind == "param":
            return self.param_names[index]
        if kind == "buffer":
            return self.buffer_names[index - np_]
        if kind == "input":
            spec = self.inputs[index - np_ - nb]
            return "input" if spec.role == "positional" else spec.name
        return kind

    def op_counts(self):
        counts = collections.Counter()
        for n in self.graph.nodes:
            if n.op == "call_function":
                counts[op_name(n)] += 1
        return counts


def op_name(node):
    """'aten.convolution' for a call of aten.convolution.default."""
    t = node.target
    if isinstance(t, torch._ops.OpOverload):
        return "%s.%s" % (t.namespace, t.overloadpacket.__name__)
    return getattr(t, "__name__", str(t))


class _Done(Exception):
    pass


class _PathRecorder:
    """Gives every FX node created while tracing the path of the nn.Module
    that is running (forward) or being differentiated (backward)."""

    def __init__(self):
        self.current = ""
        self.stack = []
        self.saved = []

    def __enter__(self):
        rec = self
        self.orig_create = torch.fx.Graph.create_node
        self.orig_run = torch.fx.Interpreter.run_node
        orig_create, orig_run = self.orig_create, self.orig_run

        def create_node(graph, *a, **k):
            n = orig_create(graph, *a, **k)
            n.meta["remat_path"] = rec.current
            return n

        def run_node(interp, n):
            saved = rec.current
            rec.current = n.meta.get("remat_path", saved)
            try:
                return orig_run(interp, n)
            finally:
                rec.current = saved

        torch.fx.Graph.create_node = create_node
        torch.fx.Interpreter.run_node = run_node
        return self

    def __exit__(self, *exc):
        torch.fx.Graph.create_node = self.orig_create
        torch.fx.Interpreter.run_node = self.orig_run
        for h in self.saved:
            h.remove()
        return False

    @staticmethod
    def tag(value, path):
        """Marks the autograd nodes that produced `value` and are not yet
        marked (they belong to the module that just finished)."""
        todo = [value.grad_fn] if isinstance(value, torch.Tensor) else []
        while todo:
            fn = todo.pop()
            if fn is None or "remat_path" in fn.metadata:
                continue
            fn.metadata["remat_path"] = path
            todo.extend(f for f, _ in fn.next_functions)

    def hook_modules(self, model):
        for path, m in model.named_modules():
            def pre(mod, inp, path=path):
                self.stack.append(path)
                self.current = path

            def post(mod, inp, out, path=path):
                outs = out if isinstance(out, (tuple, list)) else [out]
                for o in outs:
                    self.tag(o, path)
                self.stack.pop()
                self.current = self.stack[-1] if self.stack else ""

            self.saved.append(m.register_forward_pre_hook(pre))
            self.saved.append(m.register_forward_hook(post))

    def hook_backward(self, loss):
        seen, todo = set(), [loss.grad_fn]
        while todo:
            fn = todo.pop()
            if fn is None or fn in seen:
                continue
            seen.add(fn)
            path = fn.metadata.get("remat_path", "")

            def pre(grad, path=path):
                self.current = path

            fn.register_prehook(pre)
            todo.extend(f for f, _ in fn.next_functions)


class _TraceRewrites(TorchFunctionMode):
    """Rewrites, while tracing, the calls whose aten form fake tensors
    cannot trace into equivalent calls that they can:
    `F.cross_entropy` with label_smoothing (torch 1.13's kernel fills a
    mask with a real tensor) becomes its definition from log_softmax,
    nll_loss and sums (`_smoothed_cross_entropy`), `F.one_hot` with a
    number of classes (its kernel checks the indices' range, reading their
    values) a comparison with arange, and
    `repeat_interleave(x, repeats, dim)` with the same number of repeats
    for every slice (an int, or a tensor of repeats whose values the fake
    tensor knows: a constant) becomes unsqueeze, expand and flatten (its
    aten form, repeat_interleave.Tensor, has an output shape that depends
    on the repeats' values). Other repeats are an ImportError_."""

    REPEAT_INTERLEAVE = (torch.repeat_interleave, torch.Tensor.repeat_interleave)

    def __init__(self, rec):
        super().__init__()
        self.rec = rec

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in self.REPEAT_INTERLEAVE and len(args) + len(kwargs) > 1:
            return self.repeat_interleave(*args, **kwargs)
        if func is F.one_hot:
            return _one_hot(*args, **kwargs)
        if func is F.cross_entropy and kwargs.get("label_smoothing", 0.0):
            return _smoothed_cross_entropy(*args, **kwargs)
        return func(*args, **kwargs)

    def repeat_interleave(self, x, repeats, dim=None, output_size=None):
        count = _uniform_repeats(repeats)
        if count is None:
            raise ImportError_(
                "in %s: aten.repeat_interleave with a tensor of repeats is "
                "not supported (its output shape depends on the repeats' "
                "values): give an int" % (self.rec.current or "<top>"))
        if dim is None:
            x, dim = x.flatten(), 0
        dim = dim % x.dim()
        shape = list(x.shape)
        wide = shape[:dim + 1] + [count] + shape[dim + 1:]
        return x.unsqueeze(dim + 1).expand(wide).flatten(dim, dim + 1)


def _one_hot(t, num_classes=-1):
    """F.one_hot(t, num_classes) as t[..., None] == arange(num_classes), in
    int64; indices outside [0, num_classes) give a row of zeros (PyTorch
    raises). num_classes=-1 (the largest index + 1) is an ImportError_."""
    if num_classes < 0:
        raise ImportError_("F.one_hot without num_classes reads the indices' "
                           "values: give num_classes")
    classes = torch.arange(num_classes, dtype=t.dtype, device=t.device)
    return (t.unsqueeze(-1) == classes).to(torch.int64)


def _smoothed_cross_entropy(x, target, weight=None, size_average=None,
                            ignore_index=-100, reduce=None, reduction="mean",
                            label_smoothing=0.0):
    """F.cross_entropy(x, target, ..., label_smoothing=eps) with class
    indices as targets, as PyTorch defines it: (1 - eps) times the negative
    log-likelihood plus eps / C times the sum of -log p over the C classes
    (dim 1), both over the rows whose target is not ignore_index (their
    mean for `mean`). Class weights, probabilities as targets and the
    legacy size_average/reduce are not rewritten (PyTorch's own call)."""
    if weight is not None or size_average is not None or reduce is not None \
            or target.is_floating_point() or reduction not in ("mean", "sum"):
        return F.cross_entropy(x, target, weight, size_average, ignore_index,
                               reduce, reduction, label_smoothing)
    logp = F.log_softmax(x, 1)
    nll = F.nll_loss(logp, target, ignore_index=ignore_index,
                     reduction=reduction)
    valid = (target != ignore_index).to(logp.dtype)
    smooth = (-logp.sum(1) * valid).sum()
    if reduction == "mean":
        smooth = smooth / valid.sum()
    eps = label_smoothing
    return (1.0 - eps) * nll + smooth * (eps / x.shape[1])


def _uniform_repeats(repeats):
    """The number of repeats of every slice, or None when it is not known
    to be one number."""
    if isinstance(repeats, int):
        return repeats
    values = getattr(repeats, "constant", None)  # a fake tensor's value
    if values is None and not isinstance(repeats, FakeTensor):
        values = repeats
    if values is None or values.numel() == 0:
        return None
    flat = values.flatten()
    return int(flat[0]) if bool((flat == flat[0]).all()) else None


class OnMeta(TorchFunctionMode):
    """Puts every tensor a factory function creates (torch.empty, zeros,
    ones, full, arange, ...) on the meta device: a model constructed under
    it holds no weights (its parameters have shapes, no data), and a step
    traced from it (ModelSpec.meta) sees them as fake CPU tensors
    (`fake_tensor`). Values are not computed: a model whose structure
    depends on a tensor's values cannot be built this way."""

    FACTORIES = (torch.empty, torch.zeros, torch.ones, torch.full,
                 torch.arange, torch.rand, torch.randn, torch.randint,
                 torch.eye, torch.linspace, torch.tensor, torch.empty_strided,
                 torch.scalar_tensor)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in self.FACTORIES:
            kwargs["device"] = "meta"
        return func(*args, **kwargs)


def fake_tensor(mode, t):
    """The fake tensor of `mode` standing for `t`; a meta tensor (a model
    constructed under OnMeta) stands for a CPU tensor of its shape (torch
    1.13's fake tensors refuse the meta device)."""
    if t.device.type != "meta":
        return _FROM_TENSOR(mode, t)
    converter = mode.fake_tensor_converter
    out = converter._get_memo(t)
    if out is None:
        with no_dispatch():
            out = FakeTensor(mode, t.detach(), torch.device("cpu"))
        out.requires_grad_(t.requires_grad)
        if type(t) is torch.nn.Parameter:
            out = torch.nn.Parameter(out, requires_grad=t.requires_grad)
        converter.set_tensor_memo(t, out)
    return out


_FROM_TENSOR = FakeTensorMode.from_tensor


@contextlib.contextmanager
def _meta_as_cpu():
    """AOT autograd's fake tensors of meta tensors through `fake_tensor`."""
    FakeTensorMode.from_tensor = \
        lambda mode, t, shape_env=None: fake_tensor(mode, t)
    try:
        yield
    finally:
        FakeTensorMode.from_tensor = _FROM_TENSOR


_META_LIBRARY = []


def _meta_convolution_backward(grad_output, input, weight, bias_sizes,
                               stride, padding, dilation, transposed,
                               output_padding, groups, output_mask):
    """Shapes only: the gradients have the shapes of input, weight, bias."""
    shapes = (input.shape, weight.shape, bias_sizes)
    return tuple(grad_output.new_empty(shape) if wanted else None
                 for shape, wanted in zip(shapes, output_mask))


def register_meta_kernels():
    """Gives torch 1.13 the meta kernel it lacks for convolution_backward.
    Without it, fake tensors run the op for real on zeros (FakeTensor's
    fallback): most of a convolutional model's trace time, growing with
    the batch (resnet18 at batch 32: 68 of 84 s). Newer torch has one."""
    if _META_LIBRARY:
        return
    library = torch.library.Library("aten", "IMPL", "Meta")
    try:
        library.impl("convolution_backward", _meta_convolution_backward)
    except RuntimeError:  # a kernel is registered already
        pass
    _META_LIBRARY.append(library)  # registrations live as long as it


def all_named_tensors(model):
    """(name, tensor) of every parameter and buffer under every name it
    has: a tied weight (one tensor, two modules) appears under both."""
    for prefix, m in model.named_modules(remove_duplicate=False):
        for members in (m._parameters, m._buffers):
            for name, t in members.items():
                if t is not None:
                    yield (prefix + "." if prefix else "") + name, t


def tied_names(model):
    """{other name: name in named_parameters/named_buffers} of every tensor
    known under several names (a tied weight): stateless calls must
    replace the tensor under each."""
    canonical = {**dict(model.named_parameters()),
                 **dict(model.named_buffers())}
    by_id = {id(t): n for n, t in canonical.items()}
    return {n: by_id[id(t)] for n, t in all_named_tensors(model)
            if n not in canonical and id(t) in by_id}


def trace(spec, decompose=False, for_mlir=False, decompositions=None):
    """Returns the Joint of one training step of spec (a model_spec
    ModelSpec) in train mode. `decompositions` ({aten op: function})
    replace PyTorch's own (the synchronized batch norm of shard_export)."""
    register_meta_kernels()
    model = spec.model
    model.train()
    _check_batch_norms(model)
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    pnames, bnames = list(params), list(buffers)
    tied = tied_names(model)
    rec = _PathRecorder()

    def step(*args):
        p = dict(zip(pnames, args[:len(pnames)]))
        b = dict(zip(bnames, args[len(pnames):len(pnames) + len(bnames)]))
        data = args[len(pnames) + len(bnames):]
        tensors = {**p, **b}
        tensors.update((a, tensors[n]) for a, n in tied.items())
        out = spec.forward(tensors, data)
        rec.current = "loss"
        loss = spec.loss_of(out, data)
        rec.tag(loss, "loss")
        rec.hook_backward(loss)
        # The buffers after the forward: a batch norm's updates replaced
        # them in place (functionalize_buffer_updates).
        return (loss,) + tuple(b.values())

    gm = _capture_joint(spec, step, rec, _decompositions(
        decompose, for_mlir, decompositions),
        list(params.values()) + list(buffers.values()))
    updated = functionalize_buffer_updates(gm, len(pnames), bnames)
    gm.graph.eliminate_dead_code()
    _erase_unused_tangents(gm, len(pnames) + len(bnames) + len(spec.inputs))
    joint = Joint(gm, pnames, bnames, spec.inputs, updated)
    import input_bounds  # it reads this module's op names
    input_bounds.bound_inputs(joint)
    return joint


def _decompositions(decompose, for_mlir, extra):
    decomps = {}
    if decompose:
        decomps = get_decompositions(
            MLIR_DECOMPOSITIONS if for_mlir else GRAPH_DECOMPOSITIONS)
    decomps.update(extra or {})
    return decomps


def _capture_joint(spec, step, rec, decomps, tensors):
    """The joint graph AOT autograd makes of `step` on the model's
    `tensors` and fake data inputs (it stops at the partitioner)."""
    captured = {}

    def partition(joint, joint_inputs, **kwargs):
        captured["gm"] = joint
        raise _Done()

    aot_config.use_fake_tensor = True
    fn = aot_function(step, lambda g, inputs: g, partition_fn=partition,
                      decompositions=decomps)
    with rec, _TraceRewrites(rec), _meta_as_cpu():
        rec.hook_modules(spec.model)
        try:
            fn(*tensors, *[i.example() for i in spec.inputs])
        except _Done:
            pass
        except ImportError_:
            raise
        except Exception as err:  # the model's own error, e.g. a shape
            raise ImportError_(_tracing_error(spec, rec.current, err))
    if "gm" not in captured:
        raise ImportError_("AOT autograd produced no joint graph")
    gm = captured["gm"]
    for n in gm.graph.nodes:
        if n.op == "placeholder":  # arguments belong to no module's code
            n.meta["remat_path"] = ""
    return gm


def _tracing_error(spec, path, err):
    """The message of an exception raised while tracing, naming the module
    whose forward (or backward) was running: an op that fake tensors cannot
    trace (its output shape depends on values) by its name, anything else
    (the model's own error, a value read from a traced tensor) as it is."""
    where = "in %s: " % (path or "<top>")
    if isinstance(err, DynamicOutputShapeException):
        op = err.func
        name = "%s.%s" % (op.namespace, op.overloadpacket.__name__) \
            if isinstance(op, torch._ops.OpOverload) else str(op)
        return where + ("%s is not supported: its output shape depends on "
                        "its input's values" % name)
    return where + "tracing %s with %s failed: %s: %s" % (
        spec.name, spec.describe(), type(err).__name__, err)


def _check_batch_norms(model):
    """Refuses batch norms whose running-statistics update the importer
    cannot trace: momentum=None (a cumulative average, whose factor PyTorch
    reads from num_batches_tracked's value in Python)."""
    import torch.nn as nn
    cumulative = [name for name, m in model.named_modules()
                  if isinstance(m, nn.modules.batchnorm._BatchNorm) and
                  m.track_running_stats and m.momentum is None]
    if cumulative:
        raise ImportError_(
            "batch norm with momentum=None (%s): the cumulative average of "
            "the running statistics is not supported; give a momentum"
            % ", ".join(cumulative))


# In-place ops a buffer update may use, and their out-of-place forms (None:
# the op stores its second argument).
_IN_PLACE = {
    torch.ops.aten.copy_.default: None,
    torch.ops.aten.add_.Tensor: torch.ops.aten.add.Tensor,
}


def functionalize_buffer_updates(gm, nparams, bnames):
    """Rewrites the joint output [loss, buffer..., d(param)..., None...] of
    the step traced by `trace` to [loss, d(param)..., updated buffer...]
    with every in-place update of a buffer (`copy_`, `add_`) replaced by the
    value it stores; returns the
    names of the updated buffers: those whose value is not the argument, and
    those an op writes in place (native_batch_norm, not decomposed, updates
    its running statistics in its arguments: the update's value is the
    argument). Raises ImportError_ for any other in-place op on a buffer."""
    graph = gm.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    # The buffers' current values, in graph order (a module called twice
    # updates the value its first call stored).
    current = set(placeholders[nparams:nparams + len(bnames)])
    mutating = set()
    for n in list(graph.nodes):
        target = n.args[0] if n.args else None
        if n.op != "call_function" or not isinstance(target, torch.fx.Node) \
                or target not in current:
            continue
        if n.target in _IN_PLACE:
            current.add(_functional_update(graph, n))
        elif isinstance(n.target, torch._ops.OpOverload) and \
                n.target._schema.name.endswith("_"):
            mutating.add("%s at %s" % (op_name(n), n.meta.get("remat_path")))
    if mutating:
        raise ImportError_("in-place update(s) of a buffer the importer "
                           "cannot turn into values: %s"
                           % ", ".join(sorted(mutating)))
    output = [n for n in graph.nodes if n.op == "output"][0]
    outs = list(output.args[0])
    nb = len(bnames)
    buffers, grads = outs[1:1 + nb], outs[1 + nb:1 + nb + nparams]
    updated = [(name, v) for i, (name, v) in enumerate(zip(bnames, buffers))
               if v is not placeholders[nparams + i] or _written(v)]
    output.args = ([outs[0]] + grads + [v for _, v in updated],)
    return [name for name, _ in updated]


def _functional_update(graph, n):
    """Replaces the in-place update `n` of a buffer (an _IN_PLACE op) by the
    value it stores; returns that value."""
    functional = _IN_PLACE[n.target]
    if functional is None:
        dst, src = n.args[0].meta.get("val"), n.args[1].meta.get("val")
        if dst is None or src is None or dst.shape != src.shape:
            raise ImportError_("%s: a copy_ that broadcasts is not "
                               "supported" % n.meta["remat_path"])
        value = n.args[1]
        if dst.dtype != src.dtype:
            # A bf16 batch norm's statistics, computed in float32, stored.
            with graph.inserting_before(n):
                value = graph.call_function(
                    torch.ops.prims.convert_element_type.default,
                    (value, dst.dtype))
            value.meta.update(n.meta)
            value.meta["val"] = dst
    else:
        with graph.inserting_before(n):
            value = graph.call_function(functional, n.args, n.kwargs)
        value.meta.update(n.meta)
    n.replace_all_uses_with(value)
    graph.erase_node(n)
    return value


def _written(node):
    """Whether an op writes `node` in place: a mutable argument, or the
    running statistics of native_batch_norm in training mode (torch 1.13's
    schema does not mark them mutable)."""
    for user in node.users:
        if user.target is torch.ops.aten.native_batch_norm.default:
            if user.args[5] and node in user.args[3:5]:
                return True
            continue
        schema = getattr(user.target, "_schema", None)
        for arg, value in zip(schema.arguments if schema else (), user.args):
            if value is node and arg.alias_info is not None and \
                    arg.alias_info.is_write:
                return True
    return False


def _erase_unused_tangents(gm, first):
    """Drops the tangents of the buffer results (placeholders from index
    `first` on that nothing reads): the buffers are not differentiated."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for n in placeholders[first:]:
        if not n.users:
            gm.graph.erase_node(n)
