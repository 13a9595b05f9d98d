#!/usr/bin/env python3
"""Writes the seed corpus of one fuzz target from the repository's fixtures.

Usage: seeds.py TARGET OUTPUT_DIR

Seeds are small real inputs the fuzzer starts from: sequence documents (valid, invalid,
conformance cases), every condition and template they contain, the conformance expression
cases, signed manifests and signatures, and the small hostile inputs of Fixtures/hostile.
Each seed is a file named by the SHA-1 of its bytes, so rerunning only adds what is new.
Standard library only.
"""

import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Fixtures")
# Larger seeds slow every execution and make libFuzzer raise -max_len; the fuzzer grows inputs
# itself, and big documents are covered by the hostile tests.
MAX_SEED_BYTES = 16 * 1024

CONDITION_FIELDS = ("condition", "when", "break_on", "retry_if")


def files(folder, suffix):
    base = os.path.join(FIXTURES, folder)
    for directory, _, names in sorted(os.walk(base)):
        for name in sorted(names):
            path = os.path.join(directory, name)
            if name.endswith(suffix) and not is_known_bug(path):
                yield path


def read(path):
    with open(path, "rb") as f:
        return f.read()


def is_known_bug(path):
    """Whether a hostile input reproduces a reported, unfixed bug (its sidecar has known_bug):
    such inputs would stop every run at once, so they are not seeds until the bug is fixed."""
    if "/hostile/" not in path:
        return False
    stem = os.path.join(os.path.dirname(path), os.path.basename(path).split(".")[0])
    sidecar = load_json(stem + ".expected.json")
    return isinstance(sidecar, dict) and "known_bug" in sidecar


def load_json(path):
    try:
        return json.loads(read(path).decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None


def compact(value):
    # A case may hold a malformed sequence on purpose (a lone surrogate escape): its bytes then
    # carry the surrogate as written (not valid UTF-8, still a useful seed).
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def sequence_documents():
    """Every sequence document in the fixtures, as bytes."""
    for path in files("sequences", ".json"):
        yield read(path)
    for path in files("invalid-sequences", ".json"):
        if not path.endswith(".expected.json"):
            yield read(path)
    for path in files("conformance/sequences", ".json"):
        suite = load_json(path)
        for case in (suite or {}).get("cases", []):
            for document in [case.get("sequence")] + list(case.get("sequences") or []):
                if isinstance(document, str):
                    yield document.encode("utf-8")
                elif document is not None:
                    yield compact(document)
    for path in files("hostile/sequence", ".json"):
        if not path.endswith(".expected.json"):
            yield read(path)


def walk(value):
    """Every (key, value) pair at any depth of a JSON value."""
    stack = [(None, value)]
    while stack:
        key, v = stack.pop()
        yield key, v
        if isinstance(v, dict):
            stack.extend(v.items())
        elif isinstance(v, list):
            stack.extend((None, e) for e in v)


def parsed_sequences():
    for document in sequence_documents():
        try:
            yield json.loads(document.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue


def expression_seeds():
    for path in files("conformance/expressions", ".json"):
        suite = load_json(path)
        for case in (suite or {}).get("cases", []):
            if isinstance(case.get("expr"), str):
                yield case["expr"].encode("utf-8")
    for document in parsed_sequences():
        for key, value in walk(document):
            if key in CONDITION_FIELDS and isinstance(value, str):
                yield value.encode("utf-8")
    for path in files("hostile/expression", ".txt"):
        yield read(path)


def template_seeds():
    for document in parsed_sequences():
        for key, value in walk(document):
            if isinstance(value, str) and "{{" in value:
                yield value.encode("utf-8")
            if key in ("params", "input") and value is not None:
                yield compact(value)
    for path in files("conformance/expressions", "templates-unwrap.json"):
        suite = load_json(path)
        for case in (suite or {}).get("cases", []):
            if isinstance(case.get("expr"), str):
                yield case["expr"].encode("utf-8")
    for path in files("hostile/template", ".txt"):
        yield read(path)


def manifest_seeds():
    for folder in ("signing", "manifests", "hostile/manifest"):
        for path in files(folder, ".json"):
            name = os.path.basename(path)
            if name == "manifest.json" or folder == "hostile/manifest" and not name.endswith(".expected.json"):
                data = read(path)
                yield data
                newline = data.find(b"\n")
                if newline >= 0:
                    yield data[newline + 1 :]
        for path in files(folder, ".sig"):
            yield read(path)


def json_seeds():
    yield from sequence_documents()
    yield from manifest_seeds()
    for path in files("hostile/json", ".json"):
        if not path.endswith(".expected.json"):
            yield read(path)
    for path in files("conformance/expressions", ".json"):
        suite = load_json(path)
        for case in (suite or {}).get("cases", []):
            if "data" in case:
                yield compact(case["data"])


SYNC_COMMANDS = [
    {"id": "c1", "type": "complete_step", "payload": {"instance_id": "I", "step_name": "show_terms",
                                                      "block_id": "show_terms", "output": {"value": "accepted"}}},
    {"id": "c2", "type": "cancel_instance", "payload": {"instance_id": "I"}},
    {"id": "c3", "type": "start_workflow", "payload": {"sequence_name": "onboarding-flow", "input": {"user_id": "abc"},
                                                       "dedup_key": "onboarding:abc"}},
    {"id": "c4", "type": "update_sequence", "payload": {"instance_id": "I", "policy": "skip_executed",
                                                        "sequence_name": "onboarding-flow"}},
    {"id": "c5", "type": "send_signal", "payload": {"instance_id": "I", "signal_type": "update_context",
                                                    "payload": {"data": {"tier": "pro"}}}},
    {"id": "c6", "type": "step_result", "payload": {"request_id": "R", "instance_id": "I", "block_id": "call_api",
                                                    "handler": "call_api", "success": True,
                                                    "resolved_params": {"key": "sk-1"}}},
    {"id": "c7", "type": "complete_step", "instance_id": "I", "step_name": "show_terms",
     "output": "{\"value\":\"accepted\"}"},
    {"id": "c8", "type": "start_workflow", "sequence_name": "s", "input": "[1,2"},
    {"type": "cancel_instance", "payload": {"instance_id": "I"}},
]


def sync_response_seeds():
    """SYNC.md §2.4–2.5 responses: the payload and flat forms, and edge values."""
    yield compact({"commands": SYNC_COMMANDS, "sync_interval_secs": 30})
    for command in SYNC_COMMANDS:
        yield compact({"commands": [command]})
    yield compact({"sync_interval_secs": -5})
    yield compact({"commands": None, "sync_interval_secs": 1e300})
    yield b"{}"
    for path in files("hostile/sync-response", ".json"):
        if not path.endswith(".expected.json"):
            yield read(path)


TARGETS = {
    "json": json_seeds,
    "sequence": sequence_documents,
    "expression": expression_seeds,
    "template": template_seeds,
    "manifest": manifest_seeds,
    "sync-response": sync_response_seeds,
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in TARGETS:
        sys.exit("usage: seeds.py {%s} OUTPUT_DIR" % "|".join(TARGETS))
    target, output = sys.argv[1], sys.argv[2]
    os.makedirs(output, exist_ok=True)
    written = 0
    for seed in TARGETS[target]():
        if len(seed) > MAX_SEED_BYTES:
            continue
        path = os.path.join(output, hashlib.sha1(seed).hexdigest())
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(seed)
            written += 1
    print("%s: %d new seeds in %s" % (target, written, output))


if __name__ == "__main__":
    main()
