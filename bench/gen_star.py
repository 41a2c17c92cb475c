#!/usr/bin/env python3
"""Write a tree of packages that star-import their modules and each other, the shape that made
class lookups (issue 14) cost time and memory with every call: torch's packages re-export their
modules with `from .x import *`, and each `v.m()` whose receiver is no import is looked up as a
class through every module so re-exported.

    bench/gen_star.py OUT [--packages 4] [--modules 100] [--calls 150] [--seed 1]

Each package's __init__.py star-imports its first 20 modules; each module star-imports three
others of its package and the next package, defines five classes and a step loop of --calls
calls on 13 receivers, and empties the cache once per step (so every module is parsed)."""
import argparse
import os
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--packages", type=int, default=4)
    ap.add_argument("--modules", type=int, default=100, help="modules per package")
    ap.add_argument("--calls", type=int, default=150, help="calls per step loop")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    for pkg in range(args.packages):
        d = os.path.join(args.out, "pkg%d" % pkg)
        os.makedirs(d, exist_ok=True)
        mods = ["m%d" % i for i in range(args.modules)]
        with open(os.path.join(d, "__init__.py"), "w") as f:
            f.write("".join("from .%s import *\n" % m for m in mods[:20]))
            f.write("import torch\n\n\ndef free():\n    torch.cuda.empty_cache()\n")
        for i, m in enumerate(mods):
            body = "".join("from .%s import *\n" % x for x in rnd.sample(mods, 3) if x != m)
            body += "from pkg%d import *\nimport torch\n\n" % ((pkg + 1) % args.packages)
            for c in range(5):
                body += "\nclass C%d_%d_%d:\n    def step(self, x):\n        return x\n\n" % (pkg, i, c)
            body += "\ndef work_%d(loader, model):\n    for batch in loader:\n" % i
            body += "".join("        v%d.m%d(batch)\n" % (k % 13, k) for k in range(args.calls))
            body += "        torch.cuda.empty_cache()\n"
            with open(os.path.join(d, m + ".py"), "w") as f:
                f.write(body)


if __name__ == "__main__":
    main()
