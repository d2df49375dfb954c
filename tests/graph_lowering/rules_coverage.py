#!/usr/bin/env python3
"""Writes RULES_COVERAGE.md: for each op of the StableHLO spec, the
Constraints (C1..Cn) that a negative test in tests/graph_lowering checks and
the ones none does, then the ops whose spec Example no test reproduces.

A test counts for (op, rule) when its expected message names the op and
"(Cn)" (the *_rules_test tables and the gather/scatter, window, sort, rng
tables), when it is a generated elementwise case (kTypeRules), or when its
name follows Op_Cn_What. Usage:
  python3 tests/graph_lowering/rules_coverage.py [SPEC.md] > \
      tests/graph_lowering/RULES_COVERAGE.md
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, "../../../shared/reference/stablehlo_spec.md")

# Rules no check can decide, with the reason.
NOT_STATIC = {}


# Spec examples reproduced by tests outside the spec_examples_* tables.
OTHER_EXAMPLES = {
    "rng_bit_generator": "rng_linalg_test RngRun.ThreeFrySpecExample",
    "cholesky": "rng_linalg_test LinalgRun.CholeskySpecExampleAndTriangularSolve",
    "batch_norm_grad": "rng_linalg_test LinalgRun.BatchNormSpecExamples",
    "batch_norm_inference": "rng_linalg_test LinalgRun.BatchNormSpecExamples",
    "batch_norm_training": "rng_linalg_test LinalgRun.BatchNormSpecExamples",
    "uniform_quantize": "rng_linalg_test QuantRun.SpecExamplesAndQuantizedAdd",
    "uniform_dequantize": "rng_linalg_test QuantRun.SpecExamplesAndQuantizedAdd",
}
# Spec examples no test reproduces, with the reason.
NO_EXAMPLE_TEST = {
    "rng": "its printed values are implementation-defined",
    "outfeed": "prints no values (draining: tests/api/host_io_test)",
}


def spec_examples(path):
    ops, cur = set(), None
    for line in open(path, encoding="utf-8"):
        if line.startswith("### "):
            name = line[4:].strip()
            cur = name if re.fullmatch(r"[a-z_0-9]+", name) else None
        elif cur and line.startswith("#### Example"):
            ops.add(cur)
    return ops


def segment(name, ops):
    """The ops whose names joined by "_" give `name` ("async_start_async_done"
    -> [async_start, async_done]), or None."""
    if name in ops:
        return [name]
    for op in ops:
        if name.startswith(op + "_"):
            rest = segment(name[len(op) + 1:], ops)
            if rest:
                return [op] + rest
    return None


def example_tests(ops):
    """op -> the spec_examples cases that run its example."""
    found = {}
    for path in sorted(glob.glob(os.path.join(HERE, "spec_examples_*.cc"))):
        src = open(path, encoding="utf-8").read()
        for m in re.finditer(r'^    \{"([a-z_0-9]+)_\d+",', src, re.M):
            for op in segment(m.group(1), ops) or []:
                found.setdefault(op, []).append(m.group(1))
    return found


def spec_rules(path):
    ops, cur, sec = {}, None, None
    for line in open(path, encoding="utf-8"):
        if line.startswith("### "):
            name = line[4:].strip()
            cur = name if re.fullmatch(r"[a-z_0-9]+", name) else None
            if cur:
                ops[cur] = []
            sec = None
            continue
        if cur is None:
            continue
        if line.startswith("#### "):
            sec = line[5:].strip()
        m = re.match(r"\s*\* \((C\d+)\)", line)
        if sec == "Constraints" and m and m.group(1) not in ops[cur]:
            ops[cur].append(m.group(1))
    return ops


def camel_to_snake(s):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", s).lower()


def tested_rules():
    tested = {}

    def add(op, rule):
        tested.setdefault(op, set()).add(rule)

    alias = {"G": "gather", "S": "scatter", "DG": "dynamic_gather"}
    tok = re.compile(r'"(?:stablehlo|chlo)\.(\w+)"|\b(G|S|DG)\b(?=\s*,)|'
                     r'"\((C\d+)(?:[/-]C?(\d+))?\)')
    name_re = re.compile(r'"([A-Z][A-Za-z]+)_C(\d+)_')
    type_rule = re.compile(r'\{"(\w+)", [12], "[^"]*", "[^"]*", "(C\d)?", '
                           r'"(C\d)?", "(C\d)?"\}')
    for path in sorted(glob.glob(os.path.join(HERE, "*.cc"))):
        src = open(path, encoding="utf-8").read()
        last = None
        conv = set()
        for m in tok.finditer(src):
            if m.group(1):
                last = m.group(1)
            elif m.group(2):
                last = alias[m.group(2)]
            elif last:
                a = int(m.group(3)[1:])
                b = int(m.group(4)) if m.group(4) else a
                for k in range(a, b + 1):
                    add(last, "C%d" % k)
                    if last == "convolution":
                        conv.add("C%d" % k)
        # Files that rerun their convolution cases as dynamic_conv
        # (AsDynamicConv); C4 and C25 depend on the padding and have their
        # own dynamic_conv tests.
        if "AsDynamicConv(" in src:
            for r in conv - {"C4", "C25"}:
                add("dynamic_conv", r)
        for m in name_re.finditer(src):
            add(camel_to_snake(m.group(1)), "C" + m.group(2))
        for m in type_rule.finditer(src):
            for r in m.group(2, 3, 4):
                if r:
                    add(m.group(1), r)
    return tested


def main():
    ops = spec_rules(SPEC)
    tested = tested_rules()
    total = sum(len(r) for r in ops.values())
    covered = sum(len([r for r in rs if r in tested.get(op, ())])
                  for op, rs in ops.items())
    out = sys.stdout
    out.write("# Constraint coverage of the rules tests\n\n")
    out.write("Generated by `python3 tests/graph_lowering/rules_coverage.py > "
              "tests/graph_lowering/RULES_COVERAGE.md` from the spec's "
              "Constraints lists and the negative tests in this folder "
              "(a test counts when it breaks one rule and checks that the "
              "error names the op and the rule).\n\n")
    out.write("%d of %d rules have a test.\n\n" % (covered, total))
    out.write("| op | rules | tested | untested |\n|---|---|---|---|\n")
    for op in sorted(ops):
        rs = ops[op]
        if not rs:
            continue
        t = [r for r in rs if r in tested.get(op, ())]
        u = []
        for r in rs:
            if r in t:
                continue
            why = NOT_STATIC.get((op, r))
            u.append(r + (" (%s)" % why if why else ""))
        out.write("| %s | %d | %s | %s |\n" % (op, len(rs), " ".join(t) or "-",
                                               ", ".join(u) or "-"))
    with_example = spec_examples(SPEC)
    found = example_tests(with_example)
    missing = sorted(op for op in with_example
                     if op not in found and op not in OTHER_EXAMPLES)
    out.write("\n## Spec examples\n\n%d of %d ops with an Example in the "
              "spec have it reproduced (spec_examples_*_test, or the tests "
              "named in rules_coverage.py's OTHER_EXAMPLES).\n"
              % (len(with_example) - len(missing), len(with_example)))
    if missing:
        out.write("\nNot reproduced:\n\n")
        for op in missing:
            out.write("- %s%s\n" % (op, ": " + NO_EXAMPLE_TEST[op]
                                     if op in NO_EXAMPLE_TEST else ""))


if __name__ == "__main__":
    main()
