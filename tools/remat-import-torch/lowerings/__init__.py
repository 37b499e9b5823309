"""The importer's lowerings, one module per op family, all registering into
the one table `registry.TABLE` (see registry.py for how to add an op).

Importing the package imports every module in it, so a new family is a new
file here and nothing else.
"""

import importlib
import pkgutil

from .registry import TABLE, Context, Unsupported, lower, lowering

__all__ = ["TABLE", "Context", "Unsupported", "lower", "lowering"]

for _module in pkgutil.iter_modules(__path__):
    if _module.name != "registry":
        importlib.import_module("%s.%s" % (__name__, _module.name))
