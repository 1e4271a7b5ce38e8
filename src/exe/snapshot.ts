/**
 * The single executable's entry when its blob holds a V8 startup snapshot (src/build/exe.mjs, the
 * host's target): `node --build-sea` runs this script once at build time and saves the heap it
 * leaves. What every command needs is therefore already evaluated when the binary starts: the
 * bundle's modules (commander, zod, the command modules), the API stack and the reply schemas
 * (docs/performance.md, round 4). What cannot live in a snapshot is only touched after it: the
 * main function below reads argv, env and stdio when the binary runs; the keychain addon, sockets,
 * timers, jq's worker and `open` load on first use, as in bin/rsi.js.
 */
import v8 from 'node:v8';
import * as S from '../client/schemas.js';
import { main } from '../main.js';
import { run } from './run.js';

/**
 * Modules a command loads on demand that hold no state of the machine they run on (no env, no
 * handle, no file read at load): evaluated here, so that the snapshot has them. The build has no
 * dynamic import (every `import()` is an esbuild-initialised module), so these are the same module
 * instances the commands reach later.
 */
async function preload(): Promise<void> {
  await Promise.all([
    import('../auth/credentials.js'),
    import('../auth/session.js'),
    import('../client/client.js'),
    import('../http/network.js'),
    import('../commands/shared/scripting.js'),
    import('../commands/shared/flag-schemas.js'),
  ]);
  // The reply schemas are memoised builders: built once here rather than at each run's first parse.
  for (const build of Object.values(S)) if (typeof build === 'function') build();
}

if (v8.startupSnapshot.isBuildingSnapshot()) {
  preload().then(
    () => v8.startupSnapshot.setDeserializeMainFunction(() => run(main)),
    (error: unknown) => {
      process.stderr.write(`snapshot: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
} else {
  run(main);
}
