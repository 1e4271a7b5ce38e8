// What the bundle gives commander for `node:child_process` (src/build/bundle.mjs). commander
// requires it as it loads, for executable subcommands (`rsi-foo` files beside the script), which
// rsi does not have; loading it also loads dgram and the socket list, ~2.7 ms of every start on
// Node 24. The one function commander calls is passed through to Node's module, loaded on first
// use; test/unit/http2-on-demand.test.ts reads commander's source to keep it the only one.
'use strict';
module.exports = {
  spawn: (...args) => process.getBuiltinModule('node:child_process').spawn(...args),
};
