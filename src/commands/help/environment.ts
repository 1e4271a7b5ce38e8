/**
 * Every environment variable rsi reads, for `rsi help environment`: its own (and the conventions it
 * honours) first, then what it reads of the system and of other tools. test/unit/environment.test.ts
 * greps the sources for every read and fails on one missing here, or on one listed here that
 * nothing reads. Names are compared without case (the proxy variables are read in both cases).
 */
export const ENVIRONMENT: readonly (readonly [string, string])[] = [
  ['RSI_PROFILE', 'the profile (as --profile)'],
  ['RSI_BASE_URL', 'the service base address (as --base-url)'],
  ['RSI_PROJECT', 'the default project of commands that take one (as `rsi config set project`)'],
  ['RSI_TOKEN', 'an access token used as is (CI): no keychain, no refresh'],
  ['RSI_MCP_TOKEN', "the same for the service's MCP server"],
  ['RSI_CLIENT_SECRET', 'the secret of a client registered beforehand (`rsi login --client-id`)'],
  ['RSI_CONFIG_DIR', 'the config folder'],
  ['RSI_CREDENTIAL_STORE', 'keychain (default) or file'],
  ['RSI_DEBUG', '1: as --debug'],
  ['RSI_HTTP_TIMEOUT', 'as --http-timeout'],
  ['RSI_TIMEOUT', "as --timeout: the whole command's wall-clock bound (90s, 5m, 1h; 0 = none)"],
  ['RSI_TIME', 'as --time'],
  ['RSI_PAGER, PAGER', 'the pager for long tables (cat: none)'],
  ['RSI_NO_PROMPT', '1: never ask, even at a terminal'],
  ['RSI_MAX_PAGES', 'the most pages one walk (--all, --paginate) reads (default 10000)'],
  ['RSI_PAGES_IN_FLIGHT', 'pages fetched at once by a walk (default: adapts)'],
  ['RSI_NO_SYSTEM_CA', "1: never read the operating system's certificate store"],
  ['RSI_NO_UPDATE_NOTIFIER', '1: no update notice and no update check'],
  ['NO_UPDATE_NOTIFIER', 'any value: the same'],
  ['CI, BUILD_NUMBER, RUN_ID', 'set (CI not "false"): a CI run, no update notice and no walk progress'],
  ['RSI_ERROR_FORMAT', 'json: each error as one JSON line on stderr (code, exit, message, hint)'],
  ['RSI_SANDBOX_ADMIN_SECRET', "`rsi sandbox`'s admin secret (as --admin-secret)"],
  ['NO_COLOR', 'set and non-empty: no colour'],
  ['FORCE_COLOR', 'colour even in a pipe (0: never)'],
  ['CLICOLOR, CLICOLOR_FORCE', 'CLICOLOR=0: no colour; CLICOLOR_FORCE=1: colour even in a pipe'],
  ['HTTPS_PROXY, HTTP_PROXY', 'the proxy for https://, for http:// (either case)'],
  ['ALL_PROXY', 'the proxy for both (either case)'],
  ['NO_PROXY', 'where not to use it (either case)'],
  ['BROWSER', 'the command that opens web pages'],
];

/** What rsi reads of the system and of other tools, and why. */
export const ALSO_READ: readonly (readonly [string, string])[] = [
  ['npm_config_registry', "the update check's registry (any case), else the npmrc files':"],
  ['npm_config_userconfig', 'the user npmrc (default ~/.npmrc)'],
  ['npm_config_globalconfig', 'the global npmrc (default <prefix>/etc/npmrc)'],
  ['npm_config_prefix', "npm's prefix"],
  ['XDG_CONFIG_HOME', 'the config folder is $XDG_CONFIG_HOME/rsi (absolute paths only)'],
  ['XDG_CACHE_HOME', 'the cache folder is $XDG_CACHE_HOME/rsi (absolute paths only)'],
  ['HOME, LOCALAPPDATA', 'the home folder; the cache folder on Windows'],
  ['XDG_RUNTIME_DIR', 'where the single executable unpacks the keychain addon'],
  ['LANG, LC_ALL, LC_CTYPE', 'UTF-8 or not: block characters or ASCII'],
  ['TERM', 'dumb: no colour'],
  ['PATH, LESS, LV', 'finding the pager; its defaults (LESS=FRX)'],
  ['DISPLAY, WAYLAND_DISPLAY', 'whether a browser can open here (Linux)'],
  ['WSL_DISTRO_NAME', 'the same, under WSL'],
  ['SSH_CONNECTION', 'a remote session: no browser, the address is printed'],
  ['SSH_CLIENT, SSH_TTY', 'the same'],
  ['REQUEST_METHOD', 'set (under CGI): HTTP_PROXY is ignored (httpoxy)'],
  ['USER, LOGNAME', 'your user name, in the fix for a folder you do not own'],
  ['MANWIDTH', 'the width `rsi help --man` lays pages out to when not at a terminal'],
  ['NODE_COMPILE_CACHE, NODE_DISABLE_COMPILE_CACHE', "set: the folder for compiled code (rsi's too), or none"],
  ['NODE_OPTIONS', "Node's options; compiled code is kept apart for each"],
];
