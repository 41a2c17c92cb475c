"""Class 1: a helper keeps its own loop whatever its callers do."""
import torch


def segment(frame):
    return frame


def track(frames):
    for frame in frames:
        segment(frame)
        torch.cuda.empty_cache()  # want "CL004 .*loop at line 10"


def main():
    track(load())  # called once: the loop in track still runs per frame


def load():
    return []


def free_all():
    torch.cuda.empty_cache()  # a helper body: judged at its call sites


def run_once():
    free_all()  # once: silent


def warm(devices_seen):
    for i in range(torch.cuda.device_count()):
        with torch.cuda.device(i):
            torch.cuda.empty_cache()  # a loop over devices is one clearing: silent


def infer(loader, model, runner):
    for batch in loader:
        model.generate(batch)  # Hugging Face's generate, whatever the project defines: silent
        runner.run(batch)  # an unknown object's run: silent


def release():
    torch.cuda.empty_cache()


def stream(loader, model, pool):
    for batch in loader:
        model(batch)
        pool.submit(release)  # want "CL001 submit.. runs on every iteration|CL001 release.. runs on every iteration"
