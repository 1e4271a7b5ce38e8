/**
 * The file calls the stores make, as promises. Reads are synchronous under the promise: the
 * files are small and local, and a start that only reads a config file (or finds none) then
 * neither loads node:fs/promises (its FileHandle machinery and readline, ~1.5 ms on Node 24) nor
 * starts libuv's thread pool (docs/performance.md, round 3). Writes keep node:fs's callbacks.
 */
import * as fs from 'node:fs';
import { promisify } from 'node:util';

export const readFile = async (path: fs.PathLike, encoding: 'utf8'): Promise<string> => fs.readFileSync(path, encoding);
export const stat = async (path: fs.PathLike): Promise<fs.Stats> => fs.statSync(path);
export const lstat = async (path: fs.PathLike): Promise<fs.Stats> => fs.lstatSync(path);
export const writeFile = promisify(fs.writeFile);
export const rename = promisify(fs.rename);
export const chmod = promisify(fs.chmod);
export const mkdir = promisify(fs.mkdir);
export const rm = promisify(fs.rm);
