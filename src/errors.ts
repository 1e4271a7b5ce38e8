/**
 * Every failure the CLI reports is a CliError with a stable string `code` and the contract's exit
 * code. `main.ts` is the one place that turns them into `rsi: …` / `hint: …` lines; nobody matches
 * on message text.
 */

export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  notSignedIn: 3,
  forbidden: 4,
  notFound: 5,
  conflict: 6,
  confirmationRequired: 7,
  unavailable: 8,
  timedOut: 9,
  analysisFailed: 10,
  batchItemsFailed: 11,
  /** A local file or stream could not be written: disk full, read-only folder, no permission. */
  io: 12,
  interrupted: 130,
  /** Stopped by SIGTERM: 128 + 15, as a shell reports a process that signal ended. */
  terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface CliErrorOptions {
  hint?: string;
  cause?: unknown;
}

export class CliError extends Error {
  readonly code: string = 'unexpected';
  readonly exitCode: ExitCode = ExitCode.unexpected;
  readonly hint: string | undefined;

  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

/** A reply the spec does not allow, or a bug. Exit 1. */
export class UnexpectedReplyError extends CliError {
  override readonly code = 'unexpected_reply';
}

/** A reply larger than rsi accepts (decompressed); never retried. Exit 1. */
export class ResponseTooLargeError extends CliError {
  override readonly code = 'response_too_large';
}

/**
 * A body that does not decode as its Content-Encoding says (a mislabelled page, gzip cut short), or
 * an encoding rsi cannot undo: the bytes arrived, so not a network failure; never retried. Exit 1.
 */
export class UndecodableReplyError extends CliError {
  override readonly code = 'undecodable_reply';
}

/** Bad or missing flag or argument, value out of range, ambiguous name. Exit 2. */
export class UsageError extends CliError {
  override readonly code: string = 'usage';
  override readonly exitCode = ExitCode.usage;
}

/** A name matched no item or several; lists the candidates. Exit 2. */
export class AmbiguousNameError extends UsageError {
  override readonly code = 'ambiguous_name';
  constructor(
    message: string,
    readonly candidates: readonly string[],
    options: CliErrorOptions = {},
  ) {
    super(message, options);
  }
}

/** A project name that matches none of the caller's projects, or several: `project` is the name as given. */
export class ProjectNameError extends AmbiguousNameError {
  constructor(
    message: string,
    readonly project: string,
    candidates: readonly string[],
    options: CliErrorOptions = {},
  ) {
    super(message, candidates, options);
  }
}

/** No credentials, 401, refresh refused. Exit 3. */
export class NotSignedInError extends CliError {
  override readonly code: string = 'not_signed_in';
  override readonly exitCode = ExitCode.notSignedIn;
  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, { hint: 'run `rsi login`', ...options });
  }
}

/**
 * The sign-in was found in a copy of the file it was saved in (storage/credentials.ts, `savedHere`):
 * its refresh token is not spent here, so the original keeps working. Exit 3.
 */
export class SignInCopiedError extends NotSignedInError {
  override readonly code = 'sign_in_copied';
}

/**
 * The service refused a refresh token that came from a hand-over line: the line was used twice
 * (or the sign-in was revoked), and the service may have signed out every copy. Exit 3.
 */
export class HandOverSpentError extends NotSignedInError {
  override readonly code = 'hand_over_spent';
}

/** Missing scope (named) or not a member / not an editor. Exit 4. */
export class ForbiddenError extends CliError {
  override readonly code = 'forbidden';
  override readonly exitCode = ExitCode.forbidden;
  constructor(
    message: string,
    /** The missing scope(s), space-separated, when the refusal names them. */
    readonly scope?: string,
    options: CliErrorOptions = {},
    /** Which sign-in lacks it: the API's (default) or the MCP server's (`rsi login --resource mcp`). */
    readonly resource: 'api' | 'mcp' = 'api',
  ) {
    super(message, options);
  }
}

/** Exit 5. */
export class NotFoundError extends CliError {
  override readonly code = 'not_found';
  override readonly exitCode = ExitCode.notFound;
}

/** Which of the spec's two causes of a 409 the service's text names, if either. */
export type ConflictReason = 'setup' | 'selection' | 'unclear';

/** What a conflict is about, as data: the hint is built from it (src/client/client.ts `conflictError`). */
export interface ConflictFacts {
  /** The service's own text, when it sent one. */
  text: string | undefined;
  /** `POST /projects/…/analyses`, for a message without the service's text. */
  what: string;
  reason: ConflictReason;
  /** The project the request was about: its id, and its name as the person gave it, once known. */
  project?: { id: string; name?: string | undefined } | undefined;
  /** Where the project's scoring setup is finished. */
  setupUrl?: string | undefined;
}

/** Scoring setup missing, or selection does not match a finished scan. Exit 6. */
export class ConflictError extends CliError {
  override readonly code = 'conflict';
  override readonly exitCode = ExitCode.conflict;
  constructor(
    message: string,
    readonly setupUrl?: string,
    options: CliErrorOptions = {},
    /** The conflict as data, when it came from the API (the hint was made from it). */
    readonly facts?: ConflictFacts,
  ) {
    super(message, options);
  }
}

/** The server asked for confirmation and nobody can answer. Nothing was run. Exit 7. */
export class ConfirmationRequiredError extends CliError {
  override readonly code = 'confirmation_required';
  override readonly exitCode = ExitCode.confirmationRequired;
}

/**
 * The person answered no to a confirmation. Not success: a script chaining on `&&` must not go on
 * as if the work started. Exit 7, as when nobody could be asked: in both, nothing ran because no
 * one said yes.
 */
export class DeclinedError extends CliError {
  override readonly code = 'declined';
  override readonly exitCode = ExitCode.confirmationRequired;
}

/** Network failure, timeout, 5xx. Exit 8. */
export class ServiceUnavailableError extends CliError {
  override readonly code = 'unavailable';
  override readonly exitCode = ExitCode.unavailable;
  /** The request timed out (as opposed to failing at once); retried at most once. */
  timedOut = false;
  constructor(
    message: string,
    readonly status?: number,
    options: CliErrorOptions = {},
  ) {
    super(message, options);
  }
}

/**
 * The command's `--timeout` (its whole wall-clock bound) ran out in the step it names: the reason
 * the Context's deadline aborts the command's signal with. Exit 9.
 */
export class CommandTimeoutError extends CliError {
  override readonly code = 'timeout';
  override readonly exitCode = ExitCode.timedOut;
}

/** What reading the service back found about a write whose reply was lost. */
export type WriteOutcome = 'done' | 'not_done' | 'unknown';

/**
 * A write whose reply was lost (closed, cut, timed out, interrupted), told with what reading the
 * service back found (src/ops/writes.ts): `not_done` keeps the failure's own exit code, `unknown`
 * is exit 8 with `check`, the command that tells; `done` is only an error when a signal or the
 * deadline stopped the command (its exit code, 130/143 or 9, with the outcome).
 */
export class WriteOutcomeError extends CliError {
  override readonly code: string;
  override readonly exitCode: ExitCode;
  constructor(
    message: string,
    readonly outcome: WriteOutcome,
    options: CliErrorOptions & { code: string; exitCode: ExitCode; check?: readonly string[] | undefined },
  ) {
    super(message, options);
    this.code = options.code;
    this.exitCode = options.exitCode;
    this.check = options.check;
  }
  /** The words of the command that shows whether the write happened (unknown outcomes). */
  readonly check: readonly string[] | undefined;
}

/** `--watch` / `--wait` reached `--timeout`. Exit 9. */
export class WatchTimeoutError extends CliError {
  override readonly code = 'watch_timeout';
  override readonly exitCode = ExitCode.timedOut;
}

/** Scoring finished but at least one analysis failed. Exit 10. */
export class AnalysisFailedError extends CliError {
  override readonly code = 'analysis_failed';
  override readonly exitCode = ExitCode.analysisFailed;
}

/** A batch (`-` input) finished, but some items failed; each had its error line and row. Exit 11. */
export class BatchItemsFailedError extends CliError {
  override readonly code = 'batch_items_failed';
  override readonly exitCode = ExitCode.batchItemsFailed;
}

/** Ctrl-C. Exit 130. */
export class InterruptedError extends CliError {
  override readonly code = 'interrupted';
  override readonly exitCode: ExitCode;
  /** `signal`: what stopped rsi; SIGTERM exits 143 (128 + 15), anything else 130, as shells have it. */
  constructor(message = 'interrupted', options: CliErrorOptions & { signal?: NodeJS.Signals } = {}) {
    super(message, options);
    this.exitCode = options.signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
  }
}

/**
 * An error as one JSON line, for `RSI_ERROR_FORMAT=json` (docs/scripting.md has its schema): a
 * loader reads `code` and `exit` instead of matching the text. `input` names a batch's item.
 */
export function errorJsonLine(error: { code: string; exit: number; message: string; hint?: string | undefined; input?: string }): string {
  const record: Record<string, unknown> = { code: error.code, exit: error.exit, message: error.message, hint: error.hint ?? null };
  if (error.input !== undefined) record.input = error.input;
  return `${JSON.stringify(record)}\n`;
}

/** Whether errors go to stderr as JSON lines (`RSI_ERROR_FORMAT=json`) rather than `rsi: …` text. */
export function errorsAsJson(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.RSI_ERROR_FORMAT?.trim().toLowerCase() === 'json';
}

/** A local write failed for a reason of the machine's (disk full, read-only, permission). Exit 12. */
export class IoError extends CliError {
  override readonly code = 'io_error';
  override readonly exitCode = ExitCode.io;
}

const IO_REASONS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'input/output error',
};

/**
 * The IoError for a failed write whose errno is the machine's doing (a full disk, a read-only
 * folder), naming what could not be written; undefined for any other failure.
 */
export function ioErrorFrom(error: unknown, what: string): IoError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = code === undefined ? undefined : IO_REASONS[code];
  if (reason === undefined) return undefined;
  const hint =
    code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG'
      ? 'free some space, or write somewhere else, and run again'
      : 'make it writable, or choose a writable place (RSI_CONFIG_DIR for the config folder), and run again';
  return new IoError(`cannot write ${what}: ${reason} (${code})`, { hint, cause: error });
}

/** The OS keychain or the credentials file cannot be used. Exit 1, with what to do about it. */
export class CredentialStoreError extends CliError {
  override readonly code: string = 'credential_store';
}

/**
 * No OS keychain can be reached (no D-Bus session, no Secret Service, locked, no answer): the
 * credentials are missing as far as this run can tell, so exit 3, and the hint names the file store.
 */
export class KeychainUnavailableError extends CredentialStoreError {
  override readonly code = 'keychain_unavailable';
  override readonly exitCode = ExitCode.notSignedIn;
}

/** A config file that cannot be read or does not validate. Exit 1, naming the file. */
export class ConfigError extends CliError {
  override readonly code = 'config';
}
