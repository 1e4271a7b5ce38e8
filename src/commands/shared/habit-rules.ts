/**
 * What a habit is (src/commands/shared/habits.ts holds the table), and the rewrites the table's
 * entries share: a flag's value moved to the argument, a count to `--limit`, kubectl's resource
 * words to rsi's commands, and the other tools' query languages (az's JMESPath, gh's and docker's Go
 * templates, kubectl's sort keys) as jq over the list where rsi's document keeps it.
 */

export type Tool = 'gh' | 'kubectl' | 'az' | 'aws' | 'docker';

/** The project of the sandbox's seed the table's examples use (the demo user is its editor). */
export const P = 'KRAS inhibitors';

/**
 * A command line as a person used to another tool types it, which the e2e test runs against the
 * sandbox (test/e2e/habits.test.ts): the answer's command, followed, must exit 0; a habit that
 * works as typed must itself. `env`: what the line needs beyond a token: a stored sign-in of its own
 * (`login`, `logout`), or a default project (`rsi status --web`).
 */
export interface Example {
  typed: readonly string[];
  env?: 'signed-in' | 'default-project';
}

export interface Habit {
  /** The tool whose habit it is, for the docs table. */
  from: Tool;
  /** As a person used to the other tool types it in rsi, for the docs table: `rsi auth login`. */
  theirs: string;
  /** rsi's equivalent as shown in the docs table. */
  ours: string;
  /** A command word: the group it was typed under ('' for the top level) and the word itself. */
  command?: { under: string; word: string };
  /** A flag, and the command paths it is a habit on (none: every command). */
  option?: { names: readonly string[]; on?: readonly string[] };
  /**
   * The person's words from the habit on, rewritten to rsi's (`words[0]` is the habit's word or
   * flag, with any `=value` split off into words[1]): always a command, never prose. `takes` is
   * what the command the words were typed on accepts. Absent: the habit works as typed (`works`).
   */
  rewrite?: (words: readonly string[], takes: Takes) => Rewrite;
  /** rsi does what the habit means as typed: no answer is printed; the examples run as they are. */
  works?: true;
  /** Why there is no command to offer (the service's API has no such operation); the one exception. */
  none?: string;
  /** Lines the table answers, each run by test/e2e/habits.test.ts (and their answers followed). */
  examples: readonly Example[];
}

/** What the command a habit was typed on accepts: its long options, its arguments, its rows. */
export interface Takes {
  options: readonly string[];
  args: readonly string[];
  /** The member of its JSON document that holds the list (`projects`, `data`); none: the document is the row. */
  rows?: string | undefined;
  /** Its fields (`--fields`), with the JSON path of each, for a sort key or a column named in another tool's words. */
  fields?: readonly { name: string; path: string }[] | undefined;
  /** The largest `--limit` it takes, where its help says (`1 to 20`). */
  limitMax?: number | undefined;
}

/** Words replacing the first `consumed` words of the habit's tail (the rest is kept). */
export interface Rewrite {
  words: readonly string[];
  consumed: number;
  /** Words appended at the end of the rewritten command line (a project moved to its argument). */
  append?: readonly string[];
  /** The command's words (`signals`) replaced by these (`status`), its argument and flags kept. */
  command?: readonly string[];
  /** The whole line after `rsi` instead (`projects list -R P` → `status P`): the typed command has no place for the words. */
  instead?: readonly string[];
}

/** jq for the list of a command's document: `.projects`, `.data`; `.` where the document is the row. */
export function listOf(takes: Takes): string {
  return takes.rows ? `.${takes.rows}` : '.';
}

/** jq iterating that list: `.projects[]`. */
function eachOf(takes: Takes): string {
  return takes.rows ? `.${takes.rows}[]` : '.';
}

/** kubectl's, az's and aws's output names, as rsi's flags (JSON is YAML too: a YAML reader takes it). */
export const FORMATS: Record<string, readonly string[]> = {
  json: ['--json'],
  jsonc: ['--json'],
  yaml: ['--json'],
  yamlc: ['--json'],
  wide: ['--wide'],
  table: ['--format', 'table'],
  tsv: ['--format', 'tsv'],
  text: ['--format', 'tsv'],
  csv: ['--format', 'csv'],
  ndjson: ['--format', 'ndjson'],
};

/** `-o name` and the like: the names alone, one a line. */
export const namesOf = (takes: Takes): readonly string[] => ['--jq', takes.rows ? `.${takes.rows}[].name` : '.name'];

/** `-o FORMAT` / `--output FORMAT`: rsi's flag for it; a kubectl column list as --fields; any other as --json. */
export const outputFlag = (words: readonly string[], takes: Takes): Rewrite => {
  const value = words[1];
  if (value === undefined || value.startsWith('-')) return { words: ['--json'], consumed: 1 };
  if (value === 'name') return { words: namesOf(takes), consumed: 2 };
  const columns = /^custom-columns=(.+)$/.exec(value)?.[1];
  if (columns) {
    const names = columns.split(',').map((c) => fieldFor(c.split(':')[1] ?? c, takes).name);
    return { words: ['--fields', names.join(',')], consumed: 2 };
  }
  return { words: FORMATS[value.toLowerCase()] ?? ['--json'], consumed: 2 };
};

/** Replace the habit's word(s) with `words`, keep everything after. */
export const replace =
  (words: readonly string[], consumed = 1) =>
  (): Rewrite => ({ words, consumed });

/** Drop the habit's word(s): rsi does that already (`--no-paginate`: one page is the default). */
export const drop =
  (consumed = 1) =>
  (): Rewrite => ({ words: [], consumed });

/** A flag whose value is the project: the value moves to the command's argument, or to `rsi status` where it takes none. */
export const projectFlag = (words: readonly string[], takes: Takes): Rewrite => {
  const value = words[1];
  if (value === undefined || value.startsWith('-')) return { words: [], consumed: 1 };
  if (!takes.args.includes('project')) return { words: [], consumed: 2, instead: ['status', value] };
  return { words: [], consumed: 2, append: [value] };
};

/**
 * A count: `--limit N` where the command takes one (within its range; beyond it, every page cut to
 * N: `--all --jq '.[:N]'`), `--top N` on analyses run, else the first N of the list with `--jq`.
 */
export const countFlag = (words: readonly string[], takes: Takes): Rewrite => {
  const n = words[1] ?? '';
  if (!/^\d+$/.test(n)) return { words: [], consumed: 1 };
  if (takes.options.includes('--top')) return { words: ['--top', n], consumed: 2 };
  if (takes.options.includes('--limit')) {
    if (takes.limitMax !== undefined && Number(n) > takes.limitMax && takes.options.includes('--all'))
      return { words: ['--all', '--jq', `.[:${n}]`], consumed: 2 };
    return { words: ['--limit', n], consumed: 2 };
  }
  return { words: ['--jq', `${listOf(takes)}[:${n}]`], consumed: 2 };
};

/** A value word after a habit's word (`rsi browse P`), not a flag. */
export const operand = (word: string | undefined): string | undefined => (word === undefined || word.startsWith('-') ? undefined : word);

/**
 * kubectl's `get`/`describe RESOURCE [NAME]`: rsi's command for that resource and name; no
 * resource word (`describe P`): a project's status; nothing rsi knows: the list of projects.
 */
export const resource = (w: readonly string[], bareIsProject: boolean): Rewrite => {
  const kind = w[1] ?? '';
  const name = operand(w[2]);
  if (/^(projects?|proj)$/.test(kind))
    return name ? { words: ['status', name], consumed: 3 } : { words: ['projects', 'list'], consumed: 2 };
  if (/^(keywords?|kw)$/.test(kind))
    return name ? { words: ['keywords', 'get', name], consumed: 3 } : { words: ['projects', 'list'], consumed: 2 };
  if (/^(signals?|opportunit(y|ies)|scoreboards?)$/.test(kind)) {
    const command = kind.startsWith('signal') ? 'signals' : kind.startsWith('opportunit') ? 'opportunities' : 'scoreboard';
    return name ? { words: [command, name], consumed: 3 } : { words: ['projects', 'list'], consumed: 2 };
  }
  if (/^(analyses|analysis|status)$/.test(kind))
    return name ? { words: ['status', name], consumed: 3 } : { words: ['projects', 'list'], consumed: 2 };
  // `describe P`: a project; `get pods`: a kind rsi has not, so the list of what it has.
  const bare = bareIsProject ? operand(w[1]) : undefined;
  return bare ? { words: ['status', bare], consumed: 2 } : { words: ['projects', 'list'], consumed: w.length };
};

/** gh's `-q EXPR` is --jq; docker's `-q` alone (quiet: the ids) is the ids of the list. */
export const qFlag = (words: readonly string[], takes: Takes): Rewrite =>
  /^[.[{"]/.test(words[1] ?? '') ? { words: ['--jq', words[1]!], consumed: 2 } : quietFlag(words, takes);

/** docker's and aws's `--quiet`: a list's ids alone, one a line; elsewhere the command without it. */
export const quietFlag = (_words: readonly string[], takes: Takes): Rewrite => {
  if (!takes.rows) return { words: [], consumed: 1 };
  const id = takes.fields?.find((f) => f.name === 'id') ?? takes.fields?.find((f) => f.name === 'keyword_id');
  return { words: ['--jq', `.${takes.rows}[].${id?.path ?? 'id'}`], consumed: 1 };
};

/** `-v`: the version where it is all that was typed (`rsi -v`), else the trace (--debug). */
export const verboseFlag = (words: readonly string[], takes: Takes): Rewrite =>
  takes.options.includes('--version') && words.length === 1
    ? { words: ['--version'], consumed: 1 }
    : { words: ['--debug'], consumed: words[1] !== undefined && /^\d+$/.test(words[1]) ? 2 : 1 };

/** gh's `--hostname HOST`: the service's base URL (https, or http for a loopback host, as rsi allows). */
export const hostnameFlag = (words: readonly string[]): Rewrite => {
  const host = operand(words[1]);
  if (!host) return { words: [], consumed: 1 };
  if (/^https?:\/\//.test(host)) return { words: ['--base-url', host], consumed: 2 };
  const loopback = /^(localhost|127(\.\d+){3}|\[::1\])(:\d+)?$/.test(host);
  return { words: ['--base-url', `${loopback ? 'http' : 'https'}://${host}`], consumed: 2 };
};

/** A field named in another tool's words (`.metadata.name`, `{.name}`, `Name`): the command's field and its JSON path. */
function fieldFor(raw: string, takes: Takes): { name: string; path: string } {
  const words = raw
    .replace(/[{}]/g, '')
    .replace(/^\.+/, '')
    .split('.')
    .filter((w) => w !== '' && w !== 'items' && w !== '[*]' && w !== 'metadata');
  const head = (words[words.length - 1] ?? raw).replace(/\[.*\]$/, '');
  const known = takes.fields?.find((f) => f.name === head || f.name === head.toLowerCase());
  return known ?? { name: head, path: head };
}

/** kubectl's `--sort-by=.metadata.name`, `--sort FIELD` (`-FIELD`: descending): jq's sort_by over the list. */
export const sortFlag = (words: readonly string[], takes: Takes): Rewrite => {
  const value = operand(words[1]) ?? (words[1]?.startsWith('-') && /^-\w/.test(words[1]) && !/^--/.test(words[1]) ? words[1] : undefined);
  const key = value ?? 'name';
  const descending = key.startsWith('-');
  const { path } = fieldFor(descending ? key.slice(1) : key, takes);
  return {
    words: ['--jq', `${listOf(takes)} | sort_by(.${path})${descending ? ' | reverse' : ''}`],
    consumed: value === undefined ? 1 : 2,
  };
};

/**
 * az's `--query` (JMESPath) as jq, for the expressions people type: projections (`[].name`,
 * `[*].name`), indexes and slices, filters (`[?role=='owner']`), multiselect hashes and lists
 * (`[].{n: name, id: id}`), `length(@)`. The list JMESPath starts from is where rsi's document
 * keeps it (`.projects`). Anything else: the list itself, to go on from with jq.
 */
export const queryFlag = (words: readonly string[], takes: Takes): Rewrite => {
  const query = words[1];
  if (query === undefined) return { words: ['--jq', listOf(takes)], consumed: 1 };
  return { words: ['--jq', jmesPathAsJq(query, takes) ?? listOf(takes)], consumed: 2 };
};

export function jmesPathAsJq(query: string, takes: Takes): string | undefined {
  let q = query.trim();
  if (q === '@' || q === '') return listOf(takes);
  if (/^length\(@\)$/.test(q)) return `${listOf(takes)} | length`;
  // The list JMESPath starts from (`[…`) is the command's list; a name starts from the document.
  let out = q.startsWith('[') ? listOf(takes).replace(/^\.$/, '') : '';
  let iterating = false;
  while (q.length > 0) {
    let m: RegExpExecArray | null;
    if ((m = /^\[\*?\]/.exec(q))) {
      out += '[]';
      iterating = true;
    } else if ((m = /^\[(-?\d*):(-?\d*)\]/.exec(q))) out += `[${m[1]}:${m[2]}]`;
    else if ((m = /^\[(-?\d+)\]/.exec(q))) out += `[${m[1]}]`;
    else if ((m = /^\[\?\s*([\w.]+)\s*(==|!=|<=|>=|<|>)\s*(?:'([^']*)'|`([^`]*)`|(-?\d+(?:\.\d+)?))\s*\]/.exec(q))) {
      const value = m[3] !== undefined ? JSON.stringify(m[3]) : m[4] !== undefined ? m[4] : m[5];
      out += `[] | select(.${m[1]} ${m[2]} ${value})`;
      iterating = true;
    } else if ((m = /^\.?\{([^}]*)\}/.exec(q))) {
      const pairs = m[1]!.split(',').map((p) => p.split(':').map((s) => s.trim()));
      if (pairs.some((p) => p.length !== 2 || !/^\w+$/.test(p[0]!) || !/^[\w.]+$/.test(p[1]!))) return undefined;
      out += `${out === '' || out.endsWith(')') ? (out === '' ? '' : ' | ') : ' | '}{${pairs.map(([k, v]) => `${k}: .${v}`).join(', ')}}`;
    } else if ((m = /^\.?\[([\w.]+(?:\s*,\s*[\w.]+)+)\]/.exec(q))) {
      out += `${out === '' ? '' : ' | '}[${m[1]!
        .split(',')
        .map((f) => `.${f.trim()}`)
        .join(', ')}]`;
    } else if ((m = /^\.?([A-Za-z_]\w*)/.exec(q))) {
      out += out.endsWith(')') ? ` | .${m[1]}` : `.${m[1]}`;
    } else return undefined;
    q = q.slice(m[0].length).trim();
  }
  // A projection in JMESPath gives one list; jq gives a stream: collect it as az prints it.
  return iterating ? `[${out}]` : out || '.';
}

/**
 * gh's `--template` and docker's `--format` (Go templates) as a jq string: `{{.name}}` is
 * `\(.name)`, text stays text, `{{range .}}…{{end}}` iterates the list (a list command iterates it
 * anyway, as docker's `--format` does per item), `{{tablerow .a .b}}` is the fields joined by a tab.
 * A field spelled as docker does (`.Name`) is the command's field of that name.
 */
export const templateFlag = (words: readonly string[], takes: Takes): Rewrite => {
  const template = words[1];
  if (template === undefined) return { words: ['--json'], consumed: 1 };
  if (/^\{\{\s*json\s+\.\s*\}\}$/.test(template)) return { words: ['--format', 'ndjson'], consumed: 2 };
  return { words: ['--jq', goTemplateAsJq(template, takes)], consumed: 2 };
};

export function goTemplateAsJq(template: string, takes: Takes): string {
  const field = (path: string): string => {
    const parts = path.replace(/^\./, '').split('.');
    const [head = '', ...rest] = parts;
    const known = takes.fields?.find((f) => f.name === head || f.name === head.toLowerCase());
    return `.${[known?.path ?? head, ...rest].filter(Boolean).join('.')}`;
  };
  let iterate = takes.rows !== undefined;
  let over = eachOf(takes);
  let body = '';
  for (const part of template.split(/(\{\{-?\s*[^}]*?\s*-?\}\})/)) {
    const action = /^\{\{-?\s*(.*?)\s*-?\}\}$/.exec(part)?.[1];
    if (action === undefined) {
      body += jqStringText(part);
      continue;
    }
    const range = /^range\s+(\S+)$/.exec(action)?.[1];
    if (range !== undefined) {
      iterate = true;
      if (range !== '.') over = `${field(range)}[]`;
    } else if (action === 'end') {
      // The range's end: what follows it is printed per item too (jq prints one line per item).
    } else if (/^"(.*)"$/.test(action)) body += /^"(.*)"$/.exec(action)![1]!;
    else if (/^tablerow\s/.test(action)) {
      body += `${action
        .split(/\s+/)
        .slice(1)
        .map((p) => `\\(${field(p)})`)
        .join('\\t')}\\n`;
    } else if (/^\.[\w.]*$/.test(action)) body += action === '.' ? '\\(.)' : `\\(${field(action)})`;
  }
  // jq ends each string with a newline of its own.
  body = body.replace(/(\\n)+$/, '');
  return `${iterate ? `${over} | ` : ''}"${body}"`;
}

/** Text as it stands inside a jq string literal: `"` and `\` escaped, a newline or tab as `\n`, `\t`. */
function jqStringText(text: string): string {
  return text
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t');
}
