// Every command's options are data (src/commands/shared/options.ts): each option of each command
// comes from a declaration (withOptions), and an action hands commander's flags record to
// parseOptions alone, so no run function sees an untyped record and no action reads `flags.x`.
// Checked on the built tree: every command of the registry, its real action handler.
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { isDeclared, on, withOptions } from '../../src/commands/shared/options.js';
import { createContext } from '../../src/context.js';
import { loadProgram } from '../../src/program.js';
import { fakeIo } from '../support/fakes.js';

// The handlers as written (commander keeps only a wrapper): recorded as the tree is built.
type Handler = Parameters<Command['action']>[0];
const handlers = new Map<Command, Handler>();
const action = Command.prototype.action;
Command.prototype.action = function (this: Command, fn: Handler) {
  handlers.set(this, fn);
  return action.call(this, fn);
};
afterAll(() => {
  Command.prototype.action = action;
});

function leaves(cmd: Command, prefix: string[] = []): Array<[string, Command]> {
  return cmd.commands.flatMap((c) => {
    const path = [...prefix, c.name()];
    return [[path.join(' '), c] as [string, Command], ...leaves(c, path)];
  });
}

/** The parameter names of a function's source (`async (keyword, flags) => …`), or undefined for a pattern. */
function parameters(source: string): string[] {
  const list = /^(?:async\s*)?(?:function\s*\w*\s*)?\(([^)]*)\)/.exec(source)?.[1] ?? /^(?:async\s+)?(\w+)\s*=>/.exec(source)?.[1] ?? '';
  return list
    .split(',')
    .map((p) => p.trim().replace(/\s*=.*$/, ''))
    .filter(Boolean);
}

/**
 * What is wrong with how an action uses its options record: commander passes the arguments, then
 * the options, then the command. The options parameter may appear only as `parseOptions(SPECS, it)`;
 * a destructured one, any other use, or reading options through the command (`.opts()`) is a fault.
 */
function actionProblems(path: string, cmd: Command, source: string): string[] {
  const params = parameters(source);
  const at = cmd.registeredArguments.length;
  const problems: string[] = [];
  const flags = params[at];
  if (flags !== undefined && !/^[\w$]+$/.test(flags)) problems.push(`${path}: the options parameter is destructured (${flags})`);
  else if (flags !== undefined && !flags.startsWith('_')) {
    const body = source.slice(source.indexOf('=>') >= 0 ? source.indexOf('=>') : source.indexOf('{'));
    const uses = body.match(new RegExp(`(?<![\\w$.])${flags.replace('$', '\\$')}(?![\\w$])`, 'g'))?.length ?? 0;
    const parsed = body.match(new RegExp(`parseOptions\\)?\\(\\s*[\\w$.]+,\\s*${flags.replace('$', '\\$')}\\s*\\)`, 'g'))?.length ?? 0;
    if (uses !== parsed) problems.push(`${path}: the options record "${flags}" is used other than as parseOptions(SPECS, ${flags})`);
  }
  if (/\.opts\(\)/.test(source)) problems.push(`${path}: reads options through the command (.opts())`);
  return problems;
}

const io = fakeIo();
const ctx = createContext({ io, env: {}, signal: new AbortController().signal, version: '0.0.0', flags: () => ({}) });
const program = await loadProgram(ctx);
const commands = leaves(program);

describe('every command takes its options as data', () => {
  it('builds the whole tree, every action recorded', () => {
    expect(commands.length).toBeGreaterThan(20);
    for (const [path, cmd] of commands) if (cmd.commands.length === 0) expect(handlers.has(cmd), path).toBe(true);
  });

  it('each option of each command comes from its declaration (withOptions), --help aside', () => {
    const undeclared = commands.flatMap(([path, cmd]) =>
      cmd.options.filter((o) => o.long !== '--help' && !isDeclared(o)).map((o) => `${path} ${o.flags}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('each action hands its flags record to parseOptions alone', () => {
    const problems = commands.flatMap(([path, cmd]) => {
      const fn = handlers.get(cmd);
      return fn ? actionProblems(path, cmd, fn.toString()) : [];
    });
    expect(problems).toEqual([]);
  });

  it('tells an option added by hand from a declared one', () => {
    const cmd = withOptions(new Command('x'), { web: { flags: '--web', description: 'web', parse: on() } }).option('--raw', 'by hand');
    expect(cmd.options.map((o) => [o.long, isDeclared(o)])).toEqual([
      ['--web', true],
      ['--raw', false],
    ]);
  });

  it('catches a record read by hand, passed on, destructured or read through the command', () => {
    const one = new Command('x').argument('<a>');
    const good = 'async (a, flags) => { await runF(parseOptions(OPTIONS, flags), ctx); }';
    expect(actionProblems('x', one, good)).toEqual([]);
    expect(actionProblems('x', one, 'async (a, _flags, self) => { self.help(); }')).toEqual([]);
    expect(actionProblems('x', one, 'async (a, flags) => { const o = parseOptions(OPTIONS, flags); use(flags.resume); }')).toHaveLength(1);
    expect(actionProblems('x', one, 'async (a, raw) => { await runF(parse(raw, ctx.env), ctx); }')).toHaveLength(1);
    expect(actionProblems('x', one, 'async (a, { man }) => { use(man); }')).toHaveLength(1);
    expect(actionProblems('x', one, 'async (a, _f, cmd) => { use(cmd.opts().x); }')).toHaveLength(1);
    expect(actionProblems('x', new Command('y'), 'async (flags) => { await runF(flags, ctx); }')).toHaveLength(1);
  });
});
