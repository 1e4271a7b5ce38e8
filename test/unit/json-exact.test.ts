// src/io/json.ts: every number comes out as the service spelled it (issue 30), any depth prints,
// and the characters a terminal hides or obeys are written as \u escapes, the JSON staying valid
// and its value the same.
import { describe, expect, it } from 'vitest';
import { keepLiterals, numberText, parseJson, stringifyJson, writeDeep } from '../../src/io/json.js';

describe('parseJson + stringifyJson', () => {
  it('prints integers beyond 2^53 exactly as sent, and leaves digits in strings and fractions alone', () => {
    const text =
      '{"a":12345678901234567891,"b":"12345678901234567891","c":1.12345678901234567891,"d":-98765432109876543210,"n":[9007199254740993,1]}';
    const value = parseJson(text) as { a: number };
    expect(typeof value.a).toBe('number');
    expect(stringifyJson(value)).toBe(
      '{"a":12345678901234567891,"b":"12345678901234567891","c":1.12345678901234567891,"d":-98765432109876543210,"n":[9007199254740993,1]}',
    );
    expect(stringifyJson(value, 2)).toContain('"a": 12345678901234567891,');
  });

  it('never prints one literal for another that rounds to the same double', () => {
    parseJson('[11111111111111111111]');
    const v = parseJson('[11111111111111111112]');
    // By position each is exact; a copy (which has lost the position) falls back to JavaScript's.
    expect(stringifyJson(v)).toBe('[11111111111111111112]');
    expect(stringifyJson([...(v as number[])])).toBe(JSON.stringify(v));
  });

  it('keeps every spelling: trailing zeros, exponents, negative zero, tiny and long fractions, 17 digits', () => {
    const text =
      '{"a":1.10,"b":1e2,"c":-0,"d":0.0000001,"e":0.10000000000000000555,"f":13911860366432393,"g":[1.0, 2.50E-3 ,-0.0],"h":9E999,"i":"1.10","j":1.5}';
    const value = parseJson(text) as Record<string, unknown>;
    expect(value.a).toBe(1.1);
    expect(value.b).toBe(100);
    expect(stringifyJson(value)).toBe(
      '{"a":1.10,"b":1e2,"c":-0,"d":0.0000001,"e":0.10000000000000000555,"f":13911860366432393,"g":[1.0,2.50E-3,-0.0],"h":9E999,"i":"1.10","j":1.5}',
    );
    expect(stringifyJson(value, 2)).toContain('"a": 1.10,\n');
    expect(JSON.parse(stringifyJson(value))).toEqual(JSON.parse(text));
  });

  it('a double spelled two ways in one reply keeps each at its place; out of its place only a lossy literal is kept', () => {
    const value = parseJson('{"a":3.30,"b":3.3,"c":[4.40],"d":44444444444444444444}') as { a: number; c: number[]; d: number };
    expect(stringifyJson(value)).toBe('{"a":3.30,"b":3.3,"c":[4.40],"d":44444444444444444444}');
    expect(numberText(value.a)).toBe('3.3');
    // A respelling (`4.40`) out of its place would turn up in numbers rsi makes itself: not kept.
    expect(numberText(value.c[0]!)).toBe('4.4');
    expect(stringifyJson({ x: value.c[0] })).toBe('{"x":4.4}');
    // A literal a double cannot hold is kept by value too, while it is the only spelling seen.
    expect(numberText(value.d)).toBe('44444444444444444444');
    expect(stringifyJson({ x: value.d })).toBe('{"x":44444444444444444444}');
    // A copy that carries the places keeps the respellings.
    const picked = { a: value.a };
    keepLiterals(value, picked);
    expect(stringifyJson(picked)).toBe('{"a":3.30}');
  });

  it('a reply without such a literal is parsed as JSON.parse parses it', () => {
    const text = '{"id":"6b107f5c-3e45-4c1e-8e00-0123456789ab","t":"2026-01-01T00:00:00.000Z","n":[1,2.5,-3,1e-7]}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
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

describe('any depth (issue 30, item 5)', () => {
  const DEPTH = 100_000;
  it('a 100,000-deep array and object print exactly (compact, even when indented), lossy literals kept', () => {
    // Deeper than the reviver goes, literals are kept by value only: those a double cannot hold.
    const text = `${'['.repeat(DEPTH)}55555555555555555555${']'.repeat(DEPTH)}`;
    const value = parseJson(text);
    expect(stringifyJson(value)).toBe(text);
    expect(stringifyJson(value, 2)).toBe(text);
    const objects = `${'{"a":'.repeat(DEPTH)}[1,2.5,"x\\u202e",{}]${'}'.repeat(DEPTH)}`;
    expect(stringifyJson(parseJson(objects))).toBe(objects);
  });

  it('the iterative writer writes what JSON.stringify writes (undefined, functions, toJSON, empty containers, indent)', () => {
    const sample = {
      a: [1, undefined, () => 1, null, { b: undefined, c: 'é', d: [] }, {}, [[[{ e: [] }]]]],
      t: new Date(0),
      n: Number.NaN,
      s: 'line\nbreak "quoted"',
      '': true,
      f: () => 1,
    };
    for (const indent of [0, 2, 4]) expect(writeDeep(sample, indent, false)).toBe(JSON.stringify(sample, null, indent));
    expect(writeDeep([], 2, false)).toBe('[]');
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
