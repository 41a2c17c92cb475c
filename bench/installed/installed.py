"""Builds of cachelint compared on the Python packages installed beside them (a machine with
torch: the device machine of bench/README.md). The builds are binaries named cachelint-<build>
in this folder (cross-built elsewhere: `go build -trimpath -ldflags="-s -w" -o
bench/installed/cachelint-<build> ./cmd/cachelint`), with an `rg` binary for the cold rows
(and its libpcre2 if it needs one: the folder is the library path).

    python3 installed.py x none                 # only copy the packages to /tmp/big
    python3 installed.py A,B cold               # cold --no-cache runs, 16 cores, alternating
    python3 installed.py A,B edited big/16,torch/2
                                                # a file edited before each run, each build
                                                # with its own warm cache, alternating
    python3 installed.py A,B first              # a first run with a cache, 16 cores
    python3 installed.py A,B clones 16:3,2:3    # cold --no-cache runs on /tmp/clones: each
                                                # package of /tmp/big as a clone of its own
                                                # (pkg/pkg, with a .git), cpus:runs

/tmp/big is a copy of the installed packages (transformers, torch, lightning, ...; no
compiled files), every file dated an hour back so that the cache trusts its time. Each row
prints the median of the runs, the runs, and how many different outputs the runs gave (1:
every build's JSON was the same).
"""
import os, subprocess, time, statistics, shutil, site, hashlib, sys
here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, LD_LIBRARY_PATH=here)
sp = [p for p in site.getsitepackages() if os.path.isdir(p)][0]
big = "/tmp/big"
if not os.path.isdir(big):
    for p in ["transformers", "torch", "lightning", "pytorch_lightning", "accelerate", "torchvision", "torchaudio",
              "sentence_transformers", "diffusers", "peft", "torchmetrics", "torch_geometric", "botorch", "gpytorch"]:
        src = os.path.join(sp, p)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(big, p), ignore=shutil.ignore_patterns("*.so", "*.so.*", "*.pyc", "__pycache__", "*.a", "*.h", "*.cuh", "*.cu", "*.lib", "*.dll"), dirs_exist_ok=True)
    # every file a time the cache trusts
    old = time.time() - 3600
    for d, _, fs in os.walk(big):
        for f in fs:
            os.utime(os.path.join(d, f), (old, old))
def timed(cmd, cpus, cwd):
    cmd = ["taskset", "-c", "0-%d" % (cpus - 1)] + cmd
    t = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, ru.ru_maxrss / 1024, out
builds = sys.argv[1].split(",")
mode = sys.argv[2]
def med(xs): return statistics.median(xs)
if mode == "edited":
    print(sorted(os.listdir(big)), flush=True)
    plan = [("big", big, "accelerate/utils/memory.py", 2, 5), ("big", big, "accelerate/utils/memory.py", 16, 5),
            ("diffusers", big + "/diffusers", "training_utils.py", 2, 9), ("diffusers", big + "/diffusers", "training_utils.py", 16, 7),
            ("transformers", big + "/transformers", "trainer.py", 2, 7), ("transformers", big + "/transformers", "trainer.py", 16, 5),
            ("lightning", big + "/lightning", "fabric/accelerators/cuda.py", 2, 9), ("torch", big + "/torch", "cuda/memory.py", 2, 7)]
    only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
    for name, tree, one, cpus, n in plan:
        if not os.path.isdir(tree) or (only and "%s/%d" % (name, cpus) not in only):
            continue
        res = {b: [] for b in builds}; mem = {b: [] for b in builds}; sums = set()
        for b in builds:
            cache = "/tmp/cache-%s-%s-%d" % (b, name, cpus)
            shutil.rmtree(cache, ignore_errors=True)
            timed([os.path.join(here, "cachelint-" + b), "check", "--cache-dir", cache, "--no-config", "--exit-zero", "--project-root", ".", "."], cpus, tree)
        for i in range(n):
            with open(os.path.join(tree, one), "a") as fh: fh.write("\n# edit %d\n" % i)
            time.sleep(0.05)
            for b in (builds if i % 2 == 0 else builds[::-1]):
                cache = "/tmp/cache-%s-%s-%d" % (b, name, cpus)
                t, m, out = timed([os.path.join(here, "cachelint-" + b), "check", "--cache-dir", cache, "--no-config", "--exit-zero", "--project-root", ".", "--output-format", "json", one], cpus, tree)
                res[b].append(t); mem[b].append(m); sums.add(hashlib.md5(out).hexdigest())
        print("edited %s %s cpus=%d | " % (name, one, cpus) + " | ".join("%s %.0f ms %.0f MB %s" % (b, med(res[b]) * 1000, med(mem[b]), [round(x * 1000) for x in res[b]]) for b in builds), "outputs", len(sums), flush=True)
if mode == "first":
    # a first run with a cache (one not there before): the analysis, and the cache written
    args = ["check", "--no-config", "--exit-zero", "--project-root", ".", "--output-format", "json", "."]
    for name, tree, cpus, n in [("big", big, 16, 3)]:
        res = {b: [] for b in builds}; mem = {b: [] for b in builds}; sums = set()
        for i in range(n):
            for b in (builds if i % 2 == 0 else builds[::-1]):
                cache = "/tmp/cache-first-%s" % b
                shutil.rmtree(cache, ignore_errors=True)
                t, m, out = timed([os.path.join(here, "cachelint-" + b), "check", "--cache-dir", cache] + args[1:], cpus, tree)
                res[b].append(t); mem[b].append(m); sums.add(hashlib.md5(out).hexdigest())
        print("first %s cpus=%d | " % (name, cpus) + " | ".join("%s %.0f ms %.0f MB %s" % (b, med(res[b]) * 1000, med(mem[b]), [round(x * 1000) for x in res[b]]) for b in builds), "outputs", len(sums), flush=True)
if mode == "cold":
    RG = os.path.join(here, "rg")
    args = ["check", "--no-cache", "--no-config", "--exit-zero", "--project-root", ".", "--output-format", "json", "."]
    for name, tree, cpus, n in [("big", big, 16, 3)]:
        rg = med([timed([RG, "-l", "empty_cache", "."], cpus, tree)[0] for _ in range(5)])
        res = {b: [] for b in builds}; mem = {b: [] for b in builds}; sums = set()
        for i in range(n):
            for b in (builds if i % 2 == 0 else builds[::-1]):
                t, m, out = timed([os.path.join(here, "cachelint-" + b)] + args, cpus, tree)
                res[b].append(t); mem[b].append(m); sums.add(hashlib.md5(out).hexdigest())
        print("cold %s cpus=%d rg %.0f ms | " % (name, cpus, rg * 1000) + " | ".join("%s %.0f ms (%.0fx) %.0f MB %s" % (b, med(res[b]) * 1000, med(res[b]) / rg, med(mem[b]), [round(x * 1000) for x in res[b]]) for b in builds), "outputs", len(sums), flush=True)
if mode == "clones":
    # A folder of clones: each package a repository of its own, as `git clone` leaves it.
    clones = "/tmp/clones"
    if not os.path.isdir(clones):
        for p in sorted(os.listdir(big)):
            os.makedirs(os.path.join(clones, p, ".git"))
            with open(os.path.join(clones, p, ".git", "HEAD"), "w") as fh: fh.write("ref: refs/heads/main\n")
            subprocess.run(["cp", "-al", os.path.join(big, p), os.path.join(clones, p, p)], check=True)
    RG = os.path.join(here, "rg")
    args = ["check", "--no-cache", "--no-config", "--exit-zero", "--output-format", "json", "."]
    for spec in (sys.argv[3] if len(sys.argv) > 3 else "16:3").split(","):
        cpus, n = map(int, spec.split(":"))
        rg = med([timed([RG, "-l", "empty_cache", "."], cpus, clones)[0] for _ in range(5)])
        res = {b: [] for b in builds}; mem = {b: [] for b in builds}; sums = {b: set() for b in builds}
        for i in range(n):
            for b in (builds if i % 2 == 0 else builds[::-1]):
                t, m, out = timed([os.path.join(here, "cachelint-" + b)] + args, cpus, clones)
                res[b].append(t); mem[b].append(m); sums[b].add(hashlib.md5(out).hexdigest())
        print("clones cpus=%d rg %.0f ms | " % (cpus, rg * 1000) + " | ".join("%s %.0f ms (%.0fx) %.0f MB %s outputs %d" % (b, med(res[b]) * 1000, med(res[b]) / rg, med(mem[b]), [round(x * 1000) for x in res[b]], len(sums[b])) for b in builds), flush=True)
