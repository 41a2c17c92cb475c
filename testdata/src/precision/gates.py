"""Class 2: gates the call runs behind, wherever they are written."""
import torch

HIGH_VRAM = False


def enable_high_vram(args):
    if args.highvram:
        global HIGH_VRAM
        HIGH_VRAM = True


def sample(step, every):
    if step % every:
        return
    torch.cuda.empty_cache()


def maybe_clear(step):
    if step % 200 != 0:
        return
    torch.cuda.empty_cache()


def clear():
    torch.cuda.empty_cache()


def train(loader, model, opt, args, control, state, rank):
    current = None
    last = len(loader) - 1
    for step, batch in enumerate(loader):
        loss = model(batch)
        loss.backward()
        opt.step()
        sample(step, 10)  # want "CL002"
        maybe_clear(step)  # want "CL002 .*every 200 iterations"
        save_now = (step + 1) % args.save_every == 0
        if save_now:
            torch.cuda.empty_cache()  # want "CL002 .*save_now"
        if control.should_evaluate:
            torch.cuda.empty_cache()  # want "CL002 .*should_evaluate"
        if state.should_save:
            clear()  # want "CL002 .*should_save"
        bucket = batch.shape[1]
        if bucket != current:
            current = bucket
            torch.cuda.empty_cache()  # want "CL002 .*bucket != current"
        if step % 50 == 0 and step != last:
            torch.cuda.empty_cache()  # want "CL002 .*every 50 iterations"
        if step % 7 == 0:
            continue
        torch.cuda.empty_cache()  # want "CL001"
        if rank == 0:
            torch.cuda.empty_cache()  # want "CL001 .*rank == 0"
        if args.empty_cache_every_step:
            torch.cuda.empty_cache()  # want "CL001 .*when `args.empty_cache_every_step` is set"
        if torch.cuda.is_available():
            torch.cuda.empty_cache()  # want "CL001"
        if loss.item() > 10:
            torch.cuda.empty_cache()  # want "CL004 .*when `loss.item.. > 10`"


def evaluate(loader, model, opt, args):
    for i, batch in enumerate(loader):
        model(batch).backward()
        opt.step()
        if i % args.log_every:
            continue
        torch.cuda.empty_cache()  # want "CL002"


class RolloutBuffer:
    """A buffer drained one batch per step and refilled when empty: the clear after the refill
    runs once per refill, not every step; a guard that is never refilled changes nothing."""

    def __init__(self, queue):
        self.queue = queue
        self.buffered = []
        self.pending = []

    def next_batch(self):
        if self.buffered:
            return self.buffered.pop(0)
        batches = self.queue.get()
        self.buffered = batches[1:]
        torch.cuda.empty_cache()
        return batches[0]

    def drain(self):
        if self.pending:
            return self.pending.pop(0)
        torch.cuda.empty_cache()
        return None


def train_with_buffer(loader, model, opt, buf: RolloutBuffer, mode):
    for _ in loader:
        if mode == "train":
            batch = buf.next_batch()  # want "CL002 next_batch.. runs periodically .*not self.buffered .refilled below."
        model(batch).backward()
        opt.step()
        if model.training:
            buf.drain()  # want "CL001 drain.. runs on every iteration"


class ClearEveryStep:
    """A switch fixed when the object is built is a user's opt-in, named in CL001; state the
    object changes as it runs is not."""

    def __init__(self, after_step=False, history=None):
        self._after_step = after_step
        self._pending = False
        self._history = history

    def train(self, loader, model, opt):
        for batch in loader:
            model(batch).backward()
            opt.step()
            if self._after_step:
                torch.cuda.empty_cache()  # want "CL001 .*when `self._after_step` is set"
            if self._pending:
                torch.cuda.empty_cache()  # want "CL004 .*self._pending"
                self._pending = False
            if self._history:
                torch.cuda.empty_cache()  # want "CL004 .*self._history"
            self._history = [batch]


def train_with_latches(loader, model, opt, args):
    did_first_flush = False
    flush_next = False
    pending = False
    for step, batch in enumerate(loader):
        if flush_next:
            torch.cuda.empty_cache()  # want "CL002 .*flush_next"
            flush_next = False
        model(batch).backward()
        opt.step()
        if not did_first_flush:
            torch.cuda.empty_cache()  # runs once, the first time: silent
            did_first_flush = True
        if step % args.save_every == 0:
            flush_next = True
        if pending:
            torch.cuda.empty_cache()  # want "CL004 .*pending"
            pending = False
        if loss_spiked(batch):
            pending = True


def loss_spiked(batch):
    return batch is None


def train_with_local_switch(loader, model, opt, args, first_batch):
    use_ema = False
    if not args.no_ema and not args.quantize:
        use_ema = True
    big = False
    if first_batch.shape[0] > 64:
        big = True

    def run_epoch():
        for batch in loader:
            model(batch).backward()
            opt.step()
            if use_ema and args.ema_cpu:
                torch.cuda.empty_cache()  # want "CL001 .*when `use_ema and args.ema_cpu` is set"
            if big:
                torch.cuda.empty_cache()  # want "CL004 .*when `big`"

    run_epoch()


def cache_latents(batches, vae):
    for batch in batches:
        vae.encode(batch)
        if not HIGH_VRAM:
            torch.cuda.empty_cache()  # want "CL001 .*when `not HIGH_VRAM` is set"
