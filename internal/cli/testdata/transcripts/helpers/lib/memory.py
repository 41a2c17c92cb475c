"""Helpers that empty the cache, directly or through each other."""
import torch


def free_gpu_memory():
    torch.cuda.empty_cache()


def clear_devices(devices):
    for device in devices:
        with torch.cuda.device(device):
            torch.cuda.empty_cache()
