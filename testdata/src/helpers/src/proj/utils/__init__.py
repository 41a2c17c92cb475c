from .memory import free_gpu_memory as free_all  # re-exported under another name
