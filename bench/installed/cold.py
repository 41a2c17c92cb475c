"""Cold --no-cache runs of builds on /tmp/big (installed.py x none makes it) at several core
counts: `python3 cold.py A,B 16:5,2:3` runs each build 5 times on 16 cores and 3 times on 2,
alternating, and prints wall and CPU time and peak RSS (medians) and the runs. A third
argument names another tree to check (a folder of clones carried to the machine).
"""
import os, subprocess, time, statistics, sys, hashlib
here = os.path.dirname(os.path.abspath(__file__))
big = sys.argv[3] if len(sys.argv) > 3 else "/tmp/big"
builds = sys.argv[1].split(",")
plan = [x.split(":") for x in sys.argv[2].split(",")]  # cpus:runs
args = ["check", "--no-cache", "--no-config", "--exit-zero", "--project-root", ".", "--output-format", "json", "."]
def timed(cmd, cpus):
    t = time.perf_counter()
    p = subprocess.Popen(["taskset", "-c", "0-%d" % (cpus - 1)] + cmd, cwd=big, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, st, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, ru.ru_maxrss / 1024, (ru.ru_utime + ru.ru_stime), out
for cpus, n in plan:
    cpus, n = int(cpus), int(n)
    res = {b: [] for b in builds}; mem = {b: [] for b in builds}; cpu = {b: [] for b in builds}; sums = {b: set() for b in builds}
    for i in range(n):
        for b in (builds if i % 2 == 0 else builds[::-1]):
            t, m, c, out = timed([os.path.join(here, "cachelint-" + b)] + args, cpus)
            res[b].append(t); mem[b].append(m); cpu[b].append(c); sums[b].add(hashlib.md5(out).hexdigest())
    print("cold cpus=%d | " % cpus + " | ".join("%s %.0f ms cpu %.1f s %.0f MB %s" % (b, statistics.median(res[b]) * 1000, statistics.median(cpu[b]), statistics.median(mem[b]), [round(x * 1000) for x in res[b]]) for b in builds), "outputs", [len(sums[b]) for b in builds], flush=True)
