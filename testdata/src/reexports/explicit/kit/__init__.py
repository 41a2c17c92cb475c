"""The package re-exports one name of a submodule, which re-exports it from another."""
from .api import release_all
