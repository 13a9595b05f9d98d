#!/usr/bin/env python3
"""Writes the invalid-sequence fixtures that are too large or too repetitive to write by hand.

Run from anywhere: python3 Fixtures/invalid-sequences/generate.py
The output is deterministic; commit the generated files together with this script.

- too-deep.json: cancellation scopes nested so that the innermost step sits at block depth 65
  (root blocks are depth 1; the limit is 64, SEMANTICS §1.6/§1.7).
- too-many-blocks.json: 5001 root steps (the limit is 5000 blocks per document); the problem points
  at the first block over the limit.
- too-many-branches.json: a parallel with 257 empty branches (the limit is 256).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_BLOCK_DEPTH = 64
MAX_BLOCKS = 5000
MAX_BRANCHES = 256


def write(name, document, problems, compact=False):
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        if compact:
            # One block per line keeps the file diffable without pretty-printing 5001 objects.
            head = {k: v for k, v in document.items() if k != "blocks"}
            f.write(json.dumps(head)[:-1] + ', "blocks": [\n')
            f.write(",\n".join(json.dumps(b) for b in document["blocks"]))
            f.write("\n]}\n")
        else:
            f.write(json.dumps(document) + "\n")
    with open(os.path.join(HERE, name + ".expected.json"), "w") as f:
        problems = [{"pointer": p, "code": c} for p, c in problems]
        f.write(json.dumps({"problems": problems}, indent=2) + "\n")


def too_deep():
    depth = MAX_BLOCK_DEPTH + 1
    block = {"type": "step", "id": "level_%d" % depth, "handler": "noop"}
    for level in range(depth - 1, 0, -1):
        block = {"type": "cancellation_scope", "id": "level_%d" % level, "blocks": [block]}
    pointer = "/blocks/0" + "/blocks/0" * (depth - 1)
    write("too-deep", {"name": "too-deep", "version": 1, "blocks": [block]}, [(pointer, "too_deep")])


def too_many_blocks():
    blocks = [{"type": "step", "id": "s%d" % i, "handler": "noop"} for i in range(MAX_BLOCKS + 1)]
    write("too-many-blocks", {"name": "too-many-blocks", "version": 1, "blocks": blocks}, [("/blocks/%d" % MAX_BLOCKS, "too_many_blocks")], compact=True)


def too_many_branches():
    block = {"type": "parallel", "id": "fan_out", "branches": [[] for _ in range(MAX_BRANCHES + 1)]}
    with open(os.path.join(HERE, "too-many-branches.json"), "w") as f:
        f.write('{"name": "too-many-branches", "version": 1, "blocks": [\n')
        f.write('{"type": "parallel", "id": "fan_out", "branches": [' + ", ".join("[]" for _ in block["branches"]) + "]}\n")
        f.write("]}\n")
    with open(os.path.join(HERE, "too-many-branches.expected.json"), "w") as f:
        f.write(json.dumps({"problems": [{"pointer": "/blocks/0/branches", "code": "too_many_branches"}]}, indent=2) + "\n")


if __name__ == "__main__":
    too_deep()
    too_many_blocks()
    too_many_branches()
