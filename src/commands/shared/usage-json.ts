/**
 * A usage error as commander reports it (`rsi: …` and maybe `hint: …`, from program.ts), turned
 * into the one JSON line `RSI_ERROR_FORMAT=json` asks for; unchanged otherwise.
 */
import { ExitCode, errorJsonLine, errorsAsJson } from '../../errors.js';

export function usageText(text: string, env: Readonly<Record<string, string | undefined>>): string {
  if (!errorsAsJson(env)) return text;
  const message = /^rsi: (.*)$/m.exec(text)?.[1] ?? text.trim();
  const hint = /^hint: (.*)$/m.exec(text)?.[1];
  return errorJsonLine({ code: 'usage', exit: ExitCode.usage, message, hint });
}
