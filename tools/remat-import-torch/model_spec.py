"""What to trace: a model, its example inputs and its loss (`ModelSpec`).

The importer and check-numerics build one from the same options
(docs/Importer.md, "Inputs and loss"):

  --model NAME                a torchvision classifier, input B x 3 x R x R;
  --module FILE.py:NAME       a user's nn.Module class, or a function that
                              returns one, called with --module-args (JSON:
                              an object of keyword arguments or a list);
  --input-shape DIMS          its one float input (the old form);
  --input NAME=DIMS[:DTYPE[:HIGH]], repeated
                              inputs of forward, by parameter name;
  --example-inputs [FILE.py:]FN
                              a function returning example inputs;
  --loss output|ce|mse|[FILE.py:]FN
                              what is differentiated.

Every input is an `InputSpec`. The step's data arguments are the inputs in
the order given, then the labels of a named loss. Tracing needs shapes and
dtypes only; `high` bounds the values of an integer input (token ids) for
whoever gives it values (remat-run's `remat.high`, check-numerics); tracing
derives it from what reads the input (input_bounds.py).
"""

import argparse
import contextlib
import copy
import importlib.util
import inspect
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.utils import stateless

from torch_trace import ImportError_, OnMeta

DTYPES = {"f32": torch.float32, "f64": torch.float64,
          "bf16": torch.bfloat16, "i32": torch.int32, "i64": torch.int64,
          "bool": torch.bool}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
# The largest bound of an integer input: its values [0, HIGH) fit the type.
LARGEST_HIGH = {"i32": 2 ** 31, "i64": 2 ** 63 - 1}


class InputSpec:
    """One data argument of the step. `role`: 'forward' (passed to forward
    by name), 'positional' (forward's only argument: --input-shape and
    --model), 'labels' (the labels of a named loss) or 'loss' (passed to a
    loss function only). `high`: integer values lie in [0, high); None
    when unknown."""

    def __init__(self, name, shape, dtype, role="forward", high=None):
        self.name = name
        self.shape = list(shape)
        self.dtype = dtype
        self.role = role
        self.high = high

    def __str__(self):
        text = "%s=%s:%s" % (self.name, "x".join(map(str, self.shape)),
                             DTYPE_NAMES.get(self.dtype, str(self.dtype)))
        return text + (":%d" % self.high if self.high is not None else "")

    def example(self):
        """A value of this shape and dtype (tracing reads no values)."""
        return torch.zeros(self.shape, dtype=self.dtype)


def parse_input(text):
    """--input NAME=DIMS[:DTYPE[:HIGH]] -> (name or None, shape, dtype name
    or None, high or None); argparse's type."""
    name, eq, rest = text.partition("=")
    if not eq:
        name, rest = None, text
    fields = rest.split(":")
    try:
        shape = [int(d) for d in fields[0].lower().split("x")] \
            if fields[0] else []
        high = int(fields[2]) if len(fields) > 2 else None
    except ValueError:
        shape, high = None, None
    dtype = fields[1] if len(fields) > 1 else None
    if (shape is None or any(d <= 0 for d in shape) or len(fields) > 3 or
            (dtype is not None and dtype not in DTYPES) or
            (high is not None and (high <= 0 or dtype not in ("i32", "i64")))
            or name == ""):
        raise argparse.ArgumentTypeError(
            "expected NAME=DIMS[:DTYPE[:HIGH]] (e.g. idx=4x1024:i64:50257; "
            "DTYPE one of %s, HIGH for integers), got '%s'"
            % (", ".join(DTYPES), text))
    if high is not None and high > LARGEST_HIGH[dtype]:
        raise argparse.ArgumentTypeError(
            "input '%s': bound %d does not fit %s (values [0, HIGH) need "
            "HIGH <= %d)" % (name or text, high, dtype, LARGEST_HIGH[dtype]))
    return name, shape, dtype, high


def parse_module_args(text):
    """--module-args: a JSON object (keyword arguments) or list."""
    try:
        value = json.loads(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError("not JSON: %s" % err)
    if not isinstance(value, (dict, list)):
        raise argparse.ArgumentTypeError(
            "expected a JSON object or list, got '%s'" % text)
    return value


def add_arguments(p, require_source=True):
    """The options that say what to trace (shared by remat-import-torch and
    check-numerics); --model or --module is required unless
    `require_source` is false (then the caller checks)."""
    src = p.add_mutually_exclusive_group(required=require_source)
    src.add_argument("--model", help="torchvision classification model name "
                     "(resnet18, mobilenet_v2, vit_b_16, ...)")
    src.add_argument("--module", help="FILE.py:NAME, an nn.Module class or "
                     "a function returning a module")
    p.add_argument("--module-args", type=parse_module_args, metavar="JSON",
                   help="constructor arguments of --module: a JSON object "
                   "of keyword arguments (or a list)")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--resolution", type=int, default=224,
                   help="image height and width for --model (default 224)")
    p.add_argument("--input-shape", type=parse_shape,
                   help="--module's one float input, batch first "
                   "(1x3x32x32); the loss is cross-entropy on class labels")
    p.add_argument("--input", action="append", type=parse_input,
                   metavar="NAME=DIMS[:DTYPE[:HIGH]]", dest="inputs",
                   help="an input of forward (repeat, forward's order): "
                   "DTYPE f32 (default), f64, bf16, i32, i64 or bool; HIGH "
                   "bounds integer values (token ids in [0, HIGH))")
    p.add_argument("--example-inputs", metavar="[FILE.py:]FN",
                   help="a function (in --module's file unless FILE is "
                   "given) returning forward's inputs: a tensor, a tuple or "
                   "a dict by parameter name")
    p.add_argument("--loss", metavar="output|ce|mse|[FILE.py:]FN",
                   help="output: forward returns the loss (default with "
                   "--input); ce: cross-entropy over the output's last "
                   "dimension, integer labels; mse: mean squared error; "
                   "FN(output, *inputs) returns the loss")
    p.add_argument("--num-classes", type=int, default=None,
                   help="classes of a torchvision model (default: its own, "
                   "1000)")
    p.add_argument("--dtype", choices=["f32", "f64", "bf16"], default="f32",
                   help="element type of the parameters and of float inputs "
                   "without a DTYPE (f64: for checking the lowering without "
                   "float32 rounding; bf16: parameters, activations and "
                   "gradients in bfloat16)")
    p.add_argument("--name", help="name of the graph / function")
    p.add_argument("--meta", action="store_true",
                   help="construct --module on the meta device and trace "
                   "it there: no weights are allocated (for models too "
                   "large to hold; the graph and MLIR need no values)")


def parse_shape(text):
    try:
        shape = [int(d) for d in text.lower().split("x")]
    except ValueError:
        shape = []
    if not shape or any(d <= 0 for d in shape):
        raise argparse.ArgumentTypeError(
            "expected a shape like 1x3x32x32, got '%s'" % text)
    return shape


def check_arguments(p, args):
    """The combinations argparse cannot express; p.error on a bad one."""
    given = [o for o, v in (("--input-shape", args.input_shape),
                            ("--input", args.inputs),
                            ("--example-inputs", args.example_inputs)) if v]
    if args.module and not given:
        p.error("--module needs --input, --example-inputs or --input-shape")
    if len(given) > 1:
        p.error("give one of %s" % ", ".join(given))
    if args.model and (given or args.module_args is not None):
        p.error("%s applies to --module only"
                % (given + ["--module-args"])[0])


class ModelSpec:
    """What to trace: `model` (train mode), the data `inputs` (InputSpec,
    labels last), the `loss` (a Loss) and the parameters' float `dtype`.
    `meta`: the model was constructed on the meta device (--meta: no
    weights); its tensors are traced as fake CPU tensors."""

    def __init__(self, name, model, inputs, loss, dtype=torch.float32,
                 meta=False):
        self.name = name
        self.meta = meta
        self.model = model
        self.loss = loss
        self.dtype = dtype
        self.inputs = list(inputs)
        self.inputs += loss.labels(self)

    @property
    def batch(self):
        """The batch: the first dimension of the first input."""
        return self.inputs[0].shape[0] if self.inputs[0].shape else 1

    def with_batch(self, batch):
        """This spec at another batch: every input (not the labels, which
        follow the output) whose first dimension is the batch scaled."""
        old = self.batch
        inputs = []
        for i in self.inputs:
            if i.role == "labels":
                continue
            i = copy.copy(i)
            if i.shape and i.shape[0] == old:
                i.shape = [batch] + i.shape[1:]
            inputs.append(i)
        return ModelSpec(self.name, self.model, inputs, self.loss, self.dtype,
                         self.meta)

    def describe(self):
        if self.inputs[0].role == "positional":
            return "input " + "x".join(map(str, self.inputs[0].shape))
        return "inputs " + ", ".join(str(i) for i in self.inputs
                                     if i.role != "labels")

    def forward(self, tensors, data):
        """The model's output on `data` (tensors of self.inputs, in order)
        with `tensors` (parameter and buffer values by name)."""
        args, kwargs = [], {}
        for spec, value in zip(self.inputs, data):
            if spec.role == "positional":
                args.append(value)
            elif spec.role == "forward":
                kwargs[spec.name] = value
        return stateless.functional_call(self.model, tensors, tuple(args),
                                         kwargs)

    def loss_of(self, out, data):
        """The 0-d loss of the output `out` on `data`."""
        labels = [v for s, v in zip(self.inputs, data) if s.role == "labels"]
        given = [v for s, v in zip(self.inputs, data) if s.role != "labels"]
        return self.loss(out, given, labels[0] if labels else None)

    @staticmethod
    def create(args):
        """The spec of the options of add_arguments (and --dtype)."""
        return _create(args)


def _float_dtype(args):
    return DTYPES[getattr(args, "dtype", None) or "f32"]


def _converted(model, dtype):
    """The model with its float parameters and buffers in `dtype` (f64,
    bf16; as constructed, float32, otherwise)."""
    return model if dtype == torch.float32 else model.to(dtype)


def _create(args):
    dtype = _float_dtype(args)
    if getattr(args, "model", None):
        return _torchvision(args, dtype)
    meta = bool(getattr(args, "meta", False))
    with OnMeta() if meta else contextlib.nullcontext():
        path, model, factory = _user_module(args)
        model = _converted(model, dtype)
    name = getattr(args, "name", None) or factory.lower()
    if getattr(args, "input_shape", None):
        x = InputSpec("input", args.input_shape, dtype, role="positional")
        return ModelSpec(name, model, [x], _loss(args, path, "classes"),
                         dtype, meta)
    if getattr(args, "example_inputs", None):
        inputs = _example_inputs(args.example_inputs, path, model, dtype)
    else:
        inputs = _command_line_inputs(args.inputs, model, dtype)
    loss = _loss(args, path, "output")
    _check_forward_inputs(model, inputs, loss)
    return ModelSpec(name, model, inputs, loss, dtype, meta)


def _torchvision(args, dtype):
    import torchvision
    ctor = getattr(torchvision.models, args.model, None)
    if ctor is None or not callable(ctor) or args.model.startswith("_"):
        raise ImportError_("unknown torchvision model '%s'" % args.model)
    kwargs = {}
    if args.num_classes:
        kwargs["num_classes"] = args.num_classes
    if args.model.startswith("vit_"):
        kwargs["image_size"] = args.resolution
    torch.manual_seed(0)
    model = _converted(ctor(**kwargs), dtype)
    shape = [args.batch, 3, args.resolution, args.resolution]
    name = args.name or "%s_b%d_r%d" % (args.model, args.batch,
                                        args.resolution)
    x = InputSpec("input", shape, dtype, role="positional")
    return ModelSpec(name, model, [x], _loss(args, None, "classes"), dtype)


_MODULES = {}


def load_function(ref, default_path=None, what="function"):
    """(path, object) of ref 'FILE.py:NAME' (or 'NAME' in default_path).
    Each file is executed once (a class and its loss function come from
    one module); its folder is searched for the modules it imports."""
    path, _, name = ref.rpartition(":")
    path = path or default_path
    if not path or not name:
        raise ImportError_("expected FILE.py:NAME for the %s, got '%s'"
                           % (what, ref))
    if not os.path.exists(path):
        raise ImportError_("no such file '%s'" % path)
    key = os.path.abspath(path)
    if key not in _MODULES:
        folder = os.path.dirname(key)
        if folder not in sys.path:
            sys.path.append(folder)
        modspec = importlib.util.spec_from_file_location(
            "user_" + os.path.splitext(os.path.basename(path))[0], path)
        mod = importlib.util.module_from_spec(modspec)
        modspec.loader.exec_module(mod)
        _MODULES[key] = mod
    obj = getattr(_MODULES[key], name, None)
    if obj is None or not callable(obj):
        raise ImportError_("'%s' defines no %s '%s'" % (path, what, name))
    return path, obj


def _user_module(args):
    """(file, module, its class or factory's name) of --module with
    --module-args."""
    if ":" not in args.module:
        raise ImportError_("--module wants FILE.py:ClassName, got '%s'"
                           % args.module)
    path, ctor = load_function(args.module, what="module class or function")
    margs = getattr(args, "module_args", None)
    torch.manual_seed(0)
    try:
        if isinstance(margs, dict):
            model = ctor(**margs)
        else:
            model = ctor(*(margs or []))
    except TypeError as err:
        raise ImportError_("constructing %s: %s" % (args.module, err))
    if not isinstance(model, torch.nn.Module):
        raise ImportError_("%s returned %s, not an nn.Module"
                           % (args.module, type(model).__name__))
    return path, model, args.module.rpartition(":")[2]


def _forward_parameters(model):
    """(every parameter name of model.forward, the required ones)."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD,
             inspect.Parameter.KEYWORD_ONLY)
    params = [q for q in inspect.signature(model.forward).parameters.values()
              if q.kind in kinds]
    return ([q.name for q in params],
            [q.name for q in params if q.default is inspect.Parameter.empty])


def _command_line_inputs(items, model, dtype):
    """InputSpecs of the --input options; a NAME left out is forward's
    parameter at that position, a float DTYPE left out is --dtype's. An
    integer input without a bound gets the bound of what reads it when the
    step is traced (input_bounds.py)."""
    names, _ = _forward_parameters(model)
    inputs = []
    for k, (name, shape, dt, high) in enumerate(items):
        if name is None:
            if k >= len(names):
                raise ImportError_("--input %d has no NAME and forward "
                                   "takes %d input(s) (%s)" % (
                                       k + 1, len(names), ", ".join(names)))
            name = names[k]
        t = DTYPES[dt] if dt else dtype
        role = "forward" if name in names else "loss"
        inputs.append(InputSpec(name, shape, t, role, high))
    return inputs


def _example_inputs(ref, path, model, dtype):
    """InputSpecs of the tensors --example-inputs' function returns (a
    tensor, a tuple in forward's order or a dict by name): float32 ones
    take --dtype's type, integer ones are bounded by their maximum + 1."""
    _, fn = load_function(ref, path, "example-inputs function")
    value = fn()
    names, _ = _forward_parameters(model)
    if isinstance(value, torch.Tensor):
        value = (value,)
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, (tuple, list)) and len(value) <= len(names):
        items = list(zip(names, value))
    else:
        raise ImportError_("%s returned %s: expected a tensor, a tuple of "
                           "at most %d tensors (forward's %s) or a dict" % (
                               ref, type(value).__name__, len(names),
                               ", ".join(names)))
    inputs = []
    for name, t in items:
        if not isinstance(t, torch.Tensor):
            raise ImportError_("%s: input '%s' is %s, not a tensor"
                               % (ref, name, type(t).__name__))
        high = None
        if not t.is_floating_point() and t.dtype != torch.bool:
            high = max(int(t.max()) + 1, 1) if t.numel() else None
        dt = dtype if t.dtype == torch.float32 else t.dtype
        role = "forward" if name in names else "loss"
        inputs.append(InputSpec(name, t.shape, dt, role, high))
    return inputs


def _check_forward_inputs(model, inputs, loss):
    """Every required parameter of forward has an input, inputs that are
    no parameter of forward go to a loss function, names are unique."""
    names, required = _forward_parameters(model)
    given = [i.name for i in inputs]
    for n in given:
        if given.count(n) > 1:
            raise ImportError_("input '%s' is given twice" % n)
    missing = [n for n in required if n not in given]
    if missing:
        raise ImportError_("forward(%s) needs %s: give --input %s=DIMS[:DTYPE]"
                           % (", ".join(names), ", ".join(missing),
                              missing[0]))
    extra = [i.name for i in inputs if i.role == "loss"]
    if extra and loss.kind != "fn":
        raise ImportError_("'%s' is no parameter of forward(%s); only a "
                           "loss function (--loss FILE.py:FN) takes other "
                           "inputs" % (extra[0], ", ".join(names)))


def _loss(args, path, default):
    ref = getattr(args, "loss", None) or default
    if ref in Loss.NAMED or ref == default:
        return Loss(ref)
    _, fn = load_function(ref, path, "loss function")
    return Loss("fn", fn, ref)


def prediction(out):
    """What a named loss compares: the output, or the first element of a
    tuple or list (the logits of (logits, loss))."""
    if isinstance(out, (tuple, list)) and out:
        out = out[0]
    if not isinstance(out, torch.Tensor):
        raise ImportError_("forward returns %s: a named loss wants a tensor "
                           "(or a tuple whose first element is one)"
                           % describe(out))
    return out


def describe(value):
    """'tensor 2x64x512', 'tuple(tensor 2x64x512, None)', ..."""
    if isinstance(value, torch.Tensor):
        return "tensor %s" % ("x".join(map(str, value.shape)) or "0-d")
    if isinstance(value, (tuple, list)):
        return "%s(%s)" % (type(value).__name__,
                           ", ".join(describe(v) for v in value))
    if isinstance(value, dict):
        return "dict(%s)" % ", ".join("%s: %s" % (k, describe(v))
                                      for k, v in value.items())
    return type(value).__name__ if value is not None else "None"


def output_loss(out):
    """The loss a forward returns: a 0-d tensor, the one 0-d tensor of a
    tuple or list ((logits, loss)), or a dict's (or ModelOutput's) 'loss'."""
    if isinstance(out, dict) and isinstance(out.get("loss"), torch.Tensor):
        out = out["loss"]
    elif isinstance(out, (tuple, list)):
        scalars = [v for v in out
                   if isinstance(v, torch.Tensor) and v.dim() == 0]
        if len(scalars) == 1:
            out = scalars[0]
    if isinstance(out, torch.Tensor) and out.dim() == 0:
        return out
    raise ImportError_("forward returns %s, no 0-d loss: give the inputs "
                       "it computes its loss from (e.g. targets), or "
                       "--loss ce|mse|FILE.py:FN" % describe(out))


class Loss:
    """What the step differentiates. kind: 'classes' (cross-entropy over
    dimension 1 with one class label per sample: the default of --model
    and --input-shape), 'output' (forward's own loss), 'ce' (cross-entropy
    over the last dimension, labels of the other dimensions' shape), 'mse'
    (labels of the output's shape) or 'fn' (fn(output, *inputs))."""

    NAMED = ("output", "ce", "mse")

    def __init__(self, kind, fn=None, ref=None):
        self.kind = kind
        self.fn = fn
        self.ref = ref

    def labels(self, spec):
        """The label InputSpecs the loss adds to the step's inputs."""
        if self.kind == "classes":
            return [InputSpec("labels", [spec.batch], torch.int64, "labels")]
        if self.kind not in ("ce", "mse"):
            return []
        out = prediction(fake_output(spec))
        if self.kind == "ce":
            return [InputSpec("labels", out.shape[:-1], torch.int64,
                              "labels", out.shape[-1])]
        return [InputSpec("labels", out.shape, out.dtype, "labels")]

    def __call__(self, out, inputs, labels):
        if self.kind == "classes":
            loss = F.cross_entropy(prediction(out), labels)
        elif self.kind == "ce":
            p = prediction(out)
            if p.dim() != 2:
                p, labels = p.reshape(-1, p.shape[-1]), labels.reshape(-1)
            loss = F.cross_entropy(p, labels)
        elif self.kind == "mse":
            loss = F.mse_loss(prediction(out), labels)
        elif self.kind == "fn":
            loss = self.fn(out, *inputs)
        else:
            return output_loss(out)
        if not (isinstance(loss, torch.Tensor) and loss.dim() == 0):
            raise ImportError_("the loss %s returned %s, not a 0-d tensor"
                               % (self.ref or self.kind, describe(loss)))
        return loss


def fake_output(spec):
    """The model's output on fake inputs of spec.inputs (shapes only)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch_trace import all_named_tensors, fake_tensor
    mode = FakeTensorMode()
    tensors = {n: fake_tensor(mode, t)
               for n, t in all_named_tensors(spec.model)}
    data = [mode.from_tensor(i.example()) for i in spec.inputs]
    try:
        with mode:
            return spec.forward(tensors, data)
    except ImportError_:
        raise
    except Exception as err:  # the model's own error, e.g. a shape
        raise ImportError_("running %s with %s failed: %s: %s" % (
            spec.name, spec.describe(), type(err).__name__, err))
