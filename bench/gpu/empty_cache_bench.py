"""Measure what torch.cuda.empty_cache() after every batch costs, per step, on this GPU.

Two workloads: (a) ResNet-50, batch 128, synthetic images, fp32; (b) a variable-length
transformer encoder trained with bf16 autocast. For each it times steps three ways, each
between two plain phases so drift cancels: without the call, with the call after every
optimizer step, and with only torch.cuda.synchronize() after every step (what the drain
alone costs: `cachelint probe --sync-ms`). It then times the parts of one call (the
release itself, and the refill inside the next step) and dumps, where the call would run,
torch.cuda.memory_stats() and torch.cuda.memory_snapshot() for `cachelint probe
--torch-stats`.

ResNet-50 is written here in plain torch.nn so the script needs nothing beyond torch.
"""

import argparse
import json
import os
import statistics
import subprocess
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * self.expansion
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return F.relu(y + idt)


class ResNet50(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
            nn.MaxPool2d(3, stride=2, padding=1))
        layers, cin = [], 64
        for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
            for i in range(blocks):
                layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
                cin = width * 4
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def resnet_workload():
    torch.backends.cudnn.benchmark = True
    model = ResNet50().cuda()
    assert sum(p.numel() for p in model.parameters()) == 25_557_032, "not ResNet-50"
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(128, 3, 224, 224, device="cuda", generator=g)
    y = torch.randint(0, 1000, (128,), device="cuda", generator=g)

    def step(i):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    return step, None


def transformer_workload():
    vocab, d, heads, layers, batch = 32000, 1024, 16, 8, 16
    layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
    model = nn.ModuleDict({
        "emb": nn.Embedding(vocab, d),
        "enc": nn.TransformerEncoder(layer, layers, enable_nested_tensor=False),
        "head": nn.Linear(d, vocab),
    }).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    # Lengths vary step to step, the same sequence for every phase.
    rng = torch.Generator().manual_seed(1)
    lengths = (torch.randint(2, 17, (4096,), generator=rng) * 64).tolist()  # 128..1024 tokens
    g = torch.Generator(device="cuda").manual_seed(2)

    def step(i):
        n = lengths[i % len(lengths)]
        tok = torch.randint(0, vocab, (batch, n + 1), device="cuda", generator=g)
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            h = model["enc"](model["emb"](tok[:, :-1]))
            logits = model["head"](h)
        loss = F.cross_entropy(logits.float().view(-1, vocab), tok[:, 1:].reshape(-1))
        loss.backward()
        opt.step()

    return step, lengths


def counters():
    s = torch.cuda.memory_stats()
    return s.get("num_device_alloc", 0), s.get("num_device_free", 0)


class InSitu:
    """empty_cache() that also times its release where it runs: the drain first (the call
    synchronises anyway: its first cudaFree waits for the device), then the call itself,
    which is then only the release of the cached segments. The two host timers add about a
    microsecond; the per-call cost is measured with them in place."""

    def __init__(self):
        self.release_ms = []

    def __call__(self):
        torch.cuda.synchronize()
        t = time.perf_counter()
        torch.cuda.empty_cache()
        self.release_ms.append((time.perf_counter() - t) * 1e3)


def timed_phase(step, start, n, after):
    """Mean step time over n steps, synchronising only at the ends, as a training loop does;
    after() (empty_cache, synchronize, or nothing) runs after every step."""
    torch.cuda.synchronize()
    a0, f0 = counters()
    t0 = time.perf_counter()
    for i in range(start, start + n):
        step(i)
        if after is not None:
            after()
    torch.cuda.synchronize()
    t = (time.perf_counter() - t0) / n
    a1, f1 = counters()
    return t * 1e3, (a1 - a0) / n, (f1 - f0) / n


def parts(step, start, n):
    """Split one call into its release and the refill of the next step, for each batch in the
    regime the per-step call creates (the cache holds what one step allocated)."""
    free_ms, refill_ms, base_ms, segs, seg_bytes = [], [], [], [], []
    for i in range(start, start + n):
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        t0 = time.perf_counter()
        step(i)  # on an emptied cache: every segment comes from cudaMalloc
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        step(i)  # the same batch on the cache the first run left
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        refill_ms.append((t1 - t0) * 1e3)
        base_ms.append((t2 - t1) * 1e3)
        snap = torch.cuda.memory_snapshot()
        rel = [s["total_size"] for s in snap if s["allocated_size"] == 0 and s["active_size"] == 0]
        segs.append(len(rel))
        seg_bytes.append(sum(rel))
        t0 = time.perf_counter()
        torch.cuda.empty_cache()
        t1 = time.perf_counter()
        free_ms.append((t1 - t0) * 1e3)
    med = statistics.median
    return {
        "release_ms": med(free_ms),
        "synced_step_ms": med(base_ms),
        "synced_step_after_clear_ms": med(refill_ms),
        "refill_ms": med(r - b for r, b in zip(refill_ms, base_ms)),
        "released_segments": med(segs),
        "released_bytes": med(seg_bytes),
    }


def dump(out, name, suffix):
    with open(os.path.join(out, f"{name}-stats{suffix}.json"), "w") as f:
        json.dump(torch.cuda.memory_stats(), f)
    with open(os.path.join(out, f"{name}-snapshot{suffix}.json"), "w") as f:
        json.dump(torch.cuda.memory_snapshot(), f)


# What runs after every step in each kind of phase.
AFTER = {"never": None, "empty_cache": torch.cuda.empty_cache, "synchronize": torch.cuda.synchronize}


def probe_free(probe, snapshot):
    """The probe's replay of the snapshot's released segments, run now, in one process: the
    driver's free cost drifts over minutes (docs/probe.md), so each call phase gets the
    probe figure measured next to it. Returns the estimate's free term (the cold-cache pass)
    and the warm pass, in ms."""
    path = snapshot + ".probe.json"
    subprocess.run([probe, "--no-progress", "--processes", "1", "--torch-stats", snapshot, "--json", path],
                   check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        e = json.load(f)["estimate"]
    return e["free_us"] / 1000, e["free_warm_us"] / 1000


def run(name, make, out, warm, n, repeats, probe=None):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    step, lengths = make()
    for i in range(warm):
        step(i)
    torch.cuda.synchronize()
    # Every timed phase runs the same batches (indices base..base+n-1), so variable-length
    # workloads compare like with like.
    base = 1000
    timed_phase(step, base, n, None)  # one untimed phase: the cache grows to every length
    # The stats without the call: taken where it would run, with the cache fully grown.
    dump(out, name, "-noclear")
    # A representative step for the stats with the call: the median-length batch.
    rep = base
    if lengths is not None:
        idx = sorted(range(base, base + n), key=lambda j: lengths[j % len(lengths)])
        rep = idx[len(idx) // 2]
    res = {"workload": name, "steps_per_phase": n, "phases": []}
    # Plain phases around every other one: never, call, never, sync, never, ... so each
    # call or sync phase is measured against the plain phases either side of it.
    kinds = ["never"]
    for _ in range(repeats):
        kinds += ["empty_cache", "never", "synchronize", "never"]
    for kind in kinds:
        if kind == "empty_cache":  # settle into the emptied-cache regime before timing it
            for j in range(base - 3, base):
                step(j)
                torch.cuda.empty_cache()
            if not any(p["after_every_step"] == "empty_cache" for p in res["phases"]):
                # The dumps with the call: taken just before it, as docs/probe.md says.
                step(rep)
                dump(out, name, "")
                torch.cuda.empty_cache()
        snap = os.path.join(out, f"{name}-snapshot.json")
        # The probe's replay right before and right after each call phase: the driver's free
        # cost moves within seconds (bench/gpu/free_modes.py), so the phase gets the mean of
        # the two figures that bracket it.
        before = probe_free(probe, snap) if probe and kind == "empty_cache" else None
        after = InSitu() if kind == "empty_cache" else AFTER[kind]
        ms, allocs, frees = timed_phase(step, base, n, after)
        res["phases"].append({"after_every_step": kind, "step_ms": ms,
                              "cudaMalloc_per_step": allocs, "cudaFree_per_step": frees})
        if kind == "empty_cache":
            res["phases"][-1]["release_in_situ_ms"] = statistics.median(after.release_ms)
        if before is not None:
            after_free = probe_free(probe, snap)
            res["phases"][-1]["probe_free_cold_ms"] = [before[0], after_free[0]]
            res["phases"][-1]["probe_free_warm_ms"] = [before[1], after_free[1]]
    ph = res["phases"]

    def per_step(kind):
        return [ph[k]["step_ms"] - (ph[k - 1]["step_ms"] + ph[k + 1]["step_ms"]) / 2
                for k in range(1, len(ph) - 1) if ph[k]["after_every_step"] == kind]

    never = statistics.median(p["step_ms"] for p in ph if p["after_every_step"] == "never")
    every = statistics.median(p["step_ms"] for p in ph if p["after_every_step"] == "empty_cache")
    calls, syncs = per_step("empty_cache"), per_step("synchronize")
    res.update(step_ms_never=never, step_ms_every=every,
               per_call_ms_by_pair=calls, per_call_ms=statistics.median(calls),
               sync_ms_by_pair=syncs, sync_ms=statistics.median(syncs),
               slowdown=(every - never) / every,
               cudaMalloc_per_step=statistics.mean(p["cudaMalloc_per_step"] for p in ph if p["after_every_step"] == "empty_cache"),
               release_in_situ_ms=statistics.median(p["release_in_situ_ms"] for p in ph if "release_in_situ_ms" in p))
    if probe:
        # The probe's estimate for each call phase: the sync this run measured plus the mean
        # of the free terms (cold-cache passes) the probe timed just before and just after
        # that phase; beside it, the same with the warm passes, and the release PyTorch
        # itself took in that phase.
        res["interleaved"] = []
        for c, p in zip(calls, [p for p in ph if "probe_free_cold_ms" in p]):
            cold, warm = statistics.mean(p["probe_free_cold_ms"]), statistics.mean(p["probe_free_warm_ms"])
            res["interleaved"].append({
                "measured_ms": c, "release_in_situ_ms": p["release_in_situ_ms"],
                "probe_free_cold_ms": p["probe_free_cold_ms"], "probe_free_warm_ms": p["probe_free_warm_ms"],
                "probe_estimate_ms": cold + res["sync_ms"], "error": (cold + res["sync_ms"] - c) / c,
                "error_warm": (warm + res["sync_ms"] - c) / c})
        print(f"{name} interleaved: " + ", ".join(
            f"{x['measured_ms']:.2f} vs {x['probe_estimate_ms']:.2f} ms ({100 * x['error']:+.0f}%; "
            f"free cold {x['probe_free_cold_ms'][0]:.1f}/{x['probe_free_cold_ms'][1]:.1f}, "
            f"warm {x['probe_free_warm_ms'][0]:.1f}/{x['probe_free_warm_ms'][1]:.1f}, in situ {x['release_in_situ_ms']:.1f})"
            for x in res["interleaved"]), flush=True)
    res["parts"] = parts(step, base, 10)
    res["peak_reserved_bytes"] = torch.cuda.max_memory_reserved()
    print(f"{name}: step {never:.2f} ms -> {every:.2f} ms with empty_cache every step: "
          f"{res['per_call_ms']:.2f} ms per call (by pair {[round(x, 2) for x in calls]}); "
          f"synchronize() every step: {res['sync_ms']:.2f} ms per step (by pair {[round(x, 2) for x in syncs]}); "
          f"{res['cudaMalloc_per_step']:.1f} cudaMalloc per step; "
          f"phases {[(p['after_every_step'][0], round(p['step_ms'], 2)) for p in ph]}; parts {res['parts']}", flush=True)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--warm", type=int, default=20)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--repeats", type=int, default=4, help="call and sync phases of each kind")
    ap.add_argument("--probe", help="probe binary: time its replay of the snapshot before and after every call phase")
    a = ap.parse_args()
    drv = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    meta = {"device": torch.cuda.get_device_name(0), "driver": drv, "torch": torch.__version__,
            "cuda": torch.version.cuda, "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")}
    print(meta, flush=True)
    results = [run("resnet50", resnet_workload, a.out, a.warm, a.steps, a.repeats, a.probe),
               run("transformer", transformer_workload, a.out, a.warm, a.steps, a.repeats, a.probe)]
    with open(os.path.join(a.out, "bench.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
