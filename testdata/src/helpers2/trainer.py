import torch
from accelerate.hooks import ModelHook
from transformers import Trainer


class TorchTracemalloc:
    def __init__(self, device_type="cuda"):
        self.device_module = getattr(torch, device_type)

    def measure(self, loader, model):
        for batch in loader:
            model(batch).backward()
            self.device_module.empty_cache()  # want "CL001 getattr\\(torch, \\.\\.\\.\\).empty_cache\\(\\)"


class FairseqTrainer:
    def train_step(self, samples):
        for s in samples:
            self.model(s).backward()
        self.optimizer.step()
        if self.num_updates % self.empty_cache_freq == 0:
            torch.cuda.empty_cache()


def fairseq_main(cfg, loader):
    trainer = FairseqTrainer(cfg)
    for samples in loader:
        trainer.train_step(samples)  # want "CL002 train_step\\(\\) runs periodically"


class MyTrainer(Trainer):
    def training_step(self, model, inputs, num_items_in_batch=None):
        loss = super().training_step(model, inputs, num_items_in_batch)
        torch.cuda.empty_cache()  # want "CL001 .*called by Hugging Face Trainer once per batch"
        return loss


def empty_cache():
    if torch.xpu.is_available():
        torch.xpu.empty_cache()
    elif torch.backends.mps.is_available():
        torch.mps.empty_cache()
    else:
        torch.cuda.empty_cache()


def train(model, opt, loader):
    for batch in loader:
        model(batch).loss.backward()
        opt.step()
        empty_cache()  # want "CL001 empty_cache\\(\\) .*via empty_cache\\(\\) -> torch.cuda.empty_cache"


def from_pretrained(path):
    model = torch.load(path)
    torch.cuda.empty_cache()
    return model


def load_all(paths):
    models = []
    for p in paths:
        models.append(from_pretrained(p))  # loading models: model_switch, silent
    return models


class DelegatingTrainer:
    # Called per batch by a CLI in another file, it hands the step to its task: the name
    # `train_step` is the evidence.
    def train_step(self, samples):
        logs = self.task.train_step(samples, self.model, self.optimizer)
        if self.cfg.empty_cache_freq > 0 and self.get_num_updates() % self.cfg.empty_cache_freq == 0:
            torch.cuda.empty_cache()  # want "CL002 torch.cuda.empty_cache\\(\\) runs periodically in `train_step`"
        return logs


def set_tensor_to_device(module, name, device, clear_cache=True):
    setattr(module, name, getattr(module, name).to(device))
    if clear_cache and device not in ("cpu", "meta"):
        torch.cuda.empty_cache()


class AlignHook(ModelHook):
    def pre_forward(self, module):
        for name in self.tensor_names:
            set_tensor_to_device(module, name, "cuda:0")  # want "CL001 set_tensor_to_device\\(\\) runs on every iteration of the loop at line 85"
        return module

    def post_forward(self, module):
        for name in self.tensor_names:
            set_tensor_to_device(module, name, "meta")  # "meta": the helper never clears
            set_tensor_to_device(module, name, "cuda:0", clear_cache=False)  # never clears
        return module
