import torch
from transformers import Trainer, TrainerCallback


class ClearCallback(TrainerCallback):
    def on_step_end(self, args, state, control, **kwargs):
        torch.cuda.empty_cache()  # want "CL001 .*Hugging Face Trainer"

    def on_epoch_end(self, args, state, control, **kwargs):
        torch.cuda.empty_cache()  # want "CL003"


class MyTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        torch.cuda.empty_cache()  # want "CL001"
        return super().compute_loss(model, inputs, return_outputs)


class NotACallback:
    def on_step_end(self):
        torch.cuda.empty_cache()
