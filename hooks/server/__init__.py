"""The server side: the ``pre-receive`` hook's runtime in a bare repository (``install --server``)."""
