/**
 * The single executable's entry without a startup snapshot (src/build/exe.mjs bundles it as one
 * CommonJS script; the cross-built targets use it, since a snapshot is made by the builder's own
 * Node and only runs on its platform): bin/rsi.js without the compile cache, which the code cache
 * Node embeds at build time replaces. src/exe/snapshot.ts is the entry of the host's target.
 */
import { main } from '../main.js';
import { run } from './run.js';

run(main);
