"""Cold --no-cache runs of builds on /tmp/big with GODEBUG=gctrace=1: peak RSS, the largest live
heap and heap the collector reported, and the number of collections. `RUNS=2 python3 mem.py
A,B,C`.
"""
import os, subprocess, time, statistics, sys, re
here = os.path.dirname(os.path.abspath(__file__))
big = "/tmp/big"
builds = sys.argv[1].split(",")
args = ["check", "--no-cache", "--no-config", "--exit-zero", "--project-root", ".", "--output-format", "json", "."]
res = {b: [] for b in builds}
for i in range(int(os.environ.get("RUNS", "1"))):
    for b in builds:
        env = dict(os.environ, GODEBUG="gctrace=1")
        t = time.perf_counter()
        p = subprocess.Popen(["taskset", "-c", "0-15", os.path.join(here, "cachelint-" + b)] + args, cwd=big, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        err = p.stderr.read().decode()
        _, st, ru = os.wait4(p.pid, 0)
        live = [int(m.group(1)) for m in re.finditer(r"->\d+->(\d+) MB", err)]
        peak = [int(m.group(1)) for m in re.finditer(r"\d+->(\d+)->\d+ MB", err)]
        res[b].append("%.1fs rss %d MB, max live %d MB, max heap %d MB, %d gcs" % (time.perf_counter() - t, ru.ru_maxrss / 1024, max(live or [0]), max(peak or [0]), len(live)))
for b in builds:
    print(b, " | ".join(res[b]), flush=True)
