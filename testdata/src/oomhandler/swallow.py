"""Broad handlers that clear the cache but retry nothing: logging and returning, re-raising,
skipping the item, falling back to other work. CL006 is about a retry hiding the real error;
none of these retries, so none is reported."""
import logging

import torch


def log_and_return(model, batch):
    try:
        return model(batch)
    except Exception as err:
        torch.cuda.empty_cache()
        logging.warning("failed: %s", err)
        return None


def skip_item(model, items):
    out = []
    for item in items:
        try:
            out.append(model(item))
        except Exception:
            torch.cuda.empty_cache()
            continue
    return out


def fall_back(model, small_model, batch):
    try:
        return model(batch)
    except Exception:
        torch.cuda.empty_cache()
        return small_model(batch)


def give_up_in_loop(model, batch):
    for _ in range(3):
        try:
            return model(batch)
        except Exception:
            torch.cuda.empty_cache()
            raise


def retry_in_loop(model, batch):
    for _ in range(3):
        try:
            result = model(batch)
        except Exception:  # want "CL006 `except Exception` catches more than OOM: it calls torch.cuda.empty_cache\\(\\) and retries"
            torch.cuda.empty_cache()
        else:
            return result
    return None
