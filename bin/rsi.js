#!/usr/bin/env node
// undici parses HTTP with llhttp compiled to WebAssembly. V8 starts it on its baseline compiler
// (Liftoff) and, once a function has run a little, recompiles it with TurboFan in the background;
// a CLI then waits for that compile at exit and peaks ~35 MB higher, for code it will not run
// again. A large tiering budget keeps llhttp on Liftoff for the life of one command (measured in
// docs/performance.md: less CPU for one request and for a 5,400-link --all walk alike). Set before
// any WebAssembly is compiled; the flag is not one V8 marks "for testing".
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--wasm-tiering-budget=1000000000');
const { main } = await import('../dist/main.js');

process.exitCode = await main();
