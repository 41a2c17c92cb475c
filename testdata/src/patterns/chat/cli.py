"""The chat's terminal I/O: found through the abstract class it implements."""
from .inference import ChatIO


class SimpleChatIO(ChatIO):
    def read_message(self, role):
        return input(f"{role}: ")
