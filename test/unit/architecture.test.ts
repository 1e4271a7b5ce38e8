import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The layers of docs/architecture.md and which may import which (static or dynamic, types too).
// An edge not listed fails; so does a rule nobody uses, so the table cannot rot into permission.
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const ALLOWED: Record<string, readonly string[]> = {
  main: ['context', 'program', 'io', 'errors', 'update', 'release'],
  // The update notice and its background registry check (issue 33), its state in storage (issue 41).
  update: ['http', 'io', 'storage', 'release'],
  // The single executable's boot script, its training run and its keychain loader (docs/install.md);
  // the boot script answers the root's help screen as bin/rsi.js does (src/commands/help/root-screen.ts).
  exe: ['main', 'commands'],
  // The program also fits help to the terminal (src/io/help-text.ts, the width of src/io/io.ts)
  // and offers `--format`'s choices (src/formats.ts).
  program: ['context', 'commands', 'io', 'formats'],
  // The Context owns the process's one network (`ctx.network()`, the type of src/http/network.ts).
  context: ['auth', 'client', 'mcp', 'http', 'io', 'errors', 'formats', 'settings'],
  commands: ['context', 'client', 'auth', 'io', 'http', 'errors', 'sandbox', 'mcp', 'ops', 'formats', 'settings', 'release'],
  // Of io only the quoting of suggested commands (TEXT_IO): a 403's scope hint is built from words.
  client: ['http', 'errors', 'io'],
  // Of io only TEXT_IO: the MCP server's scope challenge becomes a hint built from words.
  mcp: ['client', 'http', 'errors', 'ops', 'io'],
  // The use cases both front-ends share (src/ops): ports in, data out. Of io only its text helpers
  // (OPS_IO): no printer, no prompter, no Context.
  ops: ['client', 'errors', 'io'],
  auth: ['http', 'storage', 'io', 'errors', 'settings'],
  http: ['io', 'errors'],
  // Of io only TEXT_IO: the `chmod …` fix of a file with loose permissions is built from words.
  storage: ['errors', 'settings', 'io'],
  io: ['errors', 'formats'],
  sandbox: [],
  errors: [],
  // The output formats' names (src/formats.ts): a leaf, so the settings (src/settings.ts) check the
  // `format` setting against the one list without importing the terminal layer.
  formats: [],
  // The settings' names and checks (src/settings.ts): beside formats, so the config store checks
  // the file and the commands what a person typed, neither through the other.
  settings: ['errors', 'formats'],
  // What rsi is published as (src/release.ts, from package.json): a leaf.
  release: [],
};
// Only the `rsi sandbox` command may reach into the sandbox.
const SANDBOX_DOORS = ['commands/sandbox/sandbox.ts'];
// What the use cases, the client and storage may use of io: the quoting rule of suggested
// commands and exact JSON (number literals as the service spelled them), nothing that prints.
const OPS_IO = ['io/text.ts', 'io/json.ts'];
const TEXT_IO_LAYERS = ['ops', 'client', 'storage', 'mcp'];

function layerOf(file: string): string {
  const rel = relative(SRC, file).replaceAll('\\', '/');
  if (!rel.includes('/')) return rel.replace(/\.ts$/, '');
  return rel.split('/')[0]!;
}

function* walk(dir: string): Generator<string> {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

/** Every relative import of a source text: `from '…'`, `import('…')`, `export … from '…'`. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
}

/** The forbidden edges of a set of files (path → text), and the rules no file used. */
function check(files: Map<string, string>): { violations: string[]; used: Set<string> } {
  const violations: string[] = [];
  const used = new Set<string>();
  for (const [file, text] of files) {
    const from = layerOf(file);
    for (const spec of importsOf(text)) {
      if (spec.endsWith('package.json')) continue;
      const target = layerOf(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      if (target === from) continue;
      const rel = relative(SRC, file).replaceAll('\\', '/');
      if (target === 'sandbox' && !SANDBOX_DOORS.includes(rel))
        violations.push(`${rel} → ${spec} (only the sandbox command may import the sandbox)`);
      else if (
        TEXT_IO_LAYERS.includes(from) &&
        target === 'io' &&
        !OPS_IO.includes(relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))).replaceAll('\\', '/'))
      )
        violations.push(`${rel} → ${spec} (${from} may use only io's text helpers: ${OPS_IO.join(', ')})`);
      else if (!(ALLOWED[from] ?? []).includes(target)) violations.push(`${rel} → ${spec} (${from} → ${target})`);
      else used.add(`${from} → ${target}`);
    }
  }
  return { violations, used };
}

/**
 * The import circles among files (static, dynamic and type-only imports alike): each is a strongly
 * connected set of two or more files, or a file importing itself. A circle makes two files one unit
 * in all but name (the trampoline `run` that imported its own body was one), so the house has none.
 */
function circles(files: Map<string, string>): string[][] {
  const edges = new Map<string, string[]>();
  for (const [file, text] of files) {
    const targets = importsOf(text)
      .filter((spec) => !spec.endsWith('package.json'))
      .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
      .filter((t) => files.has(t));
    edges.set(file, [...new Set(targets)]);
  }
  // Tarjan's strongly connected components.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v))
        found.push(component.map((f) => relative(SRC, f).replaceAll('\\', '/')).sort());
    }
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
}

// `rsi help` works on the finished program tree (its root), not through the Context: the one
// command without an Options value or a run.
const SHAPE_EXEMPT = ['commands/help/help.ts'];

/** A command file: one under src/commands/ (outside shared/) that exports `build`. */
function isCommandFile(rel: string, text: string): boolean {
  return rel.startsWith('commands/') && !rel.startsWith('commands/shared/') && /^export function build\(/m.test(text);
}

/**
 * A command file (one exporting `build`) has gh's shape: `build(ctx, runF = run)` wires the flags
 * into an exported Options type, and `run(opts, ctx)` does the work with nothing beside the Context
 * (no per-command ports or deps: tests inject through the Context). Returns what breaks the shape.
 */
function shapeProblems(files: Map<string, string>): string[] {
  const problems: string[] = [];
  for (const [file, text] of files) {
    const rel = relative(SRC, file).replaceAll('\\', '/');
    if (!isCommandFile(rel, text) || SHAPE_EXEMPT.includes(rel)) continue;
    if (!/^export const command: CommandDeclaration = \{/m.test(text))
      problems.push(`${rel}: a command file declares itself: \`export const command: CommandDeclaration = {…}\``);
    if (!/^export function build\(ctx: Context, runF: typeof run = run\): Command \{/m.test(text))
      problems.push(`${rel}: build must be \`build(ctx: Context, runF: typeof run = run): Command\``);
    const run = text.match(/^export async function run\((\w+): (\w+), ctx: Context\): Promise<void> \{/m);
    if (!run) problems.push(`${rel}: run must be \`run(opts: XOptions, ctx: Context): Promise<void>\` (nothing beside the Context)`);
    else if (!/Options$/.test(run[2]!) || !new RegExp(`^export (interface|type) ${run[2]}\\b`, 'm').test(text))
      problems.push(`${rel}: run's options must be an exported \`…Options\` type of the same file (got ${run[2]})`);
    if (/\b\w+(Port|Deps)\b/.test(text.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')))
      problems.push(`${rel}: a per-command port or deps (inject through the Context instead)`);
  }
  return problems;
}

/**
 * Where a command file decides by the output format itself (`format === 'json'`, `out.format !==
 * 'table'`, `switch (format)`, a comparison with a format's name): output alone does that
 * (src/io/output.ts, src/io/replies.ts), so a new format is a change there, not an audit of every
 * command. Comments are skipped; passing the format along (to output, to a picture style) is fine.
 */
function formatSwitches(files: Map<string, string>): string[] {
  const FORMAT = '(?:table|tsv|csv|json|ndjson)';
  const decides = new RegExp(
    [
      String.raw`\bformat\s*[!=]==?`,
      String.raw`[!=]==?\s*(?:[\w$]+\??\.)*format\b`,
      String.raw`switch\s*\([^)]*\bformat\b`,
      String.raw`[!=]==?\s*['"\x60]${FORMAT}['"\x60]`,
      String.raw`['"\x60]${FORMAT}['"\x60]\s*[!=]==?`,
      String.raw`\bcase\s+['"\x60]${FORMAT}['"\x60]`,
    ].join('|'),
  );
  const found: string[] = [];
  for (const [file, text] of files) {
    const rel = relative(SRC, file).replaceAll('\\', '/');
    if (!rel.startsWith('commands/')) continue;
    const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/\/\/.*$/gm, '');
    for (const [i, line] of code.split('\n').entries()) if (decides.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
  }
  return found;
}

/**
 * Command files the registry does not reach (src/commands/registry.ts, through the group modules it
 * imports): a command there is missing from help, --fields, man pages and completion alike.
 */
function unregistered(files: Map<string, string>): string[] {
  const registry = join(SRC, 'commands/registry.ts');
  const reached = new Set<string>();
  const queue = [registry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (reached.has(file) || !files.has(file)) continue;
    reached.add(file);
    for (const spec of importsOf(files.get(file)!)) {
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (relative(SRC, target).startsWith('commands/')) queue.push(target);
    }
  }
  return [...files]
    .filter(([file, text]) => isCommandFile(relative(SRC, file).replaceAll('\\', '/'), text) && !reached.has(file))
    .map(([file]) => relative(SRC, file).replaceAll('\\', '/'));
}

/**
 * Modules that pass on what another module exports instead of their importers naming the real
 * module: a second address for one thing, left behind by a split. Every form counts:
 * `export { x } from`, `export * from`, `export * as n from`, and an imported binding exported again
 * (`import { x } …; export { x }`, `export { x as y }`, `export default x`, `export const y = x`,
 * `export const y = ns.x`, `export type Y = X`). The last door (src/services.ts, the Context's one
 * chunk for an action) went when importing each part measured the same (docs/performance.md).
 */
function reexports(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    const rel = relative(SRC, file).replaceAll('\\', '/');
    if (rel.startsWith('sandbox/')) continue;
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    const forwards = /^export\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+['"][^'"]+['"];?/gm;
    const statements = [...code.matchAll(forwards)].length;
    // The names this module imports (default, namespace and named, types too).
    const imported = new Set<string>();
    const namespaces = new Set<string>();
    for (const m of code.matchAll(/^import\s+(?:type\s+)?([^'";]*?)\s+from\s+['"][^'"]+['"]/gm)) {
      const clause = m[1]!;
      const named = clause.match(/\{([^}]*)\}/);
      for (const part of named?.[1]?.split(',') ?? []) {
        const local = part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)
          .pop()
          ?.trim();
        if (local) imported.add(local);
      }
      const rest = clause
        .replace(/\{[^}]*\}/, '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      for (const r of rest) {
        const ns = r.match(/^\*\s+as\s+([\w$]+)$/);
        if (ns) namespaces.add(ns[1]!);
        else imported.add(r);
      }
    }
    let passed = 0;
    for (const m of code.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s*(?!\s*from)(?:;|$)/gm))
      passed += m[1]!
        .split(',')
        .map((part) =>
          part
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]!
            .trim(),
        )
        .filter((local) => imported.has(local)).length;
    for (const m of code.matchAll(/^export\s+default\s+([\w$]+)\s*;/gm)) if (imported.has(m[1]!)) passed += 1;
    for (const m of code.matchAll(/^export\s+(?:const|let|var)\s+[\w$]+(?:\s*:[^=]+)?\s*=\s*([\w$]+)(\.[\w$]+)?\s*;/gm))
      if (m[2] ? namespaces.has(m[1]!) : imported.has(m[1]!) || namespaces.has(m[1]!)) passed += 1;
    for (const m of code.matchAll(/^export\s+type\s+[\w$]+\s*=\s*([\w$]+)\s*;/gm)) if (imported.has(m[1]!)) passed += 1;
    const total = statements + passed;
    if (total === 0) continue;
    const rest = code
      .replace(forwards, '')
      .replace(/^import\s[^;]*;?/gm, '')
      .replace(/^export\s+(?:type\s+)?\{[^}]*\}\s*;?/gm, '')
      .trim();
    found.push(rest === '' ? `${rel}: a re-export-only module` : `${rel}: ${total} re-export${total > 1 ? 's' : ''}`);
  }
  return found;
}

function sources(): Map<string, string> {
  return new Map([...walk(SRC)].map((f) => [f, readFileSync(f, 'utf8')]));
}

/**
 * The two front-ends meet only at the door: `rsi mcp serve` and its siblings (commands/mcp/*) are
 * the only commands that import src/mcp, and src/mcp imports nothing of the commands (what both
 * need is in src/ops). The layer table already forbids mcp → commands; this says it by name, and
 * narrows commands → mcp to the one folder.
 */
function frontEndProblems(files: Map<string, string>): string[] {
  const problems: string[] = [];
  for (const [file, text] of files) {
    const rel = relative(SRC, file).replaceAll('\\', '/');
    for (const spec of importsOf(text)) {
      const target = relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))).replaceAll('\\', '/');
      if (rel.startsWith('mcp/') && target.startsWith('commands/')) problems.push(`${rel} → ${spec} (src/mcp may not import a command)`);
      if (rel.startsWith('commands/') && !rel.startsWith('commands/mcp/') && target.startsWith('mcp/'))
        problems.push(`${rel} → ${spec} (only the mcp commands import src/mcp)`);
    }
  }
  return problems;
}

describe('architecture', () => {
  it('imports follow the allowed dependency direction', () => {
    expect(check(sources()).violations).toEqual([]);
  });

  it('every allowed edge is used (no permission without a reason)', () => {
    const { used } = check(sources());
    const unused = Object.entries(ALLOWED)
      .flatMap(([from, tos]) => tos.map((to) => `${from} → ${to}`))
      .filter((e) => !used.has(e));
    expect(unused).toEqual([]);
  });

  it('catches a sandbox file importing the CLI, and a CLI layer importing the sandbox', () => {
    // The checker itself must fail on what it guards (a fence that never fires guards nothing).
    const planted = new Map([
      [join(SRC, 'sandbox/api.ts'), "import { ApiClient } from '../client/client.js';"],
      [join(SRC, 'sandbox/api/keywords.ts'), "import type { Io } from '../../io/io.js';"],
      [join(SRC, 'client/client.ts'), "const m = await import('../sandbox/server.js');"],
      [join(SRC, 'io/output.ts'), "import type { Context } from '../context.js';"],
    ]);
    expect(check(planted).violations).toHaveLength(4);
  });

  it('catches a use case that prints, reaches a front-end or the Context', () => {
    const planted = new Map([
      [join(SRC, 'ops/a.ts'), "import { printJson } from '../io/output.js';"],
      [join(SRC, 'ops/b.ts'), "import type { Context } from '../context.js';"],
      [join(SRC, 'ops/c.ts'), "import { run } from '../commands/status/status.js';"],
      [join(SRC, 'ops/d.ts'), "import { fence } from '../mcp/fence.js';"],
      [join(SRC, 'ops/e.ts'), "import { shellQuote } from '../io/text.js';\nimport { isUuid } from '../client/ids.js';"],
      [join(SRC, 'client/x.ts'), "import { resolveProject } from '../ops/resolve.js';"],
    ]);
    expect(check(planted).violations.map((v) => v.split(' ')[0])).toEqual(['ops/a.ts', 'ops/b.ts', 'ops/c.ts', 'ops/d.ts', 'client/x.ts']);
  });
  it('the use cases (src/ops) load no front-end library: no MCP SDK, commander or prompts', () => {
    const packages = [...sources()]
      .filter(([file]) => relative(SRC, file).startsWith('ops'))
      .flatMap(([file, text]) =>
        [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"]([^'".][^'"]*)['"]/g)].map((m) => `${relative(SRC, file)} → ${m[1]}`),
      )
      .filter((edge) => !/ → zod(\/|$)/.test(edge));
    expect(packages).toEqual([]);
  });

  it('src/mcp imports nothing from src/commands; only the mcp commands import src/mcp', () => {
    expect(frontEndProblems(sources())).toEqual([]);
  });

  it('catches an MCP tool reaching into a command, and a command other than mcp reaching into src/mcp', () => {
    const planted = new Map([
      [join(SRC, 'mcp/tools/x.ts'), "import { resolveProject } from '../../commands/shared/pick.js';"],
      [join(SRC, 'commands/scoreboard/scoreboard.ts'), "const f = await import('../../mcp/features.js');"],
      [join(SRC, 'commands/mcp/serve/serve.ts'), "import { createServer } from '../../../mcp/server.js';"],
      [join(SRC, 'commands/scoreboard/ok.ts'), "import { withMcp } from '../mcp/connect.js';"],
    ]);
    expect(frontEndProblems(planted).map((p) => p.split(' ')[0])).toEqual(['mcp/tools/x.ts', 'commands/scoreboard/scoreboard.ts']);
  });

  // Issue 34: a file past this is doing more than one job; src/sandbox (the fake service) is exempt.
  it('no source file outside src/sandbox is over 450 lines', () => {
    const long = [...sources()]
      .filter(([file]) => !relative(SRC, file).startsWith('sandbox/'))
      .map(([file, text]) => ({ file: relative(SRC, file), lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) }))
      .filter(({ lines }) => lines > 450)
      .map(({ file, lines }) => `src/${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it('no file imports itself, directly or round a circle', () => {
    expect(circles(sources())).toEqual([]);
  });

  it('catches a circle of two files and a longer one', () => {
    const planted = new Map([
      [join(SRC, 'commands/x/a.ts'), "import type { B } from './b.js';"],
      [join(SRC, 'commands/x/b.ts'), "export async function run() { return (await import('./a.js')).run(); }"],
      [join(SRC, 'io/p.ts'), "import { q } from './q.js';"],
      [join(SRC, 'io/q.ts'), "import { r } from './r.js';"],
      [join(SRC, 'io/r.ts'), "export { p } from './p.js';"],
      [join(SRC, 'io/s.ts'), "import { p } from './p.js';"],
    ]);
    expect(circles(planted)).toEqual([
      ['commands/x/a.ts', 'commands/x/b.ts'],
      ['io/p.ts', 'io/q.ts', 'io/r.ts'],
    ]);
  });
  it('no command file switches on the output format: output decides per format', () => {
    expect(formatSwitches(sources())).toEqual([]);
  });

  it('catches a command that checks the format, however it is spelled', () => {
    const planted = new Map([
      [join(SRC, 'commands/x/a.ts'), "if (out.format === 'json') return printJson(io, body);"],
      [join(SRC, 'commands/x/b.ts'), "const machine = format !== 'table';"],
      [join(SRC, 'commands/x/c.ts'), "if ('ndjson' === ctx.globals().format) {}"],
      [join(SRC, 'commands/x/d.ts'), 'switch (globals.format) {\n  case "csv":\n}'],
      [join(SRC, 'commands/x/ok.ts'), "// format === 'json' in a comment\nconst style = pictureStyle(ctx.io, out.format, ctx.env);"],
      [join(SRC, 'io/replies.ts'), "if (target.format === 'json') {}"],
    ]);
    expect(formatSwitches(planted).map((f) => f.split(':').slice(0, 2).join(':'))).toEqual([
      'commands/x/a.ts:1',
      'commands/x/b.ts:1',
      'commands/x/c.ts:1',
      'commands/x/d.ts:1',
      'commands/x/d.ts:2',
    ]);
  });

  it('every command file is in the registry (src/commands/registry.ts)', () => {
    expect(unregistered(sources())).toEqual([]);
  });

  it('catches a command file the registry does not reach', () => {
    const files = sources();
    const orphan = join(SRC, 'commands/keywords/orphan/orphan.ts');
    files.set(
      orphan,
      'export const command: CommandDeclaration = {};\nexport function build(ctx: Context, runF: typeof run = run): Command {}\n',
    );
    expect(unregistered(files)).toEqual(['commands/keywords/orphan/orphan.ts']);
  });

  it('no module re-exports another module (importers name the real one)', () => {
    expect(reexports(sources())).toEqual([]);
  });

  it('catches every form of re-export: from, *, and an imported name exported again', () => {
    const planted = new Map([
      [join(SRC, 'commands/shared/facade.ts'), "/** old home */\nexport { resolveProject } from '../../ops/resolve.js';\n"],
      [join(SRC, 'io/mixed.ts'), "export type { Column } from './columns.js';\nexport const x = 1;\n"],
      [join(SRC, 'io/fine.ts'), "import { a } from './a.js';\nexport const b = wrap(a);\nexport type C = Partial<A>;\n"],
      [join(SRC, 'services.ts'), "export { ApiClient } from './client/client.js';\n"],
      [join(SRC, 'io/star.ts'), "export * from './a.js';\nexport * as b from './b.js';\nexport const c = 1;\n"],
      [join(SRC, 'io/pair.ts'), "import { x } from './x.js';\nexport { x };\n"],
      [
        join(SRC, 'io/typed.ts'),
        "import type { T } from './t.js';\nimport { u as v } from './u.js';\nexport type { T };\nexport { v as w };\nexport const k = 2;\n",
      ],
      [join(SRC, 'io/multi.ts'), "import {\n  p,\n  type Q,\n} from './p.js';\nexport {\n  p,\n  type Q,\n};\nexport function f() {}\n"],
      [
        join(SRC, 'io/alias.ts'),
        "import d from './d.js';\nimport * as ns from './ns.js';\nimport type { S } from './s.js';\nexport default d;\nexport const e = ns.e;\nexport type SLike = S;\nexport const g = 3;\n",
      ],
      [join(SRC, 'io/local.ts'), 'export function h() {}\nexport const i = h;\nexport { h as j };\n'],
    ]);
    expect(reexports(planted)).toEqual([
      'commands/shared/facade.ts: a re-export-only module',
      'io/mixed.ts: 1 re-export',
      'services.ts: a re-export-only module',
      'io/star.ts: 2 re-exports',
      'io/pair.ts: a re-export-only module',
      'io/typed.ts: 2 re-exports',
      'io/multi.ts: 2 re-exports',
      'io/alias.ts: 3 re-exports',
    ]);
  });

  it('every command file has one shape: build(ctx, runF), an Options type, run(opts, ctx)', () => {
    expect(shapeProblems(sources())).toEqual([]);
  });

  it('catches a command with a trampoline, an inline options type or a port', () => {
    const good =
      'export interface XOptions { a: string }\nexport const command: CommandDeclaration = {\n};\nexport function build(ctx: Context, runF: typeof run = run): Command {\n}\nexport async function run(opts: XOptions, ctx: Context): Promise<void> {\n}\n';
    const planted = new Map([
      [join(SRC, 'commands/x/good.ts'), good],
      [join(SRC, 'commands/x/inline.ts'), good.replace('opts: XOptions', 'opts: { a: string }')],
      [join(SRC, 'commands/x/deps.ts'), good.replace('ctx: Context): Promise', 'ctx: Context, deps: XDeps = {}): Promise')],
      [join(SRC, 'commands/x/port.ts'), `${good}export interface XPort { get(): Promise<void> }\n`],
      [join(SRC, 'commands/x/runf.ts'), good.replace('runF: typeof run = run', 'runF = run')],
      [join(SRC, 'commands/shared/helper.ts'), 'export function build(x: number) {}'],
      [join(SRC, 'commands/x/y/undeclared.ts'), good.replace('export const command', 'const command')],
    ]);
    expect(shapeProblems(planted).map((p) => p.split(':')[0])).toEqual([
      'commands/x/inline.ts',
      'commands/x/deps.ts',
      'commands/x/deps.ts',
      'commands/x/port.ts',
      'commands/x/runf.ts',
      'commands/x/y/undeclared.ts',
    ]);
  });
});

/** Source text without comments (a comment may show the idiom it warns about). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/^\s*\/\/.*$/gm, '');
}

// The one quoting function of suggested commands (src/io/text.ts). Another one is spotted by its
// name (…Quote, …Escape, …Word of a shell) or by the POSIX single-quote idiom `'\''` it must use.
const QUOTING_HOME = 'io/text.ts';
const QUOTER_NAME = String.raw`(?:\w*(?:shell|sh)(?:Quote\w*|Escape\w*|Word|Arg)|quote(?:Arg|Word|Shell|Path)?)`;
const SHELL_QUOTER = new RegExp(
  String.raw`\bfunction\s+${QUOTER_NAME}\s*[(<]|\b(?:const|let)\s+${QUOTER_NAME}\s*=\s*(?:\(|function\b|\w+\s*=>)`,
  'i',
);
const QUOTE_IDIOM = /'\\\\''|"'\\\\''"|'"'"'/;

/** Files other than src/io/text.ts that quote for a shell themselves. */
function quotingFunctions(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    const rel = relative(SRC, file).replaceAll('\\', '/');
    if (rel === QUOTING_HOME || rel.startsWith('sandbox/')) continue;
    const body = code(text);
    for (const [i, line] of body.split('\n').entries()) {
      if (SHELL_QUOTER.test(line) || QUOTE_IDIOM.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
    }
  }
  return found;
}

/**
 * A suggested command written by hand: `rsi …` in backticks with a `${…}` in it, or `'rsi ' + x`.
 * Those words (a project name, a scope from a 403) may hold any text; `suggest([...])` quotes them.
 */
function handBuiltCommands(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    const rel = relative(SRC, file).replaceAll('\\', '/');
    if (rel.startsWith('sandbox/') || rel.startsWith('build/')) continue;
    for (const [i, line] of code(text).split('\n').entries()) {
      if (/\\`rsi\b[^`]*\$\{/.test(line) || /`rsi [^`'"]* ['"]\s*\+/.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
    }
  }
  return found;
}

describe('suggested commands', () => {
  it('have one quoting function: src/io/text.ts', () => {
    expect(quotingFunctions(sources())).toEqual([]);
  });

  it('catches a second quoting function, by name or by the single-quote idiom', () => {
    const planted = new Map([
      [join(SRC, 'commands/shared/a.ts'), 'export function shellQuote(word: string): string {\n  return word;\n}'],
      [join(SRC, 'storage/b.ts'), "function quote(path: string): string {\n  return `'${path.replace(/'/g, `'\\\\''`)}'`;\n}"],
      [join(SRC, 'commands/mcp/c.ts'), "const shellWord = (w: string) => w;\nconst x = `'${w.replaceAll(\"'\", \"'\\\\''\")}'`;"],
      [join(SRC, 'io/text.ts'), "export function shellQuote(w: string) {\n  return `'${w.replaceAll(\"'\", `'\\\\''`)}'`;\n}"],
    ]);
    expect(quotingFunctions(planted).map((f) => f.split(':').slice(0, 2).join(':'))).toEqual([
      'commands/shared/a.ts:1',
      'storage/b.ts:1',
      'storage/b.ts:2',
      'commands/mcp/c.ts:1',
      'commands/mcp/c.ts:2',
    ]);
  });

  it('are built from words: no `rsi …${…}` by hand', () => {
    expect(handBuiltCommands(sources())).toEqual([]);
  });

  it('catches a hint that interpolates into a command', () => {
    const planted = new Map([
      [join(SRC, 'client/a.ts'), 'const hint = `run \\`rsi login --scope ${body.scope}\\``;'],
      [join(SRC, 'ops/b.ts'), "const hint = 'run `rsi status ' + name + '`';"],
      [join(SRC, 'ops/c.ts'), "const fine = 'run `rsi login`';\nconst also = `run ${suggest(['rsi', 'status', name])}`;"],
    ]);
    expect(handBuiltCommands(planted).map((f) => f.split(':').slice(0, 2).join(':'))).toEqual(['client/a.ts:1', 'ops/b.ts:1']);
  });
});
