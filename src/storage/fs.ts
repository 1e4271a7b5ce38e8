/**
 * The promise forms of the file calls the stores make, over node:fs's callbacks. node:fs/promises
 * loads its FileHandle machinery and readline with it (~1.5 ms on Node 24) at every start that only
 * reads a config file or finds none (docs/performance.md, round 3); node:fs is loaded anyway.
 */
import * as fs from 'node:fs';
import { promisify } from 'node:util';

export const readFile = promisify(fs.readFile);
export const writeFile = promisify(fs.writeFile);
export const rename = promisify(fs.rename);
export const chmod = promisify(fs.chmod);
export const mkdir = promisify(fs.mkdir);
export const rm = promisify(fs.rm);
export const stat = promisify(fs.stat);
export const lstat = promisify(fs.lstat);
