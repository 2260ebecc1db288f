"""The push guard in git's transport: ``git-remote-agw``.

Install rewrites every push URL of the repository's remotes (and of the hosts they point at) to
``agw::<url>`` with ``url.<agw::url>.pushInsteadOf``, and every other URL (remotes added later) to
``agw::agw::<url>`` with a catch-all rule (``installer/setup/pushguard.py``), so git hands every push to
this remote helper, with ``--no-verify`` and with ``core.hooksPath=/dev/null`` alike. It refuses a
push that would land on a protected branch (the pre-push hook's rule,
``backstop.prepush.refuse_protected``: the first push of a project to a remote with no branch at
all is the one exception, judged from the remote's own advertisement) and
forwards everything else to the real transport, git's own (``native``) or the URL's remote helper
(``proxy``), so an allowed push behaves as it would without the guard.
"""
