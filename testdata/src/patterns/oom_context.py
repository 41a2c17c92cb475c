"""The retry the article recommends, done with a context manager that swallows the OOM:
`with ignore_oom(): return f(x)`, then clear and call f again. The clear after the block runs
only when the body raised and the manager suppressed an OOM; look-alikes beside them."""
import contextlib

import torch


@contextlib.contextmanager
def ignore_oom():
    try:
        yield
    except torch.cuda.OutOfMemoryError:
        pass


@contextlib.contextmanager
def log_oom():
    try:
        yield
    except torch.cuda.OutOfMemoryError:
        print("out of memory")
        raise


class SwallowOOM:
    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return exc_type is torch.cuda.OutOfMemoryError


def forward_retry(model, batch):
    with ignore_oom():
        return model(batch)
    torch.cuda.empty_cache()
    return model(batch)


def forward_retry_class(model, batch):
    with SwallowOOM():
        return model(batch)
    torch.cuda.empty_cache()
    return model(batch)


def forward_retry_suppress(model, batch):
    with contextlib.suppress(torch.cuda.OutOfMemoryError):
        return model(batch)
    torch.cuda.empty_cache()
    return model(batch)


def forward_body_falls_through(model, batch):
    with ignore_oom():
        out = model(batch)
    torch.cuda.empty_cache()
    return out


def forward_manager_reraises(model, batch):
    with log_oom():
        return model(batch)
    torch.cuda.empty_cache()
    return model(batch)


def train(loader, model, opt):
    for batch in loader:
        forward_retry(model, batch).backward()
        forward_retry_class(model, batch).backward()
        forward_retry_suppress(model, batch).backward()
        opt.step()


def train_look_alikes(loader, model, opt):
    for batch in loader:
        forward_body_falls_through(model, batch).backward()  # want "CL001 forward_body_falls_through.. runs on every iteration"
        forward_manager_reraises(model, batch).backward()  # want "CL001 forward_manager_reraises.. runs on every iteration"
        opt.step()


# CL005's recommended retry: the handler only sets a flag, whatever its name, and the clear
# and the retry come after the try statement.
def train_flagged_retry(loader, model, opt):
    for batch in loader:
        failed = False
        try:
            loss = model(batch).sum()
        except torch.cuda.OutOfMemoryError:
            failed = True
        if failed:
            torch.cuda.empty_cache()
            loss = model(batch).sum()
        loss.backward()
        opt.step()


def train_flag_on_any_error(loader, model, opt):
    for batch in loader:
        failed = False
        try:
            loss = model(batch).sum()
        except Exception:
            failed = True
        if failed:
            torch.cuda.empty_cache()  # want "CL004 torch.cuda.empty_cache.. runs in the step loop .* when `failed`"
            loss = model(batch).sum()
        loss.backward()
        opt.step()


# A block that swallows the OOM after the clear says nothing about it: the clear runs first.
def forward_clear_before(model, batch):
    torch.cuda.empty_cache()
    with ignore_oom():
        return model(batch)
    return model(batch)


def train_clear_before(loader, model, opt):
    for batch in loader:
        forward_clear_before(model, batch).backward()  # want "CL001 forward_clear_before.. runs on every iteration"
        opt.step()
