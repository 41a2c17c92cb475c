"""The package re-exports its modules wholesale: this file names no helper."""
from .memory_utils import *
