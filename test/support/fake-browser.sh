#!/bin/sh
# $BROWSER for tests: what test/support/fake-browser.mjs does (follow the authorization URL's
# redirects, which against a sandbox started with --auto-approve reach rsi's loopback callback;
# never through a proxy; RSI_TEST_HOSTS=name=address,… resolves the names only a test's proxy
# knows; NODE_EXTRA_CA_CERTS is the CA to trust), with curl: a process of a few milliseconds of
# CPU where Node's start is a fifth of a second, once per sign-in, about 150 a suite
# (docs/testing.md). Without curl, fake-browser.mjs on the node first on PATH.
command -v curl >/dev/null 2>&1 || exec node "$(dirname "$0")/fake-browser.mjs" "$@"
url=$1
set -- -q -sS -L --max-redirs 20 --noproxy '*' -o /dev/null
if [ -n "$NODE_EXTRA_CA_CERTS" ]; then set -- "$@" --cacert "$NODE_EXTRA_CA_CERTS"; fi
old_ifs=$IFS
IFS=,
for pair in $RSI_TEST_HOSTS; do
  [ -n "$pair" ] && set -- "$@" --connect-to "${pair%%=*}::${pair#*=}:"
done
IFS=$old_ifs
exec curl "$@" -- "$url"
