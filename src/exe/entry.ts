/**
 * The single executable's entry without a startup snapshot (src/build/exe.mjs bundles it as one
 * CommonJS script; the cross-built targets use it, since a snapshot is made by the builder's own
 * Node and only runs on its platform): bin/rsi.js without the compile cache, which the code cache
 * Node embeds at build time replaces. src/exe/snapshot.ts is the entry of the host's target.
 *
 * `--version` is answered here, as bin/rsi.js answers it, before the rest of the script is
 * evaluated: the exe build turns the import() below into a require() of a lazily initialised
 * module, so none of main's modules run for it (round 4: 1.38× `node -e 0` when it loaded them).
 */
import pkg from '../../package.json' with { type: 'json' };
import { run } from './run.js';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) process.stdout.write(`${pkg.version}\n`);
else void import('../main.js').then(({ main }) => run(main));
