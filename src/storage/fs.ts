/**
 * The file calls the stores make, as promises. Reads are synchronous under the promise: the
 * files are small and local, and a start that only reads a config file (or finds none) then
 * neither loads node:fs/promises (its FileHandle machinery and readline, ~1.5 ms on Node 24) nor
 * starts libuv's thread pool (docs/performance.md, round 3). Writes keep node:fs's callbacks.
 */
import {
  chmod as fsChmod,
  lstatSync,
  mkdir as fsMkdir,
  type PathLike,
  readFileSync,
  rename as fsRename,
  rm as fsRm,
  statSync,
  type Stats,
  writeFile as fsWriteFile,
} from 'node:fs';
import { promisify } from 'node:util';

export const readFile = async (path: PathLike, encoding: 'utf8'): Promise<string> => readFileSync(path, encoding);
export const stat = async (path: PathLike): Promise<Stats> => statSync(path);
export const lstat = async (path: PathLike): Promise<Stats> => lstatSync(path);
export const writeFile = promisify(fsWriteFile);
export const rename = promisify(fsRename);
export const chmod = promisify(fsChmod);
export const mkdir = promisify(fsMkdir);
export const rm = promisify(fsRm);
