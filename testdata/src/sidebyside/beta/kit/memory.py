import gc


def tidy():
    gc.collect()
