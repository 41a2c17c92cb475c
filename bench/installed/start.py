"""Process start of a build against rg's: `python3 start.py BUILD` times `cachelint-BUILD
--version`, `rg --version` and `/bin/true` (medians of 30), and, when they lie in this folder,
two Go programs that print one line (`h0`: CGO_ENABLED=0, `h1`: with one cgo function): the
floor a Go binary starts from. Then the package initialisation of the build (GODEBUG=inittrace).
"""
import os, subprocess, statistics, sys, time
here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, LD_LIBRARY_PATH=here)
build = sys.argv[1] if len(sys.argv) > 1 else "new"
def t(cmd, extra={}):
    v = []
    for _ in range(30):
        s = time.perf_counter(); subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(env, **extra)); v.append(time.perf_counter() - s)
    return statistics.median(v) * 1000
rows = [("cachelint --version", [here + "/cachelint-" + build, "--version"]), ("rg --version", [here + "/rg", "--version"]), ("/bin/true", ["/bin/true"])]
rows += [(name, [here + "/" + b]) for name, b in [("go hello", "h0"), ("cgo hello", "h1")] if os.path.exists(here + "/" + b)]
print("start: " + ", ".join("%s %.2f ms" % (name, t(cmd)) for name, cmd in rows))
p = subprocess.run([here + "/cachelint-" + build, "--version"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=dict(env, GODEBUG="inittrace=1"), text=True)
inits = [l for l in p.stderr.splitlines() if l.startswith("init ")]
print("package initialisation: %d packages, %.2f ms of clock, the last at %s" % (len(inits), sum(float(l.split()[4]) for l in inits), inits[-1].split("@")[1].split(",")[0] if inits else "-"))
