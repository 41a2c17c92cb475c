"""Warm runs (nothing changed since a cached run) of builds on /tmp/big, 16 and 2 cores, against
`rg -l empty_cache` on the same cores: `python3 warm.py A,B`.
"""
import os, subprocess, time, statistics, sys, shutil
here = os.path.dirname(os.path.abspath(__file__))
big = "/tmp/big"
env = dict(os.environ, LD_LIBRARY_PATH=here)
def timed(cmd, cpus, cwd):
    t = time.perf_counter()
    subprocess.run(["taskset", "-c", "0-%d" % (cpus - 1)] + cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t
for cpus in [16, 2]:
    rg = statistics.median(timed([os.path.join(here, "rg"), "-l", "empty_cache", "."], cpus, big) for _ in range(5))
    res = {}
    for b in sys.argv[1].split(","):
        cache = "/tmp/cw-" + b
        shutil.rmtree(cache, ignore_errors=True)
        timed([os.path.join(here, "cachelint-" + b), "check", "--cache-dir", cache, "--no-config", "--exit-zero", "--project-root", ".", "."], 16, big)
    for i in range(9):
        for b in sys.argv[1].split(","):
            cache = "/tmp/cw-" + b
            res.setdefault(b, []).append(timed([os.path.join(here, "cachelint-" + b), "check", "--cache-dir", cache, "--no-config", "--exit-zero", "--project-root", ".", "."], cpus, big))
    print("warm cpus=%d rg %.0f ms | " % (cpus, rg * 1000) + " | ".join("%s %.0f ms (%.1fx)" % (b, statistics.median(v) * 1000, statistics.median(v) / rg) for b, v in res.items()), flush=True)
