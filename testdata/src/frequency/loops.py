import time

import torch
from tqdm import tqdm


def explicit_loops(train_loader, model, optimizer, args, max_steps, eval_steps, items):
    for batch in train_loader:
        torch.cuda.empty_cache()  # want "CL001 .*step loop at line 8 \\(`for batch in train_loader`\\)"

    step = 0
    while step < max_steps:
        step += 1
        torch.cuda.empty_cache()  # want "CL001 .*step loop at line 12 \\(`while step < max_steps`\\)"

    for i in range(args.max_steps):
        torch.cuda.empty_cache()  # want "CL001 .*line 16"

    for i, batch in enumerate(tqdm(train_loader)):
        torch.cuda.empty_cache()  # want "CL001 .*line 19"

    for x in items:
        out = model(x)
        out.sum().backward()
        torch.cuda.empty_cache()  # want "CL001 .*line 22 \\(`for x in items`\\)"

    for step, batch in enumerate(train_loader):
        if step % 100 == 0:
            torch.cuda.empty_cache()  # want "CL002 .*runs every 100 iterations of the step loop at line 27.*gated by `step % 100 == 0`"
        if (step + 1) % args.clear_every == 0:
            torch.cuda.empty_cache()  # want "CL002 .*periodically.*period unknown"
        if step in eval_steps:
            torch.cuda.empty_cache()  # want "CL002 .*periodically"
        if time.time() - last_clear > 60:
            torch.cuda.empty_cache()  # want "CL002"
        if torch.cuda.memory_reserved() > 0.9 * total:
            torch.cuda.empty_cache()  # want "CL002"
        if step % 100 != 0:
            torch.cuda.empty_cache()  # want "CL001"
        if step % 100 == 0:
            pass
        else:
            torch.cuda.empty_cache()  # want "CL001"
        if args.empty_cache:
            torch.cuda.empty_cache()  # want "CL001"


def epochs(train_loader, model, optimizer, num_epochs):
    for epoch in range(num_epochs):
        for batch in train_loader:
            loss = model(batch)
            loss.backward()
            optimizer.step()
        torch.cuda.empty_cache()  # want "CL003 .*once per epoch in the epoch loop at line 49"


def unknown(names, process):
    for name in names:
        process(name)
        torch.cuda.empty_cache()  # want "CL004 .*loop at line 58 \\(`for name in names`\\).*cannot classify"


def once_at_end(model):
    model.train()
    torch.cuda.empty_cache()


def oom_retry_in_loop(train_loader, model):
    for batch in train_loader:
        try:
            model(batch).backward()
        except torch.cuda.OutOfMemoryError:
            torch.cuda.empty_cache()
