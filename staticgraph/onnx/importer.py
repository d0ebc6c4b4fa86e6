def import_graph(path): raise NotImplementedError
