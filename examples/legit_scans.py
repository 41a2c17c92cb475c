"""Use 2: large variable-size inputs. Medical scans of different resolutions: clear and
retry when one does not fit."""
import torch


def process_all(medical_scans, process):
    results = []
    for scan in medical_scans:
        try:
            results.append(process(scan))
        except torch.cuda.OutOfMemoryError:
            oom = True
        else:
            oom = False
        if oom:
            # Outside the except block, so the failed attempt's tensors are already freed.
            torch.cuda.empty_cache()
            results.append(process(scan))
    return results
