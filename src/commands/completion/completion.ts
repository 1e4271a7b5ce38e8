import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { OUTPUT_FORMATS } from '../../formats.js';
import { UsageError } from '../../errors.js';
import { ACTIVITIES, ANALYSIS_MODES, GOALS, RELATIONS, TOP_TYPES } from '../../client/enums.js';
import { printVerbatim } from '../../io/output.js';
import { type CommandDeclaration, commandFor } from '../declaration.js';

const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
type Shell = (typeof SHELLS)[number];

/** Values a flag takes, completed after it. Keyed by long flag; the same everywhere it appears. */
export const FLAG_VALUES: Record<string, readonly string[]> = {
  '--format': OUTPUT_FORMATS,
  '--relation': [...RELATIONS, 'all'],
  '--activity': [...ACTIVITIES, 'all'],
  '--goal': GOALS,
  '--type': TOP_TYPES,
  '--analysis-mode': ANALYSIS_MODES,
  '--operand': ['and', 'or'],
};

/** Values that come from the user's own data, asked of `rsi __complete <kind>` when completing. */
export const DYNAMIC_VALUES: Record<string, 'profiles'> = { '--profile': 'profiles' };

/** A completion that has to ask the service gives up after this long, silently. */
const FETCH_BUDGET_MS = 2_000;

export type CompletionOptions = { shell: Shell; program: Command };

export const command: CommandDeclaration = {
  path: 'completion',
  description: 'print a shell completion script (bash, zsh, fish or powershell)',
  examples: ['source <(rsi completion bash)', 'rsi completion powershell >> $PROFILE'],
  printsText: () => 'prints a shell script',
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return commandFor(command)
    .argument('<shell>', SHELLS.join(', '))
    .addHelpText(
      'after',
      '\nInstall:\n  bash: rsi completion bash > ~/.local/share/bash-completion/completions/rsi\n  zsh:  rsi completion zsh > "${fpath[1]}/_rsi"\n  fish: rsi completion fish > ~/.config/fish/completions/rsi.fish\n  powershell: rsi completion powershell >> $PROFILE\n\nCompletes commands, flags, flag values (--format, --relation, --activity, --goal, --type,\n--analysis-mode, --profile) and project names (asked of the service on each completion).',
    )
    .action(async (shell: string, _flags: unknown, self: Command) => {
      if (!(SHELLS as readonly string[]).includes(shell))
        throw new UsageError(`shell must be one of ${SHELLS.join(', ')} (got "${shell}")`);
      let root = self;
      while (root.parent) root = root.parent;
      await runF({ shell: shell as Shell, program: root }, ctx);
    });
}

/**
 * `rsi __complete <kind>`: the dynamic values a completion script asks for while the user presses
 * Tab. Hidden from help. Never fails and never writes to stderr: on any problem it prints nothing.
 */
export const valuesCommand: CommandDeclaration = {
  path: '__complete',
  description: 'print completion values: profiles or projects (used by the completion scripts)',
  hidden: true,
};

export function buildValues(ctx: Context): Command {
  return commandFor(valuesCommand)
    .argument('<kind>', 'profiles or projects')
    .action(async (kind: string) => {
      try {
        const found = kind === 'profiles' ? await profileNames(ctx) : kind === 'projects' ? await projectNames(ctx) : [];
        // Names are other people's text: one line each, every control and invisible character
        // shown as an escape, so an ESC in a project name never reaches the terminal a shell
        // completes on (the scripts below also never glob, eval or run a value).
        const { sanitizeLine } = await import('../../io/sanitize.js');
        const values = [...new Set(found.map(sanitizeLine))].filter((v) => v !== '');
        if (values.length) await printVerbatim(ctx.io, `${values.join('\n')}\n`);
      } catch {
        // Completion is a convenience: a broken config or an unreachable service completes nothing.
      }
    });
}

async function profileNames(ctx: Context): Promise<string[]> {
  const creds = await ctx.credentials();
  return Object.keys((await creds.config.read()).profiles).sort();
}

/**
 * Project names, asked of the service on each completion (as kubectl's completion does): nothing
 * is kept on disk to go faster (the contract: no cache files as a performance device), and a
 * service slower than FETCH_BUDGET_MS simply completes nothing.
 */
export async function projectNames(ctx: Context): Promise<string[]> {
  const creds = await ctx.credentials();
  if (!creds.baseUrl || !creds.source) return [];
  const client = await ctx.client();
  const { projects } = await client.listProjects(AbortSignal.any([ctx.signal, AbortSignal.timeout(FETCH_BUDGET_MS)]));
  return projects.map((p) => p.name);
}

interface Node {
  path: string[];
  description: string;
  subcommands: string[];
  flags: string[];
  /** What the first positional argument completes to. */
  positional: 'projects' | 'shells' | 'commands' | undefined;
}

function walk(cmd: Command, path: string[], inherited: string[], out: Node[]): void {
  if (cmd.name() === '__complete') return;
  const flags = [...inherited, ...cmd.options.map((o) => o.long).filter((l): l is string => !!l), '--help'];
  const first = cmd.registeredArguments[0]?.name();
  out.push({
    path,
    description: cmd.description(),
    subcommands: cmd.commands.map((c) => c.name()).filter((n) => n !== '__complete'),
    flags: [...new Set(flags)],
    positional: first === 'project' ? 'projects' : first === 'shell' ? 'shells' : first === 'command' ? 'commands' : undefined,
  });
  for (const sub of cmd.commands)
    walk(sub, [...path, sub.name()], path.length === 0 ? cmd.options.map((o) => o.long!).filter(Boolean) : inherited, out);
}

/** `program` is the root of the command tree this command was parsed from. */
export async function run(opts: CompletionOptions, ctx: Context): Promise<void> {
  // The build's rendering of the same script where there is one (then `program` holds only this
  // command); its own chunk, so `rsi __complete` on every Tab does not load the four scripts.
  const { prerendered } = await import('./scripts.js');
  await printVerbatim(ctx.io, prerendered(opts.shell) ?? script(opts.shell, opts.program));
}

export function script(shell: Shell, program: Command): string {
  const nodes: Node[] = [];
  walk(program, [], [], nodes);
  return shell === 'bash' ? bash(nodes) : shell === 'zsh' ? zsh(nodes) : shell === 'fish' ? fish(nodes) : powershell(nodes);
}

function staticPositional(n: Node, nodes: Node[]): string[] {
  if (n.positional === 'shells') return [...SHELLS];
  if (n.positional === 'commands') return nodes[0]!.subcommands.filter((s) => s !== 'help');
  return [];
}

function bash(nodes: Node[]): string {
  const transitions = nodes.flatMap((n) => n.subcommands.map((s) => `"${n.path.join(' ')}:${s}"`));
  const cases = nodes.map((n) => {
    const words = [...n.subcommands, ...staticPositional(n, nodes)].join(' ');
    const project = n.positional === 'projects' ? ' dynamic=projects' : '';
    return `    "${n.path.join(' ')}") words="${words}" flags="${n.flags.join(' ')}"${project} ;;`;
  });
  const values = Object.entries(FLAG_VALUES).map(([f, v]) => `    ${f}) _rsi_reply "${v.join(' ')}"; return ;;`);
  const dynamic = Object.entries(DYNAMIC_VALUES).map(([f, kind]) => `    ${f}) _rsi_dynamic ${kind}; return ;;`);
  return `# bash completion for rsi (generated by \`rsi completion bash\`)
# Completes commands, flags, flag values, profiles and project names (names come from
# \`rsi __complete\`, which asks the service each time and is silent on failure).
_rsi_reply() {
  local c
  COMPREPLY=()
  while IFS= read -r c; do [[ -n "$c" ]] && COMPREPLY+=("$c"); done < <(compgen -W "$1" -- "$cur")
}
# Values from \`rsi __complete\` are other people's text: read line by line (never split and
# globbed as an unquoted $values would be, never given to compgen -W, which expands), compared
# literally, and inserted quoted by printf %q, so $(…), backticks, ; and * stay text.
_rsi_dynamic() {
  local c
  COMPREPLY=()
  while IFS= read -r c; do
    [[ -n "$c" && "\${c:0:\${#cur}}" == "$cur" ]] && COMPREPLY+=("$(printf '%q' "$c")")
  done < <("\${COMP_WORDS[0]}" __complete "$1" 2>/dev/null)
}
_rsi_completion() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" key="" w i words="" flags="" dynamic=""
  ((COMP_CWORD > 0)) && prev="\${COMP_WORDS[COMP_CWORD - 1]}"
  case "$prev" in
${values.join('\n')}
${dynamic.join('\n')}
  esac
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$key:$w" in
      ${transitions.join('|')}) key="\${key:+$key }$w" ;;
    esac
  done
  case "$key" in
${cases.join('\n')}
  esac
  if [[ "$cur" == -* ]]; then
    _rsi_reply "$flags"
  elif [[ -n "$dynamic" ]]; then
    _rsi_dynamic "$dynamic"
  else
    _rsi_reply "$words"
  fi
}
complete -o default -F _rsi_completion rsi
`;
}

function zsh(nodes: Node[]): string {
  return `#compdef rsi
# zsh completion for rsi (generated by \`rsi completion zsh\`): the bash completion through bashcompinit.
autoload -U +X bashcompinit && bashcompinit
${bash(nodes)}`;
}

function fish(nodes: Node[]): string {
  const lines = ['# fish completion for rsi (generated by `rsi completion fish`)', 'complete -c rsi -f'];
  const q = (s: string): string => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  for (const n of nodes) {
    const cond = n.path.length === 0 ? '__fish_use_subcommand' : n.path.map((p) => `__fish_seen_subcommand_from ${p}`).join('; and ');
    for (const sub of n.subcommands) {
      const child = nodes.find((c) => c.path.join(' ') === [...n.path, sub].join(' '));
      lines.push(`complete -c rsi -n ${q(cond)} -a ${sub} -d ${q(child?.description ?? '')}`);
    }
    if (n.path.length > 0 && n.subcommands.length === 0) {
      for (const f of n.flags) {
        const values = FLAG_VALUES[f];
        const dynamic = DYNAMIC_VALUES[f];
        const arg = values ? ` -xa ${q(values.join(' '))}` : dynamic ? ` -xa ${q(`(rsi __complete ${dynamic} 2>/dev/null)`)}` : '';
        lines.push(`complete -c rsi -n ${q(cond)} -l ${f.replace(/^--/, '')}${arg}`);
      }
      if (n.positional === 'projects') lines.push(`complete -c rsi -n ${q(cond)} -a ${q('(rsi __complete projects 2>/dev/null)')}`);
      else if (n.positional) lines.push(`complete -c rsi -n ${q(cond)} -a ${q(staticPositional(n, nodes).join(' '))}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function powershell(nodes: Node[]): string {
  const ps = (s: string): string => `'${s.replaceAll("'", "''")}'`;
  const list = (xs: readonly string[]): string => `@(${xs.map(ps).join(', ')})`;
  const table = (entries: Array<[string, string]>): string => entries.map(([k, v]) => `    ${ps(k)} = ${v}`).join('\n');
  return `# PowerShell completion for rsi (generated by \`rsi completion powershell\`)
# Install: rsi completion powershell >> $PROFILE
Register-ArgumentCompleter -Native -CommandName rsi -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $subcommands = @{
${table(nodes.map((n) => [n.path.join(' '), list([...n.subcommands, ...staticPositional(n, nodes)])]))}
  }
  $flags = @{
${table(nodes.map((n) => [n.path.join(' '), list(n.flags)]))}
  }
  $projectCommands = ${list(nodes.filter((n) => n.positional === 'projects').map((n) => n.path.join(' ')))}
  $values = @{
${table(Object.entries(FLAG_VALUES).map(([f, v]) => [f, list(v)]))}
  }
  $dynamic = @{
${table(Object.entries(DYNAMIC_VALUES).map(([f, kind]) => [f, ps(kind)]))}
  }
  $words = @($commandAst.CommandElements | Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
  if ($wordToComplete -ne '' -and $words.Count -gt 0) { $words = @($words | Select-Object -First ($words.Count - 1)) }
  $key = ''
  foreach ($w in $words) {
    $next = if ($key) { "$key $w" } else { $w }
    if ($subcommands.ContainsKey($next)) { $key = $next }
  }
  $prev = if ($words.Count -gt 0) { $words[-1] } else { '' }
  $exe = $commandAst.CommandElements[0].ToString()
  if ($values.ContainsKey($prev)) { $candidates = $values[$prev] }
  elseif ($dynamic.ContainsKey($prev)) { $candidates = @(& $exe __complete $dynamic[$prev] 2>$null) }
  elseif ($wordToComplete.StartsWith('-')) { $candidates = $flags[$key] }
  elseif ($projectCommands -contains $key) { $candidates = @(& $exe __complete projects 2>$null) }
  else { $candidates = $subcommands[$key] }
  # Compared as text, not as a -like wildcard; inserted in single quotes (nothing expands inside
  # them in PowerShell; every quote mark, typographic ones too, is doubled) unless the value is a
  # plain word, so $(…), backticks and ; stay text.
  $candidates | Where-Object { $_ -is [string] -and $_.StartsWith($wordToComplete, [System.StringComparison]::OrdinalIgnoreCase) } | ForEach-Object {
    $text = if ($_ -match '^[A-Za-z0-9_./:@%+=-]+$') { $_ } else { "'" + ($_ -replace "(['\\u2018\\u2019\\u201a\\u201b])", '$1$1') + "'" }
    [System.Management.Automation.CompletionResult]::new($text, $_, 'ParameterValue', $_)
  }
}
`;
}
