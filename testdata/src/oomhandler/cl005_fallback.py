"""CL005 for a fallback inside an OOM handler: the same inputs computed another way while
the failed attempt's memory is still held. A log line naming the inputs is no fallback."""
import logging

import torch
import torch.nn.functional as F

logger = logging.getLogger(__name__)


def _tiled_attention(query, key, value, tile):
    return torch.cat([F.scaled_dot_product_attention(q, key, value) for q in query.split(tile, dim=1)], dim=1)


def attention(query, key, value, tile=256):
    try:
        return F.scaled_dot_product_attention(query, key, value)
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        return _tiled_attention(query, key, value, tile)  # want "CL005 runs `_tiled_attention..` on the inputs of `F.scaled_dot_product_attention..`"


def attention_logged(query, key, value):
    try:
        return F.scaled_dot_product_attention(query, key, value)
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        logger.warning("attention ran out of memory for %s and %s", query, key)
        raise
