"""Mentions no needle, and nothing leads here: get_logger() is a function, not a class, so
`log = logs.get_logger()` constructs nothing whose methods need reading."""
import logging


def get_logger():
    return logging.getLogger("train")
