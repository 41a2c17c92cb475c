"""Gates and loops seen in real projects (fairseq, diffusers, DeepSpeed, Lightning)."""
import torch


def first_update_only(loader, model, opt, use_cuda):
    for i, batch in enumerate(loader):
        model(batch).loss.backward()
        opt.step()
        if use_cuda and opt.get_num_updates() == 0:
            torch.cuda.empty_cache()  # once in the whole run: silent
        if i == 0:
            torch.cuda.empty_cache()  # want "CL003 .*once per epoch in the step loop at line 6"


def denoise(unet, timesteps, thresholds, latents):
    for i, t in enumerate(timesteps):
        latents = unet(latents, t)
        if i in thresholds.keys():
            torch.cuda.empty_cache()  # want "CL002"


class OneBitAdam(torch.optim.Optimizer):
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if "worker_error" not in self.state[p]:
                    torch.cuda.empty_cache()  # one-time state init: silent
                    self.state[p]["worker_error"] = torch.zeros_like(p)
                torch.cuda.empty_cache()  # want "CL001 .*`step` is called by torch.optim once per batch"


def scale_batch_size(trainer, new_size, max_trials=25):
    for i in range(max_trials):
        torch.cuda.empty_cache()  # batch-size search: oom_retry, silent
        try:
            trainer.fit(batch_size=new_size)
            new_size *= 2
        except torch.cuda.OutOfMemoryError:
            new_size //= 2
            break
