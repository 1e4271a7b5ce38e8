'use strict';
// What commander's `import childProcess from 'node:child_process'` gets in rsi's bundles
// (bundle.mjs, `lazyCommanderSpawn`): commander spawns only for subcommands that are executables,
// which rsi has none of, so node:child_process (and the net, dgram and pipe modules it loads) is
// loaded when it first spawns, not by every run.
module.exports = { spawn: (...args) => process.getBuiltinModule('node:child_process').spawn(...args) };
