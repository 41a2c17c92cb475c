"""What a global forward hook costs a call of torch.cuda.empty_cache() (no shim): ab_bench.py's
phases (plain, with the call, plain) for one workload, alternately with and without a no-op
global forward pre-hook and forward hook registered, as the shim's were for the whole of a
loop without an optimizer before it hooked the top-level modules alone. A global hook sends
every submodule's call through Module._call_impl's slow path; after a call the GPU is idle and
waits on that Python work. Usage: python3 hooks.py NAME [PAIRS] [K]"""

import json
import statistics
import sys

import torch
import torch.nn.modules.module as mm

from ab_bench import phase
from workloads import WORKLOADS


def main(name, pairs=8, k=10):
    step = WORKLOADS[name]()
    i = 0
    phase(step, i, 4 * k, torch.cuda.empty_cache)
    i += 4 * k + 1
    res = {"without hooks": ([], []), "global hooks": ([], [])}
    for _ in range(pairs):
        for label, hooked in (("without hooks", False), ("global hooks", True)):
            hs = [mm.register_module_forward_pre_hook(lambda m, a: None),
                  mm.register_module_forward_hook(lambda m, a, o: None)] if hooked else []
            p0 = phase(step, i, k, None)
            i += k + 1
            o = phase(step, i, k, torch.cuda.empty_cache)
            i += k + 1
            p1 = phase(step, i, k, None)
            i += k + 1
            for h in hs:
                h.remove()
            res[label][0].append(o - (p0 + p1) / 2)
            res[label][1].append((p0 + p1) / 2)
    doc = {"workload": name, "device": torch.cuda.get_device_name(), "k": k, "pairs": pairs}
    for label, (cost, plain) in res.items():
        doc[label] = {"call_ms": statistics.median(cost), "call_min_ms": min(cost), "call_max_ms": max(cost),
                      "step_ms": statistics.median(plain), "diffs_ms": cost}
    print(json.dumps(doc))


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], *(int(x) for x in a[1:]))
