import torch

import built
import logs
import net as nets


def train(model: nets.Net, loader, opt):
    for batch in loader:
        model.swap_blocks()  # want "CL001 swap_blocks.. runs on every iteration"
        model(batch).backward()
        opt.step()
    torch.cuda.empty_cache()


def finetune(blocks, loader, opt):
    net = built.Net2(blocks)
    log = logs.get_logger()
    for batch in loader:
        log.info("step")
        net.swap_blocks()  # want "CL001 swap_blocks.. runs on every iteration"
        net(batch).backward()
        opt.step()
