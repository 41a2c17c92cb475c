"""What sets the cost of cuMemFree? Experiments behind the probe's replay (docs/probe.md).

The probe's free pass and PyTorch's own empty_cache() drift together between a fast and a
slow mode about 2x apart. This script calls the CUDA driver directly (ctypes on libcuda, no
PyTorch) and tells apart the candidate causes, each experiment alternating its conditions
so that drift over time hits both sides alike:

  sizes    free cost per call and per GiB, 2 MiB to 4 GiB segments
  series   a free pass of the ResNet-50 snapshot's shape, repeated, with a timestamp each
  busy     free right after GPU work vs after 300 ms idle
  smi      free while nvidia-smi polls the driver every 20 ms vs with nothing else running
  frag     free on a clean heap vs after the physical heap was chequered with 2 MiB holes
  procs    the same pass in fresh processes, one after another
  cold     free right after the CPU caches were swept by 256 MiB of host writes vs not
  where    a repeated pass with, for each: the thread's CPU time during the frees (is the
           free CPU work or waiting?), its context switches, the SM and memory clocks
           (NVML) just before it, the time of a fixed CPU task (sha256 of 8 MiB: is the CPU
           itself slower?) and the host's steal time during it

Usage: python3 free_modes.py OUTDIR [experiment ...]   (default: all)
"""

import ctypes
import json
import os
import statistics
import subprocess
import sys
import time

MiB, GiB = 1 << 20, 1 << 30
cu = ctypes.CDLL("libcuda.so.1")
for name in ("cuMemAlloc_v2", "cuMemFree_v2", "cuMemsetD32_v2", "cuMemGetInfo_v2"):
    getattr(cu, name).restype = ctypes.c_int
cu.cuMemFree_v2.argtypes = [ctypes.c_ulonglong]
cu.cuMemsetD32_v2.argtypes = [ctypes.c_ulonglong, ctypes.c_uint, ctypes.c_size_t]


def check(rc, what):
    if rc != 0:
        s = ctypes.c_char_p()
        cu.cuGetErrorName(rc, ctypes.byref(s))
        raise RuntimeError(f"{what}: {s.value.decode() if s.value else rc}")


def init():
    check(cu.cuInit(0), "cuInit")
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    check(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")


def alloc(size):
    p = ctypes.c_ulonglong()
    check(cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(size)), f"cuMemAlloc({size})")
    return p.value


def free(p):
    t = time.perf_counter()
    check(cu.cuMemFree_v2(p), "cuMemFree")
    return (time.perf_counter() - t) * 1e3


def write(p, size):
    check(cu.cuMemsetD32_v2(p, 0x3F800000, size // 4), "cuMemsetD32")


def sync():
    check(cu.cuCtxSynchronize(), "cuCtxSynchronize")


def free_mem():
    f, t = ctypes.c_size_t(), ctypes.c_size_t()
    check(cu.cuMemGetInfo_v2(ctypes.byref(f), ctypes.byref(t)), "cuMemGetInfo")
    return f.value


# The ResNet-50 snapshot's released segments (bench/gpu/results/h200-2026-12-02): 59
# segments, 11.0 GiB; as a shape: 40 of 2 MiB, 19 of ~590 MiB.
RESNET = [2 * MiB] * 40 + [592 * MiB] * 19


def free_pass(sizes, written=True, before=None):
    ptrs = [alloc(s) for s in sizes]
    if written:
        for p, s in zip(ptrs, sizes):
            write(p, s)
    sync()
    if before:
        before()
    t = time.perf_counter()
    each = [free(p) for p in reversed(ptrs)]
    return (time.perf_counter() - t) * 1e3, each


def med(xs):
    return round(statistics.median(xs), 3) if xs else None


def exp_sizes(out):
    res = {}
    sizes = [2 * MiB, 20 * MiB, 64 * MiB, 256 * MiB, GiB, 4 * GiB]
    for rep in range(3):
        for size in (sizes if rep % 2 == 0 else sizes[::-1]):
            n = max(2, min(200, 8 * GiB // size))
            total, each = free_pass([size] * n)
            r = res.setdefault(size // MiB, {"n": n, "total_ms": [], "per_free_ms": [], "ms_per_gib": []})
            r["total_ms"].append(round(total, 3))
            r["per_free_ms"].append(med(each[1:]))
            r["ms_per_gib"].append(round(total / (n * size / GiB), 3))
    for k, r in res.items():
        print(f"sizes: {k:5d} MiB x{r['n']:3d}: pass {r['total_ms']} ms, per free {r['per_free_ms']} ms, per GiB {r['ms_per_gib']} ms", flush=True)
    return res


def exp_series(out, seconds=25):
    rows, t0 = [], time.time()
    while time.time() - t0 < seconds:
        total, each = free_pass(RESNET)
        rows.append({"t": round(time.time() - t0, 3), "ms": round(total, 3), "first_ms": round(each[0], 3),
                     "small_ms": med(each[:40][::-1]), "big_ms": med(each[40:])})
    ms = [r["ms"] for r in rows]
    print(f"series: {len(rows)} passes, median {med(ms)} ms, min {min(ms):.2f}, max {max(ms):.2f}; "
          f"by 5 s: {[med([r['ms'] for r in rows if k <= r['t'] < k + 5]) for k in range(0, seconds, 5)]}", flush=True)
    return rows


def busy_gpu(buf, size, ms=30):
    t = time.perf_counter()
    while (time.perf_counter() - t) * 1e3 < ms:
        write(buf, size)  # synchronous memset of 4 GiB keeps the copy engines and memory busy
    sync()


def exp_busy(out):
    buf = alloc(4 * GiB)
    res = {"busy": [], "idle": []}
    for i in range(16):
        if i % 2 == 0:
            total, _ = free_pass(RESNET, before=lambda: busy_gpu(buf, 4 * GiB))
            res["busy"].append(round(total, 3))
        else:
            total, _ = free_pass(RESNET, before=lambda: time.sleep(0.3))
            res["idle"].append(round(total, 3))
    free(buf)
    print(f"busy: after GPU work {med(res['busy'])} ms {res['busy']}; after 300 ms idle {med(res['idle'])} ms {res['idle']}", flush=True)
    return res


def exp_smi(out):
    res = {"polled": [], "quiet": []}
    for block in range(6):
        polled = block % 2 == 0
        proc = None
        if polled:
            proc = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader", "-lms", "20"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        for _ in range(5):
            total, _ = free_pass(RESNET)
            res["polled" if polled else "quiet"].append(round(total, 3))
        if proc:
            proc.terminate()
            proc.wait()
    print(f"smi: while nvidia-smi polls every 20 ms {med(res['polled'])} ms; quiet {med(res['quiet'])} ms", flush=True)
    return res


def exp_frag(out):
    res = {"clean": [], "chequered": []}
    for rep in range(2):
        for _ in range(5):
            res["clean"].append(round(free_pass(RESNET)[0], 3))
        # Fill 24 GiB with 2 MiB allocations and free every other one: the driver's
        # physical heap now has 2 MiB holes that the next large allocations may span.
        small = [alloc(2 * MiB) for _ in range(24 * 512)]
        for p in small[::2]:
            free(p)
        for _ in range(5):
            res["chequered"].append(round(free_pass(RESNET)[0], 3))
        for p in small[1::2]:
            free(p)
    print(f"frag: clean heap {med(res['clean'])} ms; chequered with 2 MiB holes {med(res['chequered'])} ms "
          f"({res['clean']} vs {res['chequered']})", flush=True)
    return res


def exp_procs(out, n=8):
    res = []
    for i in range(n):
        r = subprocess.run([sys.executable, __file__, "--child"], capture_output=True, text=True, check=True)
        res.append(json.loads(r.stdout))
    print(f"procs: {n} fresh processes, median pass each {[r['median'] for r in res]} ms", flush=True)
    return res


def child():
    init()
    passes = [free_pass(RESNET)[0] for _ in range(8)]
    print(json.dumps({"median": med(passes[1:]), "passes": [round(x, 3) for x in passes]}))


def nvml():
    lib = ctypes.CDLL("libnvidia-ml.so.1")
    check(lib.nvmlInit_v2(), "nvmlInit")
    h = ctypes.c_void_p()
    check(lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)), "nvmlDeviceGetHandleByIndex")

    def clocks():
        sm, mem, power = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        lib.nvmlDeviceGetClockInfo(h, 1, ctypes.byref(sm))  # NVML_CLOCK_SM
        lib.nvmlDeviceGetClockInfo(h, 2, ctypes.byref(mem))  # NVML_CLOCK_MEM
        lib.nvmlDeviceGetPowerUsage(h, ctypes.byref(power))
        return sm.value, mem.value, power.value / 1000
    return clocks


def ctx_switches():
    with open("/proc/thread-self/status") as f:
        v = dict(line.split(":", 1) for line in f if "ctxt_switches" in line)
    return int(v["voluntary_ctxt_switches"]), int(v["nonvoluntary_ctxt_switches"])


def steal_ticks():
    with open("/proc/stat") as f:
        return int(f.readline().split()[8])  # cpu user nice system idle iowait irq softirq steal


def exp_where(out, seconds=20):
    import hashlib
    clocks = nvml()
    blob = os.urandom(8 * MiB)
    rows, t0 = [], time.time()
    while time.time() - t0 < seconds:
        # The same CPU work every pass: does the CPU itself run slower when the frees do?
        h0 = time.perf_counter()
        hashlib.sha256(blob).digest()
        hash_ms = (time.perf_counter() - h0) * 1e3
        st0 = steal_ticks()
        ptrs = [alloc(s) for s in RESNET]
        for p, s in zip(ptrs, RESNET):
            write(p, s)
        sync()
        sm, mem, power = clocks()
        v0, n0 = ctx_switches()
        c0, w0 = time.thread_time(), time.perf_counter()
        for p in reversed(ptrs):
            check(cu.cuMemFree_v2(p), "cuMemFree")
        c1, w1 = time.thread_time(), time.perf_counter()
        v1, n1 = ctx_switches()
        rows.append({"t": round(time.time() - t0, 3), "ms": round((w1 - w0) * 1e3, 3), "cpu_ms": round((c1 - c0) * 1e3, 3),
                     "vcsw": v1 - v0, "ivcsw": n1 - n0, "sm_mhz": sm, "mem_mhz": mem, "power_w": power,
                     "hash_ms": round(hash_ms, 3), "steal_ticks": steal_ticks() - st0})
    fast = [r for r in rows if r["ms"] < med([r["ms"] for r in rows])]
    slow = [r for r in rows if r not in fast]
    for name, rs in (("faster half", fast), ("slower half", slow)):
        print(f"where: {name}: pass {med([r['ms'] for r in rs])} ms, thread CPU {med([r['cpu_ms'] for r in rs])} ms, "
              f"voluntary switches {med([r['vcsw'] for r in rs])}, SM {med([r['sm_mhz'] for r in rs])} MHz, "
              f"mem {med([r['mem_mhz'] for r in rs])} MHz, {med([r['power_w'] for r in rs])} W, "
              f"8 MiB sha256 {med([r['hash_ms'] for r in rs])} ms, steal ticks {sum(r['steal_ticks'] for r in rs)}", flush=True)
    return rows


def exp_cold(out):
    """Free right after a host-memory sweep that evicts the CPU caches (as a step's CPU work
    does between two calls in training) vs with nothing in between."""
    sweep = bytearray(256 * MiB)
    res = {"warm": [], "cold": []}
    for i in range(30):
        cold = i % 2 == 1
        before = (lambda: sweep.__setitem__(slice(0, None, 64), bytes(len(sweep) // 64))) if cold else None
        res["cold" if cold else "warm"].append(round(free_pass(RESNET, before=before)[0], 3))
    print(f"cold: after a 256 MiB host sweep {med(res['cold'])} ms; warm {med(res['warm'])} ms "
          f"(ratio {med(res['cold']) / med(res['warm']):.2f})", flush=True)
    return res


EXPERIMENTS = {"sizes": exp_sizes, "series": exp_series, "busy": exp_busy, "smi": exp_smi,
               "frag": exp_frag, "procs": exp_procs, "where": exp_where, "cold": exp_cold}


def main():
    if sys.argv[1:] == ["--child"]:
        return child()
    out = sys.argv[1]
    names = sys.argv[2:] or list(EXPERIMENTS)
    init()
    print(f"free device memory {free_mem() / GiB:.1f} GiB", flush=True)
    free_pass(RESNET)  # warm-up
    results = {}
    for name in names:
        t = time.time()
        results[name] = EXPERIMENTS[name](out)
        print(f"  ({name}: {time.time() - t:.1f} s)", flush=True)
    with open(os.path.join(out, "free-modes.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
