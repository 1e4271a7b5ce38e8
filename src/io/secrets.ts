/**
 * Every secret rsi holds in one run (the tokens it loaded, received, was handed or was given in
 * the environment, and whatever the `--debug` trace met under a secret name), so that nothing it
 * writes for a person repeats one: stderr (messages, hints, JSON error lines, the trace) passes
 * `scrub`, whoever put the token in the text (a service echoing it in an error included). stdout
 * is left alone: `rsi auth token` prints a token there on purpose.
 */
export const REDACTED = '[redacted]';
/** Short values (a "code" of "1") are not worth scrubbing and would garble every line. */
const MIN_SECRET_LENGTH = 6;

export class Secrets {
  private readonly known = new Set<string>();

  readonly learn = (secret: string | undefined): void => {
    const value = secret?.trim();
    if (value && value.length >= MIN_SECRET_LENGTH && value !== REDACTED) this.known.add(value);
  };

  /** Every known secret replaced, whatever shape the text has. */
  scrub(text: string): string {
    let scrubbed = text;
    for (const secret of this.known) if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(REDACTED);
    return scrubbed;
  }
}
