#!/usr/bin/env python3
"""Checks that remat's code depends on itself in layers.

Usage: check-layering.py [--nm NM] files OBJECT...
       check-layering.py [--nm NM] libraries NAME=FILE...
       check-layering.py solver-includes SOURCE_DIR

A depends on B when A's object code uses a symbol that B's defines (strongly:
functions and data, not the inline functions and templates every includer
gets). Both checks print each offence with the symbol behind it and exit 1;
they exit 0 when there is none.

`files`: the source files of one library (their object files) never depend
on each other in a circle. A circle (Checkmate -> portfolio -> registry ->
Checkmate, say) means no file of it can be understood, tested or replaced
without the others.

`libraries`: each library (its archive or shared object, named as its CMake
target) uses only the remat libraries LAYERS allows it, and no MLIR (no
LLVM) symbol where LAYERS says so; docs/Extending.md explains the layers.

`solver-includes`: each part of the solver library (a folder of lib/Solver
and of include/remat/Solver, one library each: SOLVER_PARTS) includes the
headers of only the parts its library may use, so that what a header gives
inline follows the layers too.

ctest runs the first two on every library, the third on the sources (unittests/CMakeLists.txt).
"""

import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict, namedtuple

# What each library may use: the remat libraries it stands on (and so all
# they stand on), and whether it may use MLIR and LLVM at all. Bottom up;
# docs/Extending.md ("Layers") says why. A library not listed is an error.
Layer = namedtuple("Layer", "uses mlir llvm")
LAYERS = {
    # Plain C++: a graph in, a schedule out (lib/Solver, one folder each).
    "RematSolverCore": Layer([], mlir=False, llvm=False),
    "RematSolverCheckmate": Layer(["RematSolverCore"], mlir=False,
                                  llvm=False),
    "RematSolverArena": Layer(["RematSolverCore"], mlir=False, llvm=False),
    "RematSolverAlgorithms": Layer(["RematSolverCheckmate"], mlir=False,
                                   llvm=False),
    "RematSolver": Layer(["RematSolverAlgorithms", "RematSolverArena"],
                         mlir=False, llvm=False),
    # Tests', benchmarks' and fuzzers' problems; not installed.
    "RematSolverTesting": Layer(["RematSolver"], mlir=False, llvm=False),
    # JSON readers' shared pieces, on LLVM Support.
    "RematSupport": Layer([], mlir=False, llvm=True),
    "RematSolverIO": Layer(["RematSolver", "RematSupport"], mlir=False,
                           llvm=True),
    # Linked into the generated code and loaded by any host process.
    "remat_alloc_tracker": Layer([], mlir=False, llvm=False),
    "remat_cuda_runtime": Layer([], mlir=False, llvm=False),
    # How the tools print diagnostics.
    "RematToolSupport": Layer([], mlir=True, llvm=True),
    # The compiler: dialect, cost model and analyses, passes, pipelines.
    "RematDialect": Layer([], mlir=True, llvm=True),
    "RematAnalysis": Layer(["RematDialect", "RematSupport"], mlir=True,
                           llvm=True),
    "RematTransforms": Layer(["RematAnalysis", "RematSolverIO"], mlir=True,
                             llvm=True),
    # Lowering passes over upstream dialects, and of the host copies
    # remat.offload bufferizes to (their memory space, bytes and offsets in
    # one host arena, from the arena planner): nothing of plans or costs.
    "RematConversion": Layer(["RematAnalysis", "RematSolverArena"],
                             mlir=True, llvm=True),
    "RematPipelines": Layer(["RematTransforms", "RematConversion"],
                            mlir=True, llvm=True),
    # The runners, beside the compiler; only their main builds pipelines.
    "RematRunnerSupport": Layer(["RematAnalysis", "RematToolSupport"],
                                mlir=True, llvm=True),
    "RematRunnerRanks": Layer(["RematRunnerSupport"], mlir=True, llvm=True),
    "RematRunnerMain": Layer(["RematPipelines", "RematRunnerRanks"],
                             mlir=True, llvm=True),
    # Test-only passes (test/lib).
    "RematTestPasses": Layer(["RematAnalysis"], mlir=True, llvm=True),
}

# The folders of lib/Solver and include/remat/Solver, and their libraries.
SOLVER_PARTS = {
    "Core": "RematSolverCore",
    "Checkmate": "RematSolverCheckmate",
    "Arena": "RematSolverArena",
    "Algorithms": "RematSolverAlgorithms",
    "Search": "RematSolver",
    "IO": "RematSolverIO",
    "Testing": "RematSolverTesting",
}


def symbols(nm, obj):
    """The symbols `obj` (an object file, an archive or a shared object)
    defines strongly, those it uses from elsewhere, and all it names."""
    out = subprocess.run([nm, "-P", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used, named = set(), set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue  # an archive member's header
        named.add(fields[0])
        if fields[1] in "TDBR":
            defined.add(fields[0])
        elif fields[1] == "U":
            used.add(fields[0])
    return defined, used, named


def demangle_all(names):
    """`names` demangled, in their order (one c++filt for all)."""
    out = subprocess.run(["c++filt"], input="\n".join(names),
                         capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def demangle(name):
    return demangle_all([name])[0]


def dependencies(nm, objects):
    """The files each file uses, and one symbol per edge."""
    owner, uses = {}, {}
    for obj in objects:
        defined, uses[obj], _ = symbols(nm, obj)
        for name in defined:
            owner.setdefault(name, obj)
    edges, why = defaultdict(set), {}
    for obj in objects:
        for name in uses[obj]:
            other = owner.get(name)
            if other and other != obj:
                edges[obj].add(other)
                why.setdefault((obj, other), name)
    return edges, why


def check_files(nm, objects):
    """Prints the circles among `objects`; returns how many there are."""
    edges, why = dependencies(nm, objects)
    name = lambda obj: os.path.basename(obj).removesuffix(".o")
    bad = circles(objects, edges)
    for component in bad:
        print("circle: " + " ".join(name(o) for o in component))
        for a in component:
            for b in sorted(edges[a] & set(component)):
                print(f"  {name(a)} -> {name(b)}: {demangle(why[(a, b)])}")
    print(f"{len(objects)} files, "
          f"{sum(len(e) for e in edges.values())} dependencies, "
          f"{len(bad)} circles")
    return len(bad)


def circles(nodes, edges):
    """The strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found



def allowed_uses(name):
    """The libraries `name` may use: those LAYERS lists, and theirs."""
    allowed, todo = set(), list(LAYERS[name].uses)
    while todo:
        lib = todo.pop()
        if lib not in allowed:
            allowed.add(lib)
            todo.extend(LAYERS[lib].uses)
    return allowed


def foreign_symbol(layer, names):
    """The first of `names` (demangled) from MLIR or LLVM where `layer`
    forbids them, as ("MLIR" or "LLVM", name), or None."""
    for name in demangle_all(sorted(names)):
        for project, allowed in (("MLIR", layer.mlir), ("LLVM", layer.llvm)):
            if not allowed and project.lower() + "::" in name:
                return project, name
    return None


def check_libraries(nm, files):
    """Prints each use of a library LAYERS does not allow; returns how many
    there are. `files` maps each library's CMake target name to its file."""
    defined, used, named, owners = {}, {}, {}, defaultdict(set)
    for lib, path in files.items():
        defined[lib], used[lib], named[lib] = symbols(nm, path)
        for name in defined[lib]:
            owners[name].add(lib)
    bad = 0
    for lib in sorted(files):
        allowed = allowed_uses(lib) | {lib}
        why = {}
        for name in sorted(used[lib]):
            for other in sorted(owners[name] - allowed):
                why.setdefault(other, name)
        for other, name in sorted(why.items()):
            print(f"{lib} uses {other}, which LAYERS does not allow it: "
                  f"{demangle(name)}")
        bad += len(why)
        if foreign := foreign_symbol(LAYERS[lib], named[lib]):
            print(f"{lib} uses {foreign[0]}, which LAYERS does not allow it: "
                  f"{foreign[1]}")
            bad += 1
    print(f"{len(files)} libraries, {bad} uses against the layers")
    return bad


def solver_part_files(root, part):
    """The headers and sources of one part of the solver library."""
    for top in (("include", "remat", "Solver", part), ("lib", "Solver", part)):
        folder = os.path.join(root, *top)
        for dirpath, _, names in os.walk(folder):
            for name in sorted(names):
                if name.endswith((".h", ".cpp")):
                    yield os.path.join(dirpath, name)


def check_solver_includes(root):
    """Prints each include of a solver part's header that the including
    part's library may not use; returns how many there are."""
    include = re.compile(r'#include "remat/Solver/(\w+)/')
    bad = files = 0
    for part, lib in SOLVER_PARTS.items():
        allowed = allowed_uses(lib) | {lib}
        for path in solver_part_files(root, part):
            files += 1
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = include.match(line)
                    if not m or m.group(1) == part:
                        continue
                    other = SOLVER_PARTS.get(m.group(1))
                    if other not in allowed:
                        rel = os.path.relpath(path, root)
                        print(f"{rel}:{number}: {part} includes "
                              f"{m.group(1)}, which {lib} may not use")
                        bad += 1
    print(f"{files} files of the solver library, {bad} includes against "
          "the layers")
    return bad


def parse_libraries(parser, inputs):
    """`NAME=FILE` arguments as a dict; a parser error for a malformed one
    or a library LAYERS does not list."""
    files = {}
    for arg in inputs:
        lib, sep, path = arg.partition("=")
        if not sep or not path:
            parser.error(f"expected NAME=FILE, got '{arg}'")
        if lib not in LAYERS:
            parser.error(f"library '{lib}' has no layer: add it to LAYERS "
                         "in this script and say why in docs/Extending.md")
        files[lib] = path
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nm", default="nm")
    parser.add_argument("check",
                        choices=["files", "libraries", "solver-includes"])
    parser.add_argument("inputs", nargs="+",
                        metavar="OBJECT | NAME=FILE | SOURCE_DIR")
    args = parser.parse_args()
    if args.check == "solver-includes":
        return 1 if check_solver_includes(args.inputs[0]) else 0
    if args.check == "files":
        return 1 if check_files(args.nm, args.inputs) else 0
    files = parse_libraries(parser, args.inputs)
    return 1 if check_libraries(args.nm, files) else 0


if __name__ == "__main__":
    sys.exit(main())
