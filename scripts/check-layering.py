#!/usr/bin/env python3
"""Fails when the source files of a library depend on each other in a circle.

Usage: check-layering.py [--nm NM] OBJECT...

File A depends on file B when A's object file uses a symbol that B's object
file defines (strongly: functions and data, not the inline functions and
templates every includer gets). Those are the calls between files; a circle
among them (Checkmate -> portfolio -> registry -> Checkmate, say) means no file
of it can be understood, tested or replaced without the others. Prints each
circle with the symbol behind every edge and exits 1; exits 0 when there is
none. CMake runs it on lib/Solver's objects (unittests/Solver/CMakeLists.txt).
"""

import argparse
import os
import subprocess
import sys
from collections import defaultdict


def symbols(nm, obj):
    """The symbols `obj` defines strongly, and those it uses from elsewhere."""
    out = subprocess.run([nm, "-P", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[1] in "TDBR":
            defined.add(fields[0])
        elif len(fields) >= 2 and fields[1] == "U":
            used.add(fields[0])
    return defined, used


def demangle(name):
    return subprocess.run(["c++filt", name], capture_output=True,
                          text=True).stdout.strip() or name


def dependencies(nm, objects):
    """The files each file uses, and one symbol per edge."""
    owner, uses = {}, {}
    for obj in objects:
        defined, uses[obj] = symbols(nm, obj)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nm", default="nm")
    parser.add_argument("objects", nargs="+")
    args = parser.parse_args()
    edges, why = dependencies(args.nm, args.objects)
    name = lambda obj: os.path.basename(obj).removesuffix(".o")
    bad = circles(args.objects, edges)
    for component in bad:
        print("circle: " + " ".join(name(o) for o in component))
        for a in component:
            for b in sorted(edges[a] & set(component)):
                print(f"  {name(a)} -> {name(b)}: {demangle(why[(a, b)])}")
    print(f"{len(args.objects)} files, "
          f"{sum(len(e) for e in edges.values())} dependencies, "
          f"{len(bad)} circles")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
