"""Mentions no needle: read only because a parameter's annotation names
its class, whose method reaches the helper through an attribute."""
from offload import Offloader


class Net:
    def __init__(self, blocks):
        self.blocks = blocks
        self.offloader = Offloader()

    def swap_blocks(self):
        self.offloader.prepare(self.blocks)

    def __call__(self, x):
        return x
