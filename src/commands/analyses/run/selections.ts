/** The selections `rsi analyses run` takes: `--select` words, `--selections` JSON, each pair once. */
import type { Selection } from '../../../client/schemas.js';
import { UsageError } from '../../../errors.js';

export function parseSelect(value: string): Selection {
  const parts = value.split(':');
  // A bare word is a signal name (or a signal keyword id), resolved through the project's signals.
  if (parts.length === 1 && value.trim() !== '') return { keyword_id: '', signal_keyword_id: value.trim() };
  if (parts.length !== 2 || parts[0]!.trim() === '' || parts[1]!.trim() === '') {
    throw new UsageError(`--select must be KEYWORD_ID:SIGNAL_KEYWORD_ID (got "${value}")`);
  }
  return { keyword_id: parts[0]!.trim(), signal_keyword_id: parts[1]!.trim() };
}

/**
 * Reads --selections JSON. Accepted: an array of objects with `keyword_id` and `signal_keyword_id`
 * (extra fields ignored, so Signal objects work), a SignalList (`{signals: [...]}`) or a RunAnalyses
 * body (`{selections: [...]}`): whatever `rsi signals --json` or a jq filter over it produces.
 */
export function parseSelectionsJson(text: string, from: string): Selection[] {
  const where = from === '-' ? 'stdin' : from;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new UsageError(`--selections: ${where} is not valid JSON`);
  }
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    const obj = data as Record<string, unknown>;
    data = Array.isArray(obj.selections) ? obj.selections : Array.isArray(obj.signals) ? obj.signals : data;
  }
  if (!Array.isArray(data)) {
    throw new UsageError(
      `--selections: ${where} must hold an array of {keyword_id, signal_keyword_id}, a SignalList or a RunAnalyses body`,
    );
  }
  return data.map((item: unknown, i) => {
    const o = (item ?? {}) as Record<string, unknown>;
    if (typeof o.keyword_id !== 'string' || o.keyword_id === '' || typeof o.signal_keyword_id !== 'string' || o.signal_keyword_id === '') {
      throw new UsageError(`--selections: item ${i} in ${where} needs string keyword_id and signal_keyword_id`);
    }
    return { keyword_id: o.keyword_id, signal_keyword_id: o.signal_keyword_id };
  });
}

export function dedupe(selections: Selection[]): Selection[] {
  const seen = new Set<string>();
  return selections.filter((s) => {
    const key = `${s.keyword_id}\u0000${s.signal_keyword_id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
