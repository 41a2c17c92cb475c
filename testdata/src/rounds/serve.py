"""flush_all is a function only once kit/jobs.py is parsed, in the second round."""
import torch

from kit.jobs import flush_all


def warm_up():
    torch.cuda.empty_cache()


def serve(requests, model, pool):
    for request in requests:
        model(request)
        pool.submit(flush_all)  # want "CL001 submit.. runs on every iteration|CL001 flush_all.. runs on every iteration"
