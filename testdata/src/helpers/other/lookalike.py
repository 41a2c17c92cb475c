"""A user function named like a helper that never reaches torch."""


def free_gpu_memory():
    return "nothing to free"


def loop(loader):
    for batch in loader:
        batch.backward()
        free_gpu_memory()
