"""A remote named by its name, or by a URL or path equal to a configured remote's URL."""
import os


def _same_location(a, b, cwd):
    if a == b:
        return True
    pa, pb = _local_path(a, cwd), _local_path(b, cwd)
    if pa is None or pb is None:
        return _strip(a) == _strip(b)
    return os.path.realpath(pa) == os.path.realpath(pb)


def _strip(url):
    url = url.rstrip("/")
    return url[:-4] if url.endswith(".git") else url


def _local_path(url, cwd):
    if url.startswith("file://"):
        return url[len("file://"):]
    if "://" in url or (":" in url.split("/", 1)[0] and not os.path.isabs(url)):
        return None  # a URL or an scp-like host:path
    return os.path.join(cwd or os.getcwd(), url)


def resolve(word, remotes, cwd=None):
    """The configured remotes ``word`` names: [its name], or every remote whose URL equals the URL
    or path ``word`` (``[]`` for an anonymous URL). ``remotes``: {name: url}."""
    if word in remotes:
        return [word]
    return [name for name, url in sorted(remotes.items()) if url and _same_location(word, url, cwd)]
