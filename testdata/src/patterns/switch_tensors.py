"""A model offloaded or loaded weight by weight beside a once-run call (issue 13, class 1):
each parameter's storage swapped, each state entry moved; and look-alikes: a batch's tensors
copied to the device, weights cast to another dtype or aliased into a flat buffer, a per-step
loop that moves blocks in and out."""
import torch


def offload_params(modules):
    for module in modules:
        for _, param in module.named_parameters():
            param.data = param.data.to("cpu", non_blocking=True)
    torch.cuda.empty_cache()


def free_flat(tensors, buffer):
    for offset, tensor in enumerate(tensors):
        buffer[offset].copy_(tensor)
        tensor.data = torch.empty(0, dtype=tensor.dtype, device=tensor.device)
    torch.cuda.empty_cache()


def offload_state(state_dict):
    for key in state_dict:
        state_dict[key] = state_dict[key].cpu()
    torch.cuda.empty_cache()


def load_optimizer(optimizer, device):
    values = optimizer.state.values()
    for v in values:
        v["exp_avg"] = v["exp_avg"].to(device, non_blocking=True)
    torch.cuda.empty_cache()


def prepare(batch, device):
    for key in batch:
        batch[key] = batch[key].to(device)  # a batch onto the device: no model moved
    torch.cuda.empty_cache()


def warm(inputs, device):
    for x in inputs:
        x = x.to("cpu")  # a copy bound to a name, thrown away: nothing moved
    torch.cuda.empty_cache()


def upcast(model):
    for param in model.parameters():
        param.data = param.data.to(torch.float32)  # a cast: the weights stay on the device
    torch.cuda.empty_cache()


def flatten(params, flat):
    for p, q in zip(params, flat):
        p.data = q.data  # aliased into the flat buffer, on the same device
    torch.cuda.empty_cache()


def train(model, blocks, loader, optimizer):
    for batch in loader:  # every step: blocks offloaded inside the work, no switch
        loss = model(batch)
        loss.backward()
        optimizer.step()
        for block in blocks:
            for p in block.parameters():
                p.data = p.data.to("cpu")
        torch.cuda.empty_cache()  # want "CL001.*step loop at line 60"


def place(model, manager, device):
    for name, child in model.named_children():
        if manager is not None:
            manager.move(child, device)
        else:
            child.to(device)  # the model placed child by child, once
        torch.cuda.empty_cache()


def train_swap(model, block, loader, optimizer, offload):
    for batch in loader:  # every step: a block moved in a branch is offloading inside the work
        loss = model(batch)
        loss.backward()
        optimizer.step()
        if offload:
            block.to("cuda")
        torch.cuda.empty_cache()  # want "CL001.*step loop at line 80"


def cycle(blocks, device, swap):
    if swap:
        for block in blocks:
            block.to(device)  # blocks moved in a loop, even in a branch: offloading, no switch
    torch.cuda.empty_cache()
