class BaseExtract:
    def extract(self, path):
        return path
