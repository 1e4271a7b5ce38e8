// --jq's engine on jq's own manual examples, the output module's shaping for --fields and --jq,
// and the batch walk's order and window (issue 22).
import { describe, expect, it } from 'vitest';
import { makeOutput } from '../../src/io/formats.js';
import { PageWindow } from '../../src/client/window.js';
import { inInputOrder } from '../../src/commands/shared/batch.js';
import { type BatchLine, batchItems, readLines } from '../../src/commands/shared/batch-lines.js';
import { Readable } from 'node:stream';
import { type CliError, NotFoundError, UsageError } from '../../src/errors.js';
import { compileJq, type JqOptions, jqMessage } from '../../src/io/jq.js';
import { printJson, printRows, printSections, writeJsonLine } from '../../src/io/output.js';
import { fakeIo } from '../support/fakes.js';

/** The engine as `--jq` gets it, with this process's environment (for $ENV). */
const compile = (program: string, options: Partial<JqOptions> = {}) =>
  compileJq(program, { env: process.env, stderr: () => {}, ...options });

/** Every output of `program` on `input`, parsed. */
async function outputsOf(program: string, input: unknown): Promise<unknown[]> {
  const outputs: unknown[] = [];
  await (await compile(program)).run(JSON.stringify(input), false, async (o) => void outputs.push(...o.map((t) => JSON.parse(t))));
  return outputs;
}

/**
 * Examples from the jq 1.8 manual (program, input, every output). The same table scored the
 * candidates (docs/scripting.md, "Choosing the jq engine"): jq-wasm 40/40, jq-web 38, jqjs 34.
 */
const MANUAL: Array<[string, unknown, unknown[]]> = [
  ['.foo', { foo: 42, bar: 'less interesting data' }, [42]],
  ['.foo?', [1, 2], []],
  ['.["foo"]', { foo: 42 }, [42]],
  ['.[2:4]', ['a', 'b', 'c', 'd', 'e'], [['c', 'd']]],
  ['.[-2:]', ['a', 'b', 'c', 'd', 'e'], [['d', 'e']]],
  [
    '.[]',
    [
      { name: 'JSON', good: true },
      { name: 'XML', good: false },
    ],
    [
      { name: 'JSON', good: true },
      { name: 'XML', good: false },
    ],
  ],
  ['.user, .projects[]', { user: 'stedolan', projects: ['jq', 'wikiflow'] }, ['stedolan', 'jq', 'wikiflow']],
  ['[.[] | .name]', [{ name: 'JSON' }, { name: 'XML' }], [['JSON', 'XML']]],
  [
    '{user, title: .titles[]}',
    { user: 'stedolan', titles: ['JQ Primer', 'More JQ'] },
    [
      { user: 'stedolan', title: 'JQ Primer' },
      { user: 'stedolan', title: 'More JQ' },
    ],
  ],
  ['{(.user): .titles}', { user: 'stedolan', titles: ['JQ Primer', 'More JQ'] }, [{ stedolan: ['JQ Primer', 'More JQ'] }]],
  ['[..|.a?]', [[{ a: 1 }]], [[1]]],
  ['.a + 1', { a: 7 }, [8]],
  ['{a: 1} + {b: 2} + {c: 3} + {a: 42}', null, [{ a: 42, b: 2, c: 3 }]],
  ['map(abs)', [-10, -1.1, -0.1], [[10, 1.1, 0.1]]],
  ['map(select(. >= 2))', [1, 5, 3, 0, 7], [[5, 3, 7]]],
  ['[paths]', [1, [[], { a: 2 }]], [[[0], [1], [1, 0], [1, 1], [1, 1, 'a']]]],
  [
    'to_entries',
    { a: 1, b: 2 },
    [
      [
        { key: 'a', value: 1 },
        { key: 'b', value: 2 },
      ],
    ],
  ],
  ['with_entries(.value += 1)', { a: 1, b: 2 }, [{ a: 2, b: 3 }]],
  [
    'group_by(.foo)',
    [
      { foo: 1, bar: 10 },
      { foo: 3, bar: 100 },
      { foo: 1, bar: 1 },
    ],
    [
      [
        [
          { foo: 1, bar: 10 },
          { foo: 1, bar: 1 },
        ],
        [{ foo: 3, bar: 100 }],
      ],
    ],
  ],
  ['unique_by(length)', ['chunky', 'bacon', 'kitten', 'cicada', 'asparagus'], [['bacon', 'chunky', 'asparagus']]],
  ['[limit(3; .[])]', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [[0, 1, 2]]],
  ['reduce .[] as $item (0; . + $item)', [1, 2, 3, 4, 5], [15]],
  ['[.[] | tostring]', [1, '1', [1]], [['1', '1', '[1]']]],
  ['@csv', [1, 'one', 'comma, quote"'], ['1,"one","comma, quote"""']],
  ['[.[] | ltrimstr("foo")]', ['fo', 'foo', 'barfoo', 'foobar', 'afoo'], [['fo', '', 'barfoo', 'bar', 'afoo']]],
  ['[splits(", *"; null)]', 'ab,cd, ef', [['ab', 'cd', 'ef']]],
  ['test("foo")', 'foo', [true]],
  ['[.[] | gsub("\\\\p{L}"; "x")]', ['aé1'], [['xx1']]],
  ['if . == 0 then "zero" elif . == 1 then "one" else "many" end', 2, ['many']],
  ['try error("some exception") catch .', true, ['some exception']],
  [
    'def addvalue(f): f as $x | map(. + $x); addvalue(.[0])',
    [
      [1, 2],
      [10, 20],
    ],
    [
      [
        [1, 2, 1, 2],
        [10, 20, 1, 2],
      ],
    ],
  ],
  ['pick(.a, .b.c, .x)', { a: 1, b: { c: 2, d: 3 }, e: 4 }, [{ a: 1, b: { c: 2 }, x: null }]],
  ['trim, ltrim, rtrim', '  abc  ', ['abc', 'abc  ', '  abc']],
  ['getpath(["a","b"])', null, [null]],
  ['[.[] | tojson]', [1, 'foo', ['foo']], [['1', '"foo"', '["foo"]']]],
  ['input_line_number? // "n/a"', null, [0]],
  ['$__loc__', null, [{ file: '<top-level>', line: 1 }]],
  ['[range(0; 10; 3)]', null, [[0, 3, 6, 9]]],
  ['@base64d', 'VGhpcyBpcyBhIG1lc3NhZ2U=', ['This is a message']],
  ['ascii_downcase', 'useful but not for é', ['useful but not for é']],
];

describe('--jq engine', () => {
  it.each(MANUAL)('%s', async (program, input, outputs) => {
    expect(await outputsOf(program, input)).toEqual(outputs);
  });

  it.each([
    ['.a |', /^--jq: syntax error, unexpected end of file at <top-level>, line 1, column 4$/],
    ['.[] | nosuch(1)', /^--jq: nosuch\/1 is not defined at <top-level>, line 1, column 7$/],
    ['$nope', /^--jq: \$nope is not defined at <top-level>, line 1, column 1$/],
    ['1) , (2', /^--jq: syntax error, unexpected INVALID_CHARACTER, expecting end of file/],
    ['', /--jq needs an expression/],
  ])('%j does not compile: a UsageError (exit 2) naming the problem', async (program, message) => {
    const error = await compile(program).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it('compiling does not run the expression (an endless one compiles at once)', async () => {
    const jq = await compile('repeat(1)');
    expect(jq.expression).toBe('repeat(1)');
  });

  it("an error on the data is a UsageError with jq's words, after the outputs before it", async () => {
    const jq = await compile('.[] | .+1');
    const outputs: string[] = [];
    const error = await jq.run('[1,"x",3]', false, async (o) => void outputs.push(...o)).catch((e: unknown) => e);
    expect(outputs).toEqual(['2']);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('--jq: string ("x") and number (1) cannot be added');
  });

  it('numbers reach jq as the literals sent, and come back as jq writes them', async () => {
    const outputs: string[] = [];
    const jq = await compile('.[0] | tostring, ., .+0');
    await jq.run('[13911860366432393]', false, async (o) => void outputs.push(...o));
    expect(outputs).toEqual(['"13911860366432393"', '13911860366432393', '13911860366432392']);
    const big: string[] = [];
    await (await compile('., [1.10, 100000000000000000000000]')).run('9E999999999', false, async (o) => void big.push(...o));
    expect(big).toEqual(['9E+999999999', '[1.10,100000000000000000000000]']);
  });

  it('$ENV and env are the environment given (the process environment in rsi)', async () => {
    const outputs: string[] = [];
    const jq = await compile('$ENV.RSI_JQ_PROBE, env.USER', { env: { RSI_JQ_PROBE: 'héllo=1', USER: 'someone' } });
    await jq.run('null', false, async (o) => void outputs.push(...o));
    expect(outputs).toEqual(['"héllo=1"', '"someone"']);
  });

  it('debug, stderr and halt_error write to stderr as jq writes them; halt_error is exit 2', async () => {
    let stderr = '';
    const jq = await compile('debug | ., ("bye\\n" | halt_error(1))', { stderr: (t) => void (stderr += t) });
    const outputs: string[] = [];
    const error = await jq.run('{"a":1}', false, async (o) => void outputs.push(...o)).catch((e: unknown) => e);
    expect(outputs).toEqual(['{"a":1}']);
    expect(stderr).toBe('["DEBUG:",{"a":1}]\nbye\n');
    expect((error as CliError).exitCode).toBe(2);
  });

  it('an aborted run stops an endless program at once, with the abort reason', async () => {
    const abort = new AbortController();
    const jq = await compile('repeat(1)', { signal: abort.signal });
    let seen = 0;
    const error = await jq
      .run('null', false, async (o) => {
        seen += o.length;
        if (seen > 1000) abort.abort(new Error('stop'));
      })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('stop');
  });

  it('a structure nested deeper than the engine can go is one --jq error, exit 2', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const error = await (await compile('.')).run(deep, false, async () => {}).catch((e: unknown) => e);
    expect((error as CliError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(/^--jq: /);
    // The engine is started afresh for the next program.
    expect(await outputsOf('. + 1', 1)).toEqual([2]);
  });

  it("a program that wants more memory than the engine's ceiling is one --jq line, exit 2", async () => {
    const error = await (await compile('. * 300000000 | length')).run('"x"', false, async () => {}).catch((e: unknown) => e);
    expect((error as CliError).exitCode).toBe(2);
    expect((error as Error).message).toBe('--jq: the jq engine failed: cannot allocate memory (out of memory)');
  });

  it('jqMessage keeps the first line without the prefix; compile positions are kept', () => {
    expect(jqMessage('jq: error: foo/0 is not defined at <top-level>, line 2, column 1:')).toBe(
      'foo/0 is not defined at <top-level>, line 2, column 1',
    );
    expect(jqMessage('jq: error (at /dev/stdin:0): Cannot iterate over null')).toBe('Cannot iterate over null');
    expect(jqMessage('jq: error (at /dev/stdin:0) (not a string): {"a":1}')).toBe('(not a string): {"a":1}');
  });
});

describe('output shaping', () => {
  const columns = [
    { header: 'NAME', value: (r: { name: string }) => r.name },
    { header: 'COUNT', value: (r: { count: number }) => r.count, numeric: true },
    { header: 'ID', value: (r: { id: string }) => r.id, id: true },
  ];
  const rows = [
    { name: 'a', count: 1, id: 'x1', extra: true },
    { name: 'b', count: 2, id: 'x2', extra: false },
  ];

  it('--fields chooses and orders csv/tsv columns and keeps only those JSON members', async () => {
    for (const [format, want] of [
      ['csv', 'id,name\r\nx1,a\r\nx2,b\r\n'],
      ['tsv', 'x1\ta\nx2\tb\n'],
      ['ndjson', '{"id":"x1","name":"a"}\n{"id":"x2","name":"b"}\n'],
      ['json', '[{"id":"x1","name":"a"},{"id":"x2","name":"b"}]\n'],
    ] as const) {
      const io = fakeIo(false);
      await printRows(makeOutput(io, { format }, { fields: ['id', 'name'] }), rows, columns as never);
      expect(io.out(), format).toBe(want);
    }
  });

  it('--fields in a table keeps the chosen columns only', async () => {
    const io = fakeIo(false);
    await printRows(makeOutput(io, { format: 'table' }, { fields: ['count', 'name'] }), rows, columns as never);
    expect(io.out().split('\n')[0]).toMatch(/^COUNT\s+NAME$/);
  });

  it('--fields on a whole document applies to its rows member', async () => {
    const io = fakeIo(false);
    await printJson(makeOutput(io, { format: 'json' }, { fields: ['name'], rows: 'data' }), { data: rows, meta: { total: 2 } });
    expect(JSON.parse(io.out())).toEqual({ data: [{ name: 'a' }, { name: 'b' }], meta: { total: 2 } });
  });

  it('--fields on a multi-part document: only the columns chosen, `section` too only when chosen (issue 30)', async () => {
    const io = fakeIo(false);
    await printSections(makeOutput(io, { format: 'csv' }, { fields: ['name', 'stage'] }), [
      {
        name: 'keyword',
        rows: [{ name: 'K', id: 'k' }],
        columns: [
          { header: 'id', value: (r: { id: string }) => r.id },
          { header: 'name', value: (r: { name: string }) => r.name },
        ],
      },
      {
        name: 'assets',
        rows: [{ name: 'A', stage: 'P2' }],
        columns: [
          { header: 'name', value: (r: { name: string }) => r.name },
          { header: 'stage', value: (r: { stage: string }) => r.stage },
        ],
      },
    ]);
    expect(io.out()).toBe('name,stage\r\nK,\r\nA,P2\r\n');
  });

  it('--fields section,name: the part of each row when asked for; dotted paths into a column or the row', async () => {
    const io = fakeIo(false);
    await printSections(makeOutput(io, { format: 'csv' }, { fields: ['section', 'name', 'score.value', 'extra.deep.x'] }), [
      {
        name: 'keyword',
        rows: [{ name: 'K', score: { value: 1, label: 'low' }, extra: { deep: { x: 'X' } } }],
        columns: [
          { header: 'name', value: (r: { name: string }) => r.name },
          { header: 'score', value: (r: { score: unknown }) => r.score },
        ],
      },
    ]);
    expect(io.out()).toBe('section,name,score.value,extra.deep.x\r\nkeyword,K,1,X\r\n');
  });

  it('--jq sees a streamed collection as one array, and each NDJSON document on its own', async () => {
    const io = fakeIo(false);
    await printRows(makeOutput(io, { format: 'json' }, { jq: await compile('map(.name) | join("+")') }), rows, columns as never);
    expect(io.out()).toBe('a+b\n');

    const lines = fakeIo(false);
    await writeJsonLine(makeOutput(lines, { format: 'ndjson' }, { jq: await compile('.count, .id') }), rows[0]);
    await writeJsonLine(makeOutput(lines, { format: 'ndjson' }, { jq: await compile('.count, .id') }), rows[1]);
    expect(lines.out()).toBe('1\nx1\n2\nx2\n');
  });

  it('--jq prints values indented on a terminal, compact when piped; strings raw', async () => {
    const tty = fakeIo(true);
    await printJson(makeOutput(tty, { format: 'json' }, { jq: await compile('., .name') }), { name: 'a' });
    expect(tty.out()).toBe('{\n  "name": "a"\n}\na\n');
  });
});

describe('batches', () => {
  const itemsOf = async (chunks: Array<string | Buffer>): Promise<BatchLine[]> => {
    const got: BatchLine[] = [];
    for await (const item of batchItems(Readable.from(chunks))) got.push(item);
    return got;
  };

  it('batch items: lines, blank and # skipped, NDJSON id or name, a line split across chunks, a last line without a break', async () => {
    const got = await itemsOf(['EGFR\n\n  # note\n{"name":"KR', 'AS"}\n{"id":"abc","name":"x"}\r\n erbb1 \nlast']);
    expect(got.map(({ line, item }) => [line, item])).toEqual([
      [1, 'EGFR'],
      [4, 'KRAS'],
      [5, 'abc'],
      [6, 'erbb1'],
      [7, 'last'],
    ]);
  });

  it('batch items: a line that is neither a name nor a usable JSON object is an item that fails, not the end of the batch', async () => {
    const got = await itemsOf(['{"nom": 1}\na\n{oops\nnull\n']);
    expect(got.map((g) => g.item)).toEqual(['{"nom": 1}', 'a', '{oops', 'null']);
    expect(got[0]!.problem).toMatch(/line 1: a JSON line needs a string "id" or "name"/);
    expect(got[2]!.problem).toMatch(/stdin line 3 is not valid JSON/);
    expect(got[1]!.problem).toBeUndefined();
  });

  it('batch items: a multi-byte character split between two chunks is one character', async () => {
    const bytes = Buffer.from('Ångström\n');
    const got = await itemsOf([bytes.subarray(0, 1), bytes.subarray(1)]);
    expect(got.map((g) => g.item)).toEqual(['Ångström']);
  });

  it('the text guard: binary input stops the batch with what it looked like, before any item', async () => {
    const cases: Array<[Buffer, RegExp]> = [
      [Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x41]), /line 1 holds gzip-compressed data/],
      [Buffer.from('PK\x03\x04xl/workbook.xml', 'latin1'), /line 1 holds a zip archive \(an \.xlsx/],
      [Buffer.from('\xff\xfeE\x00G\x00', 'latin1'), /UTF-16 text \(little-endian\)/],
      [Buffer.from('EGFR\nKR\x00AS\n', 'latin1'), /line 2 holds a NUL byte \(at byte 3\)/],
      [Buffer.from('EGFR\n\xe9t\xe9\n', 'latin1'), /line 2 holds bytes that are not UTF-8/],
      [Buffer.alloc(70 * 1024, 0x61), /line 1 holds more than 64 KiB without a line break/],
    ];
    for (const [bytes, message] of cases) {
      const error = await itemsOf([bytes]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, String(message)).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(/^stdin is not text: /);
      expect((error as Error).message).toMatch(message);
    }
    // Lines before a bad one are read (their rows print): the guard names the line it stopped at.
    const lines: string[] = [];
    await expect(
      (async () => {
        for await (const { text } of readLines(Readable.from([Buffer.from('EGFR\nKRAS\n\x01\n', 'latin1')]))) lines.push(text);
      })(),
    ).rejects.toThrow(/line 3 holds the control byte 0x01/);
    expect(lines).toEqual(['EGFR', 'KRAS']);
  });

  it('inInputOrder: results in input order whatever order they finish in, never more in flight than the window', async () => {
    const gates = new Map<string, () => void>();
    let inFlight = 0;
    let most = 0;
    const work = (input: string) =>
      new Promise<string>((resolve, reject) => {
        inFlight++;
        most = Math.max(most, inFlight);
        gates.set(input, () => {
          inFlight--;
          if (input === 'bad') reject(new NotFoundError('gone'));
          else resolve(input.toUpperCase());
        });
      });
    const items = ['a', 'b', 'bad', 'c', 'd'].map((item) => ({ item }));
    const walk = inInputOrder(toAsync(items), ({ item }) => work(item), {
      window: new PageWindow(2),
      fatal: () => false,
    });
    const got: unknown[] = [];
    const done = (async () => {
      for await (const o of walk) got.push(o.ok ? o.value : `${o.input}: ${(o.error as CliError).message}`);
    })();
    const open = async (name: string) => {
      while (!gates.has(name)) await new Promise((r) => setImmediate(r));
      gates.get(name)!();
    };
    // b finishes before a: still printed after it.
    await open('b');
    await open('a');
    await open('c');
    await open('bad');
    await open('d');
    await done;
    expect(got).toEqual(['A', 'B', 'bad: gone', 'C', 'D']);
    expect(most).toBeLessThanOrEqual(2);
  });

  it('inInputOrder: a fatal error ends the batch', async () => {
    const walk = inInputOrder(toAsync([{ item: 'a' }]), async () => Promise.reject(new UsageError('signed out')), {
      window: new PageWindow(1),
      fatal: () => true,
    });
    await expect(walk.next()).rejects.toThrow('signed out');
  });

  it('inInputOrder: the first item goes out as its line arrives, and its outcome comes out before the next line exists', async () => {
    const source = new Readable({ read() {} });
    const sent: string[] = [];
    const walk = inInputOrder(batchItems(source), async ({ item }) => (sent.push(item), item.toUpperCase()), {
      window: new PageWindow(4),
      fatal: () => false,
    });
    source.push('egfr\n');
    expect(await walk.next()).toEqual({ done: false, value: { input: 'egfr', ok: true, value: 'EGFR' } });
    expect(sent).toEqual(['egfr']);
    source.push('kras\n');
    source.push(null);
    expect((await walk.next()).value).toEqual({ input: 'kras', ok: true, value: 'KRAS' });
    expect((await walk.next()).done).toBe(true);
  });

  it('inInputOrder: reads no further ahead than the window (a source that never ends is not drained)', async () => {
    let pulled = 0;
    async function* endless(): AsyncGenerator<{ item: string }> {
      for (let i = 0; ; i++) {
        pulled++;
        yield { item: String(i) };
      }
    }
    const gates: Array<() => void> = [];
    const walk = inInputOrder(endless(), ({ item }) => new Promise<string>((resolve) => gates.push(() => resolve(item))), {
      window: new PageWindow(3),
      fatal: () => false,
    });
    const first = walk.next();
    while (gates.length < 3) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(pulled).toBe(3);
    gates[0]!();
    expect((await first).value).toMatchObject({ input: '0' });
    // Stopping early waits for what is in flight (nothing is left running), then closes the source.
    for (const open of gates.slice(1)) open();
    await walk.return(undefined);
    expect(pulled).toBeLessThanOrEqual(4);
  });

  it('inInputOrder: a retry with a wait halves the window and holds every new request for that wait', async () => {
    let t = 0;
    const sleeps: number[] = [];
    const clock = {
      now: () => t,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        t += ms;
      },
    };
    const window = new PageWindow({ start: 4, max: 8, now: clock.now });
    const sentAt: Array<[string, number]> = [];
    let sizeAfter = 0;
    const walk = inInputOrder(
      toAsync(['a', 'b', 'c', 'd', 'e', 'f'].map((item) => ({ item }))),
      async ({ item }, request) => {
        sentAt.push([item, t]);
        if (item === 'b') sizeAfter = window.size;
        // The first item meets a 429 asking for 2 s, as RetryingHttp reports before it waits.
        if (item === 'a') request.onRetry?.(2000);
        return item;
      },
      { window, fatal: () => false, clock },
    );
    const got: string[] = [];
    for await (const o of walk) got.push(o.input);
    expect(got).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(sleeps[0]).toBe(2000);
    // Nothing went out between the 429 and the end of its wait, and the window was cut.
    expect(sentAt.filter(([, at]) => at > 0 && at < 2000)).toEqual([]);
    expect(sentAt.some(([, at]) => at >= 2000)).toBe(true);
    expect(sizeAfter).toBe(2);
  });
});

describe('a batch at the latency limit (issue 56, item 3)', () => {
  it('400 items at 50 ms a reply, adaptive window: done within 1.3× of 50 ms × 400/8, never more than 8 in flight', async () => {
    let t = 0;
    const clock = { now: () => t, sleep: async (ms: number) => void (t += ms) };
    const pending: Array<{ due: number; answer: () => void }> = [];
    let out = 0;
    let most = 0;
    const walk = inInputOrder(
      toAsync(Array.from({ length: 400 }, (_, i) => ({ item: String(i) }))),
      ({ item }) =>
        new Promise<string>((resolve) => {
          most = Math.max(most, ++out);
          pending.push({
            due: t + 50,
            answer: () => {
              out--;
              resolve(item);
            },
          });
        }),
      { window: new PageWindow({ start: 6, max: 8, now: clock.now }), fatal: () => false, clock },
    );
    const got: string[] = [];
    let done = false;
    const consuming = (async () => {
      for await (const o of walk) got.push(o.input);
    })().finally(() => {
      done = true;
    });
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (done) break;
      pending.sort((a, b) => a.due - b.due);
      const next = pending.shift()!;
      t = next.due;
      next.answer();
    }
    await consuming;
    expect(got).toEqual(Array.from({ length: 400 }, (_, i) => String(i)));
    expect(most).toBe(8);
    expect(t).toBeLessThanOrEqual(1.3 * 50 * (400 / 8));
  });
});

async function* toAsync<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
