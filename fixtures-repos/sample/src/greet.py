class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        return "Hello, " + self.name

    def close(self):
        pass


class Writer:
    def __init__(self, path):
        self.path = path

    def close(self):
        pass
