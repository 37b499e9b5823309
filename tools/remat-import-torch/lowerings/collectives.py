"""Collectives of a data-parallel step (shard_export.py)."""

from mlir_emitter import Value

from .registry import lowering


@lowering("remat.all_reduce_sum")
def all_reduce_sum(cx, n):
    """Synchronized batch norm (shard_export.py): the sum over the
    data-parallel grid @dp the per-rank step is written for."""
    v = cx.val(n.args[0])
    name = cx.e.let("ar", "shard.all_reduce %s on @dp grid_axes = [0] : %s -> %s"
                    % (v.name, v.type, v.type))
    return Value(name, v.shape, v.elt)
