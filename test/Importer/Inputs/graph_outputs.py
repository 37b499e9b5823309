"""Prints the outputs of a remat-solve JSON graph: their count, then one
line per output, 'name kind path', in order."""
import json
import sys

with open(sys.argv[1]) as f:
    graph = json.load(f)
print("%d outputs" % len(graph["outputs"]))
for i in graph["outputs"]:
    node = graph["nodes"][i]
    print(node["name"], node["kind"], node.get("path", ""))
