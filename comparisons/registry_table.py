"""registry_table: the shared op registry as a table: each op's name, inputs and gradient rule.

Run: ``python -m comparisons.registry_table``.  Both engines interpret exactly these ops.
"""
from __future__ import annotations

from common import REGISTRY

from .sidebyside import parse_args


def rows():
    for name, op in sorted(REGISTRY.items()):
        rules = []
        for inp, rule in zip(op.inputs, op.grads):
            rules.append(f"{inp}: " + ("-" if rule is None else "yes"))
        yield name, op.fname, ", ".join(op.inputs), " ".join(rules), ", ".join(op.saves) or "-"


def main(argv: list[str] | None = None) -> None:
    parse_args(argv, __doc__)
    table = list(rows())
    print(f"{len(table)} ops in common/ — one declaration each (forward, shape rule, gradient rule)\n")
    header = ("op", "F.name", "inputs", "differentiable", "backward keeps")
    widths = [max(len(str(r[i])) for r in table + [header]) for i in range(len(header))]
    for r in [header] + table:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))


if __name__ == "__main__":
    main()
