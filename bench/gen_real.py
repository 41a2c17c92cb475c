"""gen_corpus.py --density real: projects with real helper-name density and file sizes (issue 14).

Calibration, measured on 37 public PyTorch projects (training, fine-tuning, diffusion, serving:
diffusers, unsloth, SimpleTuner, Megatron-LM, InvokeAI, fairseq, axolotl, DeepSpeed, ...):
  18,764 .py files, 6.04 M lines, 247 MB (322 lines a file on average).
  Lines per file: p10 17, p25 59, p50 154, p75 361, p90 758, p95 1,128, p99 2,476, max 26,612.
  Share of files by lines: <50 21.4%, 50-100 15.6%, 100-200 20.9%, 200-500 24.7%,
  500-1k 11.1%, 1k-2k 4.8%, 2k-3k 0.9%, >3k 0.7%; files of 1k lines or more hold 37% of the lines.
  Files mentioning empty_cache: 573 (3.1%); their lines p25 238, p50 466, p75 1,136, p90 1,878;
  169 of them have 1,000 lines or more.
  Files mentioning the identifier (whole token, code, strings or comments): forward 21.3%,
  inference 15.0%, train 11.6%, collect 3.5%, preprocess 2.9%, flush 2.7%, gc 2.6%,
  cleanup 2.3%, evaluate 1.6%, backend_empty_cache 0.8%, free_memory 0.2%, clear_cache 0.2%,
  release_memory 0.1%, gc_collect 0.1%, clear_memory 0.03%.
  Helpers imported by name (`from X import cleanup|free_memory|flush|...`): 118 files, 41 of
  them relative imports; the rest go through a module (`import ... memory as mem`).
What pulls files into cachelint's later prefilter rounds (needles `module.helper`, both parts
mentioned): in axolotl the helper `train` (165 files) and `inference` (29); in diffusers
`backend_empty_cache` (140), a `forward` that empties the cache under examples/ (133),
`log_validation` (69), `free_memory` (28).

The generator copies none of those projects' code: every file is built from the templates
below, with names drawn from small vocabularies, deterministically from the seed.
"""
import os
import random

SIZE_BUCKETS = [(5, 50, 21.4), (50, 100, 15.6), (100, 200, 20.9), (200, 500, 24.7),
                (500, 1000, 11.1), (1000, 2000, 4.8), (2000, 3000, 0.9), (3000, 6000, 0.7)]
# Share of ordinary files that mention each name (the files below that call or define the
# helpers add theirs).
MENTION = {"forward": .21, "inference": .14, "train": .11, "flush": .027, "cleanup": .023,
           "evaluate": .015, "preprocess": .028, "free_memory": .002, "release_memory": .001,
           "gc_collect": .001, "clear_memory": .0005}
DIRECT = .031     # files that call the cache directly
TRAINERS = .02    # files that import the memory helpers and call them in training loops
CALLERS = .03     # scripts and tests that call train()/evaluate()/inference()

PKG_WORDS = ["lumen", "vortex", "quill", "ember", "strata", "nimbus", "orbit", "helix",
             "cobalt", "fable", "glyph", "prism", "tundra", "zephyr", "basalt", "corvid"]
DIRS = [("models", 25), ("data", 12), ("utils", 8), ("trainers", 8), ("pipelines", 10),
        ("tests", 20), ("examples", 12), ("scripts", 5)]
FAMILIES = ["vit", "unet", "llama", "clip", "vae", "bert", "whisper", "t5", "dit", "mamba",
            "lora", "moe", "resnet", "gpt", "sam", "flow"]
VERBS = ["build", "load", "compute", "prepare", "apply", "merge", "split", "encode", "decode",
         "project", "resize", "pack", "unpack", "shard", "gather", "scale", "mask", "pad",
         "tokenize", "sample", "update", "collate", "normalize", "convert", "register", "init"]
NOUNS = ["weights", "batch", "tokens", "latents", "states", "config", "schedule", "grid",
         "heads", "buffer", "cache_key", "layers", "params", "logits", "mask", "image",
         "prompt", "embeddings", "features", "labels", "metrics", "checkpoint", "shards"]
CLASS_NOUNS = ["Block", "Attention", "Encoder", "Decoder", "Adapter", "Sampler", "Scheduler",
               "Dataset", "Collator", "Processor", "Embedding", "Head", "Projector", "Router",
               "Config", "Pipeline", "Mixer", "Norm"]
VARS = ["x", "h", "out", "idx", "n", "scale", "value", "items", "result", "key", "shape",
        "dim", "size", "step", "offset", "count", "total", "weight", "ratio", "name"]
MEM_HELPERS = ["cleanup", "free_memory", "clear_memory", "flush", "gc_collect", "release_memory"]

MEMORY_MODULE = '''"""Memory utilities."""
import gc

import torch


def cleanup():
    """Collect garbage and return cached blocks to the driver."""
    gc.collect()
    torch.cuda.empty_cache()


def free_memory(*objs):
    for obj in objs:
        del obj
    cleanup()


def clear_memory(device=None):
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)


def flush():
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.ipc_collect()


def gc_collect():
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def release_memory(model=None):
    if model is not None:
        model.to("cpu")
    free_memory()


def log_memory(tag, logger=None):
    msg = f"{tag}: {torch.cuda.memory_allocated() / 2**20:.0f} MiB"
    if logger is not None:
        logger.info(msg)
    return msg
'''


class Gen:
    def __init__(self, rnd):
        self.r = rnd

    def size(self, big=False):
        r = self.r
        if big:
            return r.randint(1000, 3000) if r.random() < .5 else r.randint(200, 1000)
        x = r.uniform(0, sum(w for _, _, w in SIZE_BUCKETS))
        for lo, hi, w in SIZE_BUCKETS:
            if x < w:
                return r.randint(lo, hi - 1)
            x -= w
        return 100

    def ident(self):
        return f"{self.r.choice(VERBS)}_{self.r.choice(NOUNS)}"

    def stmt(self, ind, depth=0):
        """A few lines of ordinary code at indentation ind."""
        r, p = self.r, " " * ind
        v, w = r.choice(VARS), r.choice(VARS)
        k = r.randrange(9 if depth < 2 else 5)
        if k == 0:
            return [f"{p}{v} = {w} * {r.randint(2, 64)} + {r.randint(0, 9)}"]
        if k == 1:
            return [f"{p}{v} = {self.ident()}({w}, {r.choice(NOUNS)}={r.choice(['None', 'True', str(r.randint(1, 512))])})"]
        if k == 2:
            return [f"{p}{v} = [{w}[i] for i in range(len({w})) if i % {r.randint(2, 8)} == 0]"]
        if k == 3:
            return [f'{p}{v} = {{"{r.choice(NOUNS)}": {w}, "{r.choice(NOUNS)}": {r.randint(0, 99)}}}']
        if k == 4:
            return [f"{p}# {r.choice(VERBS)} the {r.choice(NOUNS)} before the {r.choice(NOUNS)}", f"{p}{v} = {w}"]
        if k == 5:
            return [f"{p}if {v} is None:"] + self.stmt(ind + 4, depth + 1) + [f"{p}else:"] + self.stmt(ind + 4, depth + 1)
        if k == 6:
            return [f"{p}for {v} in {w}:"] + self.stmt(ind + 4, depth + 1) + self.stmt(ind + 4, depth + 1)
        if k == 7:
            return [f"{p}with torch.no_grad():"] + self.stmt(ind + 4, depth + 1)
        return [f"{p}try:"] + self.stmt(ind + 4, depth + 1) + [f"{p}except (KeyError, ValueError) as err:", f"{p}    raise RuntimeError({v!r}) from err"]

    def function(self, ind=0, name=None, method=False, extra=()):
        r, p = self.r, " " * ind
        args = ["self"] if method else []
        args += [r.choice(VARS) for _ in range(r.randint(0, 3))]
        args = list(dict.fromkeys(args))
        out = [f"{p}def {name or self.ident()}({', '.join(args)}):",
               f'{p}    """{r.choice(VERBS).capitalize()} the {r.choice(NOUNS)}."""']
        for _ in range(r.randint(2, 9)):
            out += self.stmt(ind + 4)
        out += [p + "    " + line for line in extra]
        out.append(f"{p}    return {r.choice(VARS)}")
        return out

    def klass(self, methods=None, base="nn.Module"):
        r = self.r
        name = f"{r.choice(FAMILIES).capitalize()}{r.choice(CLASS_NOUNS)}{r.randint(0, 99)}"
        out = [f"class {name}({base}):", f'    """{r.choice(CLASS_NOUNS)} of the {r.choice(NOUNS)}."""', "",
               "    def __init__(self, dim=512, heads=8):", "        super().__init__()"]
        for _ in range(r.randint(2, 6)):
            out.append(f"        self.{r.choice(NOUNS)} = nn.Linear(dim, dim * {r.randint(1, 4)})")
        for m in methods if methods is not None else [None] * r.randint(1, 4):
            out.append("")
            out += m if isinstance(m, list) else self.function(4, m, method=True)
        return out

    def filler(self, lines, out):
        """Append ordinary blocks to out until it holds about lines lines."""
        r = self.r
        while len(out) < lines:
            out += ["", ""]
            out += self.klass() if r.random() < .3 else self.function()
        return out


def mention(g, name):
    """One way real code mentions a helper's name without calling the project's helper."""
    r = g.r
    v = r.choice(VARS)
    forms = {
        "train": [f"model.train()", f"{v} = split == \"train\"", f"self.{v} = {v}.train(mode=True)",
                  f"{v} = {g.ident()}({v}, train=True)", "# train and eval share the collator"],
        "forward": None,  # a module's forward method (below)
        "inference": [f"{v} = self.{g.ident()}({v}, inference=True)", f"with torch.inference_mode():\n        {v} = {v} + 1",
                      "# inference runs in half precision", f'mode = "inference"'],
        "flush": ["sys.stdout.flush()", f"{v}.flush()", f"self.flush = {v} > 0", "# flush the writer every epoch"],
        "cleanup": [f"self.cleanup()", f"cleanup = []", "# cleanup temporary files", f"atexit.register({v}.cleanup)"],
        "evaluate": [f"{v} = evaluate.load(\"accuracy\")", f"self.evaluate = {v}", "# evaluate every epoch"],
        "preprocess": [f"{v} = self.preprocess({v})", f"preprocess = {v}", "# preprocess images to latents"],
    }
    if name == "forward":
        return "forward"
    choices = forms.get(name) or [f"{v} = cfg.{name}", f"# {name} is left to the caller", f'"{name}"',
                                  f"self.{name} = {v}"]
    return r.choice(choices)


def ordinary(g, pkg, lines, names):
    r = g.r
    out = ['"""' + f"{r.choice(VERBS).capitalize()} {r.choice(NOUNS)} for {r.choice(FAMILIES)} models." + '"""',
           "import math", "import sys", "", "import torch", "import torch.nn as nn"]
    if r.random() < .7:
        out.append(f"from {pkg}.{r.choice(['models', 'data', 'utils'])}.{r.choice(FAMILIES)} import {r.choice(CLASS_NOUNS)}")
    extra = [n for n in names if n != "forward"]
    if "forward" in names:
        out += ["", ""] + g.klass(methods=[None, "forward"] + [None] * r.randint(0, 2))
    if extra:
        out += ["", ""] + g.function(extra=[mention(g, n) for n in extra])
    return g.filler(lines, out)


def direct(g, pkg, lines, top):
    """A large file that calls the cache itself, as pipelines and example scripts do."""
    r = g.r
    out = ['"""Pipeline and its training entry point."""', "import gc", "import os", "", "import torch",
           "import torch.nn as nn", f"from {pkg}.models.{r.choice(FAMILIES)} import {r.choice(CLASS_NOUNS)}", ""]
    if top == "examples":
        out.insert(1, f"# Run from the repository root: python examples/{r.choice(FAMILIES)}/train.py")
    body = []
    k = r.randrange(4)
    if k == 0:
        body += ["", "", f"def run_epoch(model, loader, optimizer, every={r.choice([1, 10, 50, 100])}):",
                 "    for step, batch in enumerate(loader):",
                 "        loss = model(**batch).loss", "        loss.backward()", "        optimizer.step()",
                 "        optimizer.zero_grad(set_to_none=True)", "        if step % every == 0:",
                 "            torch.cuda.empty_cache()", "    return loss"]
    elif k == 1:
        body += ["", "", "def validate(model, loader):", "    model.eval()", "    total = 0.0",
                 "    with torch.no_grad():", "        for batch in loader:", "            total += model(**batch).loss.item()",
                 "    del batch", "    gc.collect()", "    torch.cuda.empty_cache()", "    return total / max(1, len(loader))"]
    elif k == 2:
        body += ["", "", "def generate(model, prompts, batch_size=8):", "    outs = []",
                 "    for i in range(0, len(prompts), batch_size):", "        try:",
                 "            outs += model.generate(prompts[i:i + batch_size])",
                 "        except torch.cuda.OutOfMemoryError:", "            torch.cuda.empty_cache()",
                 "            outs += [model.generate([p])[0] for p in prompts[i:i + batch_size]]", "    return outs"]
    else:
        body += ["", "", "def offload(model):", '    model.to("cpu")', "    torch.cuda.empty_cache()", "    return model"]
    if top == "examples" and r.random() < .3:
        body += ["", ""] + g.klass(methods=[["    def forward(self, x):", "        y = self.net(x)",
                                             "        torch.cuda.empty_cache()", "        return y"]])
    half = max(0, lines - len(body) - len(out)) // 2
    g.filler(len(out) + half, out)
    out += body
    return g.filler(lines, out)


def import_helpers(g, pkg, rel_ok):
    """(import lines, call spelling) for one or two memory helpers, in the styles projects use."""
    r = g.r
    names = r.sample(MEM_HELPERS, r.randint(1, 2))
    k = r.randrange(5 if rel_ok else 4)
    if k == 0:
        return [f"from {pkg}.utils.memory import {', '.join(names)}"], names
    if k == 1:
        return [f"from {pkg}.utils import memory"], [f"memory.{n}" for n in names]
    if k == 2:
        return [f"import {pkg}.utils.memory as mem"], [f"mem.{n}" for n in names]
    if k == 3:
        return [f"from {pkg}.utils import {', '.join(n for n in names)}"], names
    return [f"from ..utils.memory import {', '.join(names)}"], names


def trainer(g, pkg, lines, rel_ok):
    r = g.r
    imports, calls = import_helpers(g, pkg, rel_ok)
    out = ['"""Trainer."""', "import torch", ""] + imports
    loop = ["", "", f"class {r.choice(FAMILIES).capitalize()}Trainer{r.randint(0, 999)}:",
            "    def __init__(self, model, optimizer, loader):",
            "        self.model, self.optimizer, self.loader = model, optimizer, loader", "",
            f"    def train(self, epochs={r.randint(1, 50)}):", "        self.model.train()",
            "        for epoch in range(epochs):", "            for step, batch in enumerate(self.loader):",
            "                loss = self.model(**batch).loss", "                loss.backward()",
            "                self.optimizer.step()", "                self.optimizer.zero_grad()"]
    where = r.randrange(3)
    if where == 0:
        loop += ["                " + calls[0] + "()"]
    elif where == 1:
        loop += [f"                if step % {r.choice([10, 100, 500])} == 0:", "                    " + calls[0] + "()"]
    else:
        loop += ["            " + calls[0] + "()"]
    if len(calls) > 1:
        loop += ["        " + calls[1] + "()"]
    loop.append("        return self.model")
    g.filler(len(out) + max(0, lines - len(out) - len(loop)) // 2, out)
    out += loop
    return g.filler(lines, out)


def caller(g, pkg, lines):
    r = g.r
    fn = r.choice(["train", "train", "evaluate", "inference"])
    out = ['"""Entry point."""', "import argparse", "", f"from {pkg}.{'inference' if fn == 'inference' else 'train'} import {fn}",
           "", "", "def main(argv=None):", "    ap = argparse.ArgumentParser()", '    ap.add_argument("--config")',
           "    args = ap.parse_args(argv)", f"    return {fn}(args.config, None, None, None)", ""]
    g.filler(lines - 3, out)
    return out + ["", 'if __name__ == "__main__":', "    main()"]


ENTRY = '''"""Training entry point."""
import torch

from {pkg}.utils.memory import cleanup, free_memory
from {pkg}.inference import inference


def train(config, model, loader, optimizer, epochs=3):
    model.train()
    for epoch in range(epochs):
        for batch in loader:
            loss = model(**batch).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    cleanup()
    return model


def evaluate(config, model, loader, metric=None):
    model.eval()
    with torch.no_grad():
        scores = [model(**batch).loss.item() for batch in loader]
    free_memory(model)
    return sum(scores) / max(1, len(scores))
'''

INFER = '''"""Inference."""
from {pkg}.utils.memory import flush


def inference(config, model, prompts, batch_size=4):
    outs = []
    for i in range(0, len(prompts), batch_size):
        outs += model.generate(prompts[i:i + batch_size])
    flush()
    return outs
'''


def project(root, pkg, seed, lines, files, src_layout):
    g = Gen(random.Random(seed))
    r = g.r
    base = os.path.join(root, pkg)
    code = os.path.join(base, "src", pkg) if src_layout else os.path.join(base, pkg)
    stats = {"files": 0, "lines": 0, "direct": 0, "trainers": 0, "callers": 0}
    stats.update({n: 0 for n in MENTION})

    def write(rel, lines_):
        text = "\n".join(lines_) + "\n"
        path = os.path.join(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        stats["files"] += 1
        stats["lines"] += text.count("\n")

    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, "pyproject.toml"), "w") as f:
        f.write(f'[project]\nname = "{pkg}"\nversion = "0.1.0"\n')
    write(os.path.join(code, "__init__.py"), [f'"""{pkg}."""', '__version__ = "0.1.0"'])
    write(os.path.join(code, "utils", "__init__.py"), ["from .memory import cleanup, free_memory, flush"])
    write(os.path.join(code, "utils", "memory.py"), MEMORY_MODULE.splitlines())
    write(os.path.join(code, "train.py"), g.filler(g.size(), ENTRY.format(pkg=pkg).splitlines()))
    write(os.path.join(code, "inference.py"), g.filler(g.size(), INFER.format(pkg=pkg).splitlines()))
    weights = [w for _, w in DIRS]
    i = 0
    while stats["lines"] < lines and (files is None or stats["files"] < files):
        i += 1
        top = r.choices([d for d, _ in DIRS], weights)[0]
        sub = r.choice(FAMILIES)
        if top in ("tests", "examples", "scripts"):
            d = os.path.join(base, top, sub) if top != "scripts" else os.path.join(base, top)
        else:
            d = os.path.join(code, top, sub)
        x = r.random()
        if x < DIRECT:
            stats["direct"] += 1
            text = direct(g, pkg, g.size(big=True), top)
        elif x < DIRECT + TRAINERS:
            stats["trainers"] += 1
            d = os.path.join(code, "trainers")
            text = trainer(g, pkg, g.size(), True)
        elif x < DIRECT + TRAINERS + CALLERS:
            stats["callers"] += 1
            text = caller(g, pkg, g.size())
        else:
            names = [n for n, p in MENTION.items() if r.random() < p]
            for n in names:
                stats[n] += 1
            text = ordinary(g, pkg, g.size(), names)
        write(os.path.join(d, f"{r.choice(VERBS)}_{r.choice(NOUNS)}_{i}.py"), text)
    for dirpath, _, _ in os.walk(code):
        init = os.path.join(dirpath, "__init__.py")
        if not os.path.exists(init):
            open(init, "w").close()
            stats["files"] += 1
    return stats


def generate(out, lines=1_000_000, files=None, seed=1, projects=0, scale=1):
    per = projects or max(1, round(lines / 250_000))
    total = {}
    for c in range(scale):
        for k in range(per):
            idx = c * per + k
            pkg = PKG_WORDS[idx % len(PKG_WORDS)] + (str(idx // len(PKG_WORDS)) if idx >= len(PKG_WORDS) else "")
            st = project(out, pkg, seed * 1_000_003 + c * 1009 + k,
                         lines // per, None if files is None else max(1, files // per), k % 2 == 0)
            for key, v in st.items():
                total[key] = total.get(key, 0) + v
    print(f"wrote {per * scale} projects ({scale}x {per}), {total['files']} files, {total['lines']} lines to {out}")
    print("  calling empty_cache directly: %d files; trainers importing memory helpers: %d; callers of train/evaluate/inference: %d"
          % (total["direct"], total["trainers"], total["callers"]))
    print("  ordinary files mentioning: " + ", ".join(f"{n} {total[n]}" for n in MENTION))
