import torch


def sample(model, prompts):
    model.offloader.set_forward_only(True)  # a flag set on an object named offloader
    torch.cuda.empty_cache()  # no model moves: no switch
    for p in prompts:
        model(p)


def park(pipe):
    pipe.offload_all()
    torch.cuda.empty_cache()  # the call's own name offloads: a switch
