// PLACEHOLDER: replaced by the auth layer.
import type { Session, GlobalOptions } from '../commands/context.js';
import type { Clock, Io } from '../io/io.js';
import { NotSignedInError } from '../errors.js';

export interface OpenSessionOptions {
  globals: GlobalOptions;
  env: Readonly<Record<string, string | undefined>>;
  io: Io;
  clock: Clock;
  signal: AbortSignal;
  version: string;
}

export async function openSession(_options: OpenSessionOptions): Promise<Session> {
  throw new NotSignedInError('not signed in');
}
