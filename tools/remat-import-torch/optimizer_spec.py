"""The optimizer of the imported step (`--optimizer`): its options, its
state and PyTorch's own step for comparison.

The importer and check-numerics read the same options:

  --optimizer sgd|momentum|adamw   the update after the gradients
  --lr LR                          required for sgd and momentum, 1e-3 for
                                   adamw (torch.optim's defaults)
  --momentum M, --dampening D, --nesterov
                                   momentum only (M 0.9 unless given)
  --betas B1,B2, --eps E           adamw only (0.9,0.999 and 1e-8)
  --weight-decay WD                sgd and momentum: L2, added to the
                                   gradient (0); adamw: decoupled (1e-2)
  --sgd-lr LR                      --optimizer sgd --lr LR (the old form)

`Optimizer` says what the step holds and does: the state of every
trainable parameter (`slots`: SGD with momentum one `momentum_buffer`,
AdamW `exp_avg` and `exp_avg_sq`), AdamW's step count (one int64 for all
parameters), the FLOPs of the update per parameter element (the graph's
cost), and `torch_step`, torch.optim's own step (check-numerics). The
update's IR is lowerings/optimizer.py; the graph's nodes are
graph_export.add_optimizer. docs/Importer.md, "Optimizers", has the rules.
"""

import argparse
import math

import torch

KINDS = ("sgd", "momentum", "adamw")


def _finite(text, what, low=0.0, high=math.inf, high_open=False):
    """argparse type: a float in [low, high] ([low, high) if high_open)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    inside = low <= value < high if high_open else low <= value <= high
    if not inside or math.isinf(value):
        raise argparse.ArgumentTypeError(
            "expected %s, got '%s'" % (what, text))
    return value


def parse_lr(text):
    """A learning rate as torch.optim accepts it: finite, >= 0."""
    return _finite(text, "a finite learning rate >= 0")


def parse_nonnegative(text):
    return _finite(text, "a finite number >= 0")


def parse_betas(text):
    """--betas B1,B2, each in [0, 1) as torch.optim.AdamW wants."""
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise argparse.ArgumentTypeError()
        return tuple(_finite(b, "", 0.0, 1.0, True) for b in parts)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            "expected B1,B2, each in [0, 1) (e.g. 0.9,0.999), got '%s'"
            % text)


def add_arguments(p):
    """The optimizer options (remat-import-torch and check-numerics)."""
    g = p.add_argument_group("optimizer (docs/Importer.md, \"Optimizers\")")
    g.add_argument("--optimizer", choices=KINDS,
                   help="results are the parameters after one step of this "
                   "optimizer (and its new state) instead of the gradients")
    g.add_argument("--lr", type=parse_lr,
                   help="learning rate (required for sgd and momentum; "
                   "adamw: 1e-3)")
    g.add_argument("--momentum", type=parse_nonnegative,
                   help="momentum: the buffer's factor (default 0.9)")
    g.add_argument("--dampening", type=parse_nonnegative,
                   help="momentum: dampening (default 0)")
    g.add_argument("--nesterov", action="store_true",
                   help="momentum: Nesterov momentum")
    g.add_argument("--betas", type=parse_betas, metavar="B1,B2",
                   help="adamw: the moments' factors (default 0.9,0.999)")
    g.add_argument("--eps", type=parse_nonnegative,
                   help="adamw: added to the denominator (default 1e-8)")
    g.add_argument("--weight-decay", type=parse_nonnegative,
                   help="sgd, momentum: L2 penalty added to the gradient "
                   "(default 0); adamw: decoupled decay (default 1e-2)")
    g.add_argument("--sgd-lr", type=parse_lr, metavar="LR",
                   help="the same as --optimizer sgd --lr LR")


# The options each kind takes, beyond --lr and --weight-decay.
_OWN = {"sgd": (), "momentum": ("momentum", "dampening", "nesterov"),
        "adamw": ("betas", "eps")}


def from_arguments(p, args):
    """The Optimizer of the options, or None without one; p.error on a
    combination torch.optim refuses or an option of another kind."""
    if args.sgd_lr is not None:
        if args.optimizer or args.lr is not None:
            p.error("--sgd-lr is --optimizer sgd --lr LR: give one form")
        args.optimizer, args.lr = "sgd", args.sgd_lr
    given = [o for o in ("lr", "momentum", "dampening", "nesterov", "betas",
                         "eps", "weight_decay") if getattr(args, o)
             not in (None, False)]
    if not args.optimizer:
        if given:
            p.error("--%s needs --optimizer" % given[0].replace("_", "-"))
        return None
    kind = args.optimizer
    other = [o for o in given if o not in ("lr", "weight_decay")
             and o not in _OWN[kind]]
    if other:
        p.error("--%s does not apply to --optimizer %s"
                % (other[0].replace("_", "-"), kind))
    if args.lr is None and kind != "adamw":
        p.error("--optimizer %s needs --lr" % kind)
    opt = Optimizer(kind, lr=args.lr, momentum=args.momentum,
                    dampening=args.dampening, nesterov=args.nesterov,
                    betas=args.betas, eps=args.eps,
                    weight_decay=args.weight_decay)
    if kind == "momentum" and opt.momentum <= 0:
        p.error("--optimizer momentum needs --momentum > 0 (without "
                "momentum: --optimizer sgd)")
    if opt.nesterov and opt.dampening != 0:
        p.error("--nesterov needs zero dampening (as torch.optim.SGD)")
    return opt


class Optimizer:
    """One optimizer with its hyperparameters, torch.optim's defaults for
    those not given."""

    def __init__(self, kind, lr=None, momentum=None, dampening=None,
                 nesterov=False, betas=None, eps=None, weight_decay=None):
        self.kind = kind
        self.lr = lr if lr is not None else 1e-3
        self.momentum = momentum if momentum is not None else 0.9
        self.dampening = dampening or 0.0
        self.nesterov = nesterov
        self.betas = betas or (0.9, 0.999)
        self.eps = eps if eps is not None else 1e-8
        default_wd = 1e-2 if kind == "adamw" else 0.0
        self.weight_decay = weight_decay if weight_decay is not None \
            else default_wd

    @property
    def slots(self):
        """The state tensors of each trainable parameter, each of the
        parameter's shape and type, in torch.optim's state names."""
        return {"sgd": (), "momentum": ("momentum_buffer",),
                "adamw": ("exp_avg", "exp_avg_sq")}[self.kind]

    @property
    def has_step(self):
        """Whether the state holds a step count (AdamW's bias
        correction): one int64 for the whole step."""
        return self.kind == "adamw"

    def state_names(self, param_names):
        """The state in the step's order: 'step' (AdamW), then every slot
        of every parameter, '<parameter>.<slot>', parameter by parameter."""
        names = ["step"] if self.has_step else []
        return names + ["%s.%s" % (p, s) for p in param_names
                        for s in self.slots]

    def flops_per_element(self):
        """Arithmetic operations of the update per parameter element, as
        lowerings/optimizer.py computes it (the scalar bias corrections
        of AdamW are per step, not per element, and not counted)."""
        decay = 2 if self.weight_decay and self.kind != "adamw" else 0
        if self.kind == "sgd":
            return 2 + decay
        if self.kind == "momentum":
            return 5 + decay + (2 if self.nesterov else 0)
        return 14

    def describe(self):
        if self.kind == "sgd":
            text = "SGD (lr %r" % self.lr
        elif self.kind == "momentum":
            text = "SGD with momentum (lr %r, momentum %r, dampening %r%s" % (
                self.lr, self.momentum, self.dampening,
                ", Nesterov" if self.nesterov else "")
        else:
            text = "AdamW (lr %r, betas %r, eps %r" % (
                self.lr, self.betas, self.eps)
        return text + ", weight decay %r)" % self.weight_decay

    def torch_optimizer(self, tensors):
        """torch.optim's optimizer of this kind over `tensors`."""
        if self.kind == "adamw":
            return torch.optim.AdamW(tensors, lr=self.lr, betas=self.betas,
                                     eps=self.eps,
                                     weight_decay=self.weight_decay)
        momentum = self.momentum if self.kind == "momentum" else 0.0
        return torch.optim.SGD(tensors, lr=self.lr, momentum=momentum,
                               dampening=self.dampening,
                               nesterov=self.nesterov,
                               weight_decay=self.weight_decay)

    def torch_step(self, params, grads, state):
        """torch.optim's step: `params` (tensors, updated in place), their
        `grads`, `state` the values of state_names (the step count an int
        tensor); returns the new state in the same order."""
        opt = self.torch_optimizer(params)
        values = iter(state)
        step = next(values) if self.has_step else None
        for p, g in zip(params, grads):
            p.grad = g
            entry = {s: next(values).clone() for s in self.slots}
            if step is not None:
                # torch 1.13 keeps a float32 count per parameter.
                entry["step"] = step.to(torch.float32).clone()
            opt.state[p] = entry
        opt.step()
        out = [step + 1] if step is not None else []
        for p in params:
            out += [opt.state[p][s] for s in self.slots]
        return out
