// src/io/json.ts: integers beyond 2^53 come out as the service sent them, and the characters a
// terminal hides or obeys are written as \u escapes, the JSON staying valid and its value the same.
import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../src/io/json.js';

describe('parseJson + stringifyJson', () => {
  it('prints integers beyond 2^53 exactly as sent, and leaves digits in strings and fractions alone', () => {
    const text =
      '{"a":12345678901234567891,"b":"12345678901234567891","c":1.12345678901234567891,"d":-98765432109876543210,"n":[9007199254740993,1]}';
    const value = parseJson(text) as { a: number };
    expect(typeof value.a).toBe('number');
    expect(stringifyJson(value)).toBe(
      '{"a":12345678901234567891,"b":"12345678901234567891","c":1.1234567890123457,"d":-98765432109876543210,"n":[9007199254740993,1]}',
    );
    expect(stringifyJson(value, 2)).toContain('"a": 12345678901234567891,');
  });

  it('never prints one literal for another that rounds to the same double', () => {
    parseJson('[11111111111111111111]');
    const v = parseJson('[11111111111111111112]');
    expect(stringifyJson(v)).toBe(JSON.stringify(v));
  });

  it('a string that looks like the marker stays a string', () => {
    const v = parseJson('{"a":22222222222222222221,"b":"rsi-exact-x:5"}');
    expect(JSON.parse(stringifyJson(v))).toEqual({ a: Number('22222222222222222221'), b: 'rsi-exact-x:5' });
  });

  it('escapes C1, bidi, zero-width, BOM, soft hyphen and tag characters as \\u, with the same value', () => {
    const s = 'a\u0085b\u009bc\u202ed\u2066e\u200bf\u200dg\ufeffh\u00adi\u{e0067}j\u2028k\u007f';
    const json = stringifyJson({ s });
    expect(json).toBe('{"s":"a\\u0085b\\u009bc\\u202ed\\u2066e\\u200bf\\u200dg\\ufeffh\\u00adi\\udb40\\udc67j\\u2028k\\u007f"}');
    expect(/[^\x20-\x7e]/.test(json)).toBe(false);
    expect(JSON.parse(json)).toEqual({ s });
  });

  it('keeps ordinary non-ASCII text as it is', () => {
    expect(stringifyJson({ s: 'café 漢字 🚀 👨‍👩‍👧'.replace(/\u200d/g, '') })).toBe('{"s":"café 漢字 🚀 👨👩👧"}');
  });
});

describe('the --debug redactor', () => {
  it('keeps __proto__ and constructor members as data, and big integers exact', async () => {
    const { redactBody } = await import('../../src/http/redact.js');
    const body = '{"__proto__":{"polluted":1},"constructor":{"name":"x"},"access_token":"secret-token-1","n":12345678901234567891}';
    const shown = redactBody(body, 'application/json');
    expect(shown).toBe('{"__proto__":{"polluted":1},"constructor":{"name":"x"},"access_token":"[redacted]","n":12345678901234567891}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
