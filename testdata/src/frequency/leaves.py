"""A clear after which its block always leaves the loop runs at most once per run of it: the
loops around the loop it leaves say how often. `continue` goes round again, and a raise that
a try inside the loop catches does not leave it."""
import torch


def stop_on_bad_batch(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        if batch is None:
            torch.cuda.empty_cache()  # then `break`: once per run, silent
            break


def clean_up_on_failure(loader, model, opt):
    for batch in loader:
        try:
            model(batch).sum().backward()
            opt.step()
        except Exception:
            torch.cuda.empty_cache()  # then re-raised: the run ends, silent
            raise


def skip_bad_batch(loader, model, opt):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        if batch is None:
            torch.cuda.empty_cache()  # want "CL004 .*when `batch is None`"
            continue


def caught_inside(loader, model, opt, check):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        try:
            if check(batch):
                torch.cuda.empty_cache()  # want "CL004"
                raise ValueError(batch)
        except ValueError:
            pass


def per_epoch_break(loader, model, opt, epochs):
    for epoch in range(epochs):
        for batch in loader:
            model(batch).sum().backward()
            opt.step()
            if batch is None:
                torch.cuda.empty_cache()  # want "CL003 .*once per epoch"
                break


def respawn_and_retry(loader, model, opt, respawned):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        try:
            opt.zero_grad()
        except RuntimeError:
            if respawned(torch.cuda.empty_cache()):  # want "CL004"
                continue  # goes round again: not left after the call
            raise


def drain_then_stop(loader, model, opt, lock, queues):
    for batch in loader:
        model(batch).sum().backward()
        opt.step()
        if batch is None:
            with lock:
                torch.cuda.empty_cache()  # the continue below goes round the queue loop only; then `break`: silent
                for q in queues:
                    if q.empty():
                        continue
                    q.get()
            break
