#!/usr/bin/env bash
# Fetches the test suites other projects wrote (jq's tests/*.test, curl's NO_PROXY unit cases, Go's
# httpproxy table) from Debian's source archive — one of the registries CI reaches — checks each
# tarball against its pinned SHA-256, and unpacks only the files the tests read into
# test/outside/vendor/ (git-ignored: none of it is committed; each file keeps its upstream licence,
# which is unpacked beside it). .ci/run calls this before `npm test`; without it the tests that
# read these suites skip with a message (a failure under RSI_REQUIRE_SYSTEM_TESTS=1).
#
# Usage: test/outside/fetch.sh            (idempotent; a suite already unpacked is kept)
set -euo pipefail
vendor="$(cd "$(dirname "$0")" && pwd)/vendor"
mirror="${RSI_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
mkdir -p "$vendor"

# suite NAME POOL_PATH SHA256 MEMBER...: downloads $mirror/POOL_PATH, verifies it, and unpacks the
# MEMBERs (paths or globs inside the tarball, its top folder stripped) into vendor/NAME.
suite() {
  local name=$1 pool=$2 sum=$3
  shift 3
  if [[ -f "$vendor/$name/.complete" ]]; then return; fi
  local tmp
  tmp=$(mktemp -d)
  echo "fetch.sh: $name from $mirror/$pool"
  curl -fsSL --retry 3 -o "$tmp/src" "$mirror/$pool"
  echo "$sum  $tmp/src" | sha256sum -c --quiet
  rm -rf "${vendor:?}/$name"
  mkdir -p "$vendor/$name"
  tar -xf "$tmp/src" -C "$vendor/$name" --strip-components=1 --wildcards "$@"
  rm -rf "$tmp"
  touch "$vendor/$name/.complete"
}

# jq 1.8.2 (MIT; COPYING holds jq's and its bundled parts' notices): tests/*.test, run through
# `rsi api … --jq` by test/outside/jq-suite.test.ts.
suite jq-1.8.2 pool/main/j/jq/jq_1.8.2.orig.tar.gz \
  71b8d6e8f5fe81f6c6d0d110e3892251f6ce76ed095abd315e26e6e1193af3af \
  '*/COPYING' '*/tests/*.test'

# Go's golang.org/x/net 0.58.0 (BSD-3-Clause; LICENSE): http/httpproxy/proxy_test.go holds the
# proxyForURLTests rows and the NO_PROXY host list (UseProxyTests) that test/outside/proxy-tables.test.ts
# runs through rsi's proxy selection; proxy.go beside it is what those rows test. 0.58.0, not sid's
# newest: the archive's pool serves no file for 0.60.0 and later (404), though Sources lists them.
suite golang-x-net-0.58.0 pool/main/g/golang-golang-x-net/golang-golang-x-net_0.58.0.orig.tar.xz \
  e37f866a2d0c9118546e2ecfe7d5b0de2ba470f569d38fc4660beb620536f0de \
  '*/LICENSE' '*/http/httpproxy/*.go'

# curl 8.21.0 (the curl licence, MIT-like; COPYING): tests/unit/unit1614.c holds the NO_PROXY
# cases (proxy_check_noproxy) and the CIDR ones that test/outside/proxy-tables.test.ts runs
# through rsi's proxy selection. 8.21.0 for the same reason: 8.23.0's tarball is not served yet.
suite curl-8.21.0 pool/main/c/curl/curl_8.21.0.orig.tar.gz \
  d9b327997999045a24cda50f3983e69e51c516bd8be6ef9842fc7f99135e33bb \
  '*/COPYING' '*/tests/unit/unit1614.c'
