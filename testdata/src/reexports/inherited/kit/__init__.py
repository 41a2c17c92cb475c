from .pools import *
