"""The loss: nll_loss_forward (its backward's one-hot scatter is
indexing.scatter)."""

from mlir_emitter import affine_map

from .registry import Unsupported, lowering

REDUCTIONS = {1: "mean", 2: "sum"}


def class_hit(b, label):
    """Payload: whether this iteration's class (linalg.index 1) is `label`."""
    ci = b.cast("arith.index_cast", b.index(1, "c"), "index", "i64", "ci")
    return b.op("arith.cmpi", ["eq", ci, label], "i64", "hit")


def nll_payload(elt, ignore_index):
    """Payload of the loop (row, class): on the label's class of a row
    whose label is not ignore_index, acc - x and count + 1."""
    def body(b, a):
        hit = class_hit(b, a[1])
        ign = b.const(str(int(ignore_index)), "i64", "ign")
        valid = b.op("arith.cmpi", ["ne", a[1], ign], "i64", "valid")
        hit = b.op("arith.andi", [hit, valid], "i1", "use")
        loss = b.op("arith.subf", [a[2], a[0]], elt, "l")
        one = b.op("arith.addf", [a[3], b.const("1.0", elt, "one")], elt, "n")
        return [b.op("arith.select", [hit, loss, a[2]], elt, "lo"),
                b.op("arith.select", [hit, one, a[3]], elt, "cnt")]
    return body


@lowering("aten.nll_loss_forward")
def nll_loss(cx, n):
    """(loss, total weight): -x[row, label[row]] summed over the rows whose
    label is not ignore_index (divided by their number for `mean`); the
    total weight is that number. One linalg.generic over (row, class)
    computes both."""
    e = cx.e
    x, t = cx.val(n.args[0]), cx.val(n.args[1])
    weight, reduction, ignore_index = n.args[2:5]
    if weight is not None or reduction not in REDUCTIONS or x.rank not in (1, 2):
        raise Unsupported("aten.nll_loss_forward (class weights, reduction none, "
                          "or input not 1-D or 2-D)")
    if x.rank == 1:
        x, t = e.reshape(x, [1] + x.shape), e.reshape(t, [1])
    elt = x.elt
    loss, total = e.generic([x, t], [affine_map(2, ["d0", "d1"]), affine_map(2, ["d0"])],
                            [e.filled([], elt, 0.0), e.filled([], elt, 0.0)],
                            [affine_map(2, []), affine_map(2, [])],
                            ["reduction", "reduction"], nll_payload(elt, ignore_index),
                            hint="nll")
    if REDUCTIONS[reduction] == "mean":
        loss = e.elementwise([loss, total], [], elt, lambda b, s: b.op("arith.divf", s, elt))
    return (loss, total)
