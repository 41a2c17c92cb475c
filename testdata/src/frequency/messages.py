"""What a finding says: what runs how often, why the loop is a step loop, what one call costs."""
import torch


def train_step(model, batch, optimizer):
    loss = model(batch).mean()
    loss.backward()
    optimizer.step()


def train(model, loader, optimizer):
    for batch in loader:
        optimizer.zero_grad()
        loss = model(batch).mean()
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()  # want "CL001 torch\\.cuda\\.empty_cache\\(\\) runs on every iteration of the step loop at line 12 \\(`for batch in loader`\\), which runs `loss\\.backward\\(\\)` at line 15; one call costs 5\\.4-19\\.6 ms on NVIDIA H200 \\(measured with a transformer and ResNet-50\\)$"


def train_through_helper(model, loader, optimizer):
    for batch in loader:
        train_step(model, batch, optimizer)
        torch.cuda.empty_cache()  # want "CL001 .*step loop at line 21 \\(`for batch in loader`\\), which runs `train_step\\(\\)` at line 22 \\(it runs `model\\(\\.\\.\\.\\)`\\); one call costs 5\\.4-19\\.6 ms on NVIDIA H200 \\(measured with a transformer and ResNet-50\\)$"


def reinforce(policy, env, optimizer, num_iterations):
    # One iteration is a whole rollout plus an update: the call runs once per update.
    for iteration in range(num_iterations):
        rollouts = [env.rollout(policy) for _ in range(16)]
        loss = policy.loss(rollouts)
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()  # want "CL001 .*step loop at line 28 \\(`for iteration in range\\(num_iterations\\)`\\), which runs `loss\\.backward\\(\\)` at line 31; one call costs 5\\.4-19\\.6 ms on NVIDIA H200 \\(measured with a transformer and ResNet-50\\)$"


def by_name(loader, process):
    for batch in loader:
        process(batch)
        torch.cuda.empty_cache()  # want "CL001 .*step loop at line 37 \\(`for batch in loader`\\), which iterates batches or steps, judged by its names; one call costs 5\\.4-19\\.6 ms on NVIDIA H200 \\(measured with a transformer and ResNet-50\\)$"


def opt_in(model, loader, optimizer, args):
    for batch in loader:
        model(batch).mean().backward()
        optimizer.step()
        if args.empty_cache_each_step:
            torch.cuda.empty_cache()  # want "CL001 .*step loop at line 43 \\(`for batch in loader`\\), which runs `model\\(\\)\\.mean\\(\\)\\.backward\\(\\)` at line 44 when `args\\.empty_cache_each_step` is set; one call costs 5\\.4-19\\.6 ms on NVIDIA H200 \\(measured with a transformer and ResNet-50\\)$"


def switch_models(names, load):
    for name in names:
        model = load(name)
        model.run()
        del model
        torch.cuda.empty_cache()


def unknown_loop(items, args):
    for item in items:
        item.save()
        if args.clear_cache:
            torch.cuda.empty_cache()  # want "CL004 .*loop at line 59 \\(`for item in items`\\) when `args\\.clear_cache` is set, a loop cachelint cannot classify as a step or epoch loop; one call costs 5\\.4-19\\.6 ms on NVIDIA H200 \\(measured with a transformer and ResNet-50\\)$"
