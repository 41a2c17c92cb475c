from .base_extract import BaseExtract
from .base_train import BaseTrain
