#!/bin/sh
# Build git 2.47 from Debian trixie's source package into a cache outside the clone and print the
# directory holding its `git`. The suite runs once against the system git and once against this one.
#   AGENTGUARD_GIT_CACHE  where the build is kept (default ~/.cache/agentguard-git)
set -eu
version="1:2.47.3-0+deb13u1"
cache="${AGENTGUARD_GIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentguard-git}"
prefix="$cache/2.47"
if [ -x "$prefix/bin/git" ] && "$prefix/bin/git" --version | grep -q '^git version 2\.47\.'; then
	echo "$prefix/bin"
	exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
src=/etc/apt/sources.list.d/agentguard-trixie-src.sources
if [ ! -f "$src" ]; then
	# Source packages only, from the mirror the machine already uses; nothing binary comes from trixie.
	mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"${mirror:-http://deb.debian.org/debian}" | $sudo tee "$src" >/dev/null
fi
$sudo apt-get update -qq >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	dpkg-dev make gcc libz-dev libcurl4-gnutls-dev libexpat1-dev gettext libpcre2-dev >&2
work="$cache/src"
rm -rf "$work"
mkdir -p "$work"
(cd "$work" && apt-get source -qq --download-only "git=$version" >&2 && dpkg-source -x git_*.dsc git >&2)
echo "building git $version into $prefix (log: $cache/build.log)" >&2
# git's `all` also builds its own test programs (t/helper's test-tool, the unit tests) and the fuzzers,
# ~110 of its ~520 objects and ~30 links against libgit.a, none of them installed: emptied here. What
# `install` copies is compiled and linked by the same commands either way (`make -n` of both, compared).
# CFLAGS: git's default without its -g: debug information nobody here reads is a quarter of the build's CPU
# (this build, -j2, same machine: 175 s with -g, 130 s without) and no code (the same sections' sizes).
if ! make -C "$work/git" -j"$(nproc)" prefix="$prefix" CFLAGS="-O2 -Wall" NO_TCLTK=1 NO_PERL=1 NO_PYTHON=1 \
	USE_LIBPCRE2=1 INSTALL_SYMLINKS=1 TEST_PROGRAMS_NEED_X= UNIT_TEST_PROGRAMS= CLAR_TEST_PROG= \
	FUZZ_OBJS= FUZZ_PROGRAMS= all install >"$cache/build.log" 2>&1; then
	tail -n 40 "$cache/build.log" >&2
	exit 1
fi
rm -rf "$work"
"$prefix/bin/git" --version >&2
echo "$prefix/bin"
