"""Class 5: a function that accelerate's find_executable_batch_size re-runs after an OOM
clears once per attempt (an OOM retry); a step loop inside it still clears every step."""
import torch
from accelerate.utils import find_executable_batch_size


def train(loader_for, model_for, starting):
    @find_executable_batch_size(starting_batch_size=starting)
    def inner_training_loop(batch_size):
        torch.cuda.empty_cache()
        model, opt = model_for(batch_size)
        for batch in loader_for(batch_size):
            model(batch).sum().backward()
            opt.step()
            torch.cuda.empty_cache()  # want "CL001 torch.cuda.empty_cache.. runs on every iteration"

    inner_training_loop()


def not_decorated(batch_size, model_for):
    torch.cuda.empty_cache()
    return model_for(batch_size)
