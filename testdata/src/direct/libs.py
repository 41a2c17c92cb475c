import gc

from accelerate import Accelerator
from accelerate.utils import release_memory
from accelerate.utils.memory import clear_device_cache
from lightning.pytorch.utilities.memory import garbage_collection_cuda


def train(loader, model, optimizer):
    accelerator = Accelerator()
    for step, batch in enumerate(loader):
        loss = model(batch)
        accelerator.backward(loss)
        optimizer.step()
        release_memory(model)  # want "CL001 accelerate.utils.release_memory\\(\\) runs on every iteration"
        clear_device_cache()  # want "CL001 accelerate.utils.memory.clear_device_cache"
        accelerator.free_memory()  # want "CL001 accelerator.free_memory"
        garbage_collection_cuda()  # want "CL001 lightning.pytorch.utilities.memory.garbage_collection_cuda"
        gc.collect()
