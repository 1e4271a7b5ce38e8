/**
 * The sandbox's injectable faults (`--fault NAME`) and the reply rewrites some of them need. The
 * effects are documented fault by fault in docs/sandbox.md; this module imports nothing from the
 * rest of the sandbox so every other module may use it.
 */

export const FAULTS = [
  'analyses-504',
  'register-429',
  'scan-error',
  'slow',
  'html-502',
  'truncated-json',
  'bad-schema',
  'hang',
  'reset',
  'rate-limit',
  'flaky-503',
  'short-pages',
  'wrong-total',
  'sparse',
  'hostile',
] as const;
export type Fault = (typeof FAULTS)[number];

/** short-pages: the most hits a search page holds, whatever `limit` asked. */
export const SHORT_SEARCH_PAGE = 7;
/** short-pages: the most rows a relations page holds, whatever `limit` asked. */
export const SHORT_RELATIONS_PAGE = 50;

/**
 * wrong-total: what relations `meta.total` (and an include section's `total`) claims. Diseases
 * under-report (half the real count, rounded down); every other keyword over-reports by 25. The
 * rows themselves still end where the data ends.
 */
export function wrongTotal(realTotal: number, keywordType: string): number {
  return keywordType === 'disease' ? Math.floor(realTotal / 2) : realTotal + 25;
}

// --- sparse -------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

const pick = (o: Json, keys: readonly string[]): Json => Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));

/** Relation rows (and include-section rows): only the required `id` and `name`. */
function sparseRow(row: unknown): unknown {
  return typeof row === 'object' && row !== null ? pick(row as Json, ['id', 'name']) : row;
}

/**
 * sparse: the reply of `route` ("METHOD /api/v1/template") with every member the spec does not mark
 * required left out and every required "or null" member set to null. Where a table has no Required
 * column (KeywordScore, AnalysesResult, status `analyses[]`), docs/sandbox.md says what is kept.
 */
export function sparsify(route: string, body: unknown, faults: ReadonlySet<Fault>): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const b = body as Json;
  switch (route) {
    case 'GET /api/v1/keywords/{keywordId}': {
      const card: Json = {
        ...b,
        type: null,
        description: null,
        activity: { papers: null, patents: null, trials: null, assets: null },
        // as_of left out; composite null (a nullable object); the other five keep only `raw: null`.
        scores: Object.fromEntries(
          ['composite', 'momentum', 'maturity', 'competition', 'risk', 'translation'].map((n) => [
            n,
            n === 'composite' ? null : { raw: null },
          ]),
        ),
      };
      for (const [key, value] of Object.entries(b)) {
        if (typeof value === 'object' && value !== null && Array.isArray((value as Json).data)) {
          card[key] = { ...(value as Json), data: ((value as Json).data as unknown[]).map(sparseRow) };
        }
      }
      return card;
    }
    case 'GET /api/v1/keywords/{keywordId}/relations': {
      const meta = b.meta as Json;
      return { data: (b.data as unknown[]).map(sparseRow), meta: pick(meta, ['relation', 'limit', 'offset', 'total']) };
    }
    case 'GET /api/v1/projects':
      return { projects: (b.projects as Json[]).map((p) => pick(p, ['id', 'name', 'role'])) };
    case 'POST /api/v1/projects':
      // scan_error is optional, but it is the whole point of --fault scan-error: that fault wins.
      return pick(b, faults.has('scan-error') ? ['id', 'name', 'role', 'setup_url', 'scan_error'] : ['id', 'name', 'role', 'setup_url']);
    case 'GET /api/v1/projects/{projectId}/status':
      return { ...b, analyses: (b.analyses as Json[]).map(sparseAnalysis) };
    case 'GET /api/v1/projects/{projectId}/signals':
      return { ...b, signals: (b.signals as Json[]).map((s) => pick(s, ['keyword_id', 'signal_keyword_id', 'type', 'analysed'])) };
    case 'GET /api/v1/projects/{projectId}/opportunities':
      return { keywords: b.keywords, error: null };
    case 'POST /api/v1/projects/{projectId}/analyses':
      return {
        needs_confirmation: b.needs_confirmation,
        runs: b.runs,
        skipped: (b.skipped as Json[]).map((s) => pick(s, ['keyword_id', 'signal_keyword_id'])),
      };
    default:
      return body;
  }
}

/** Status `analyses[]` members are all optional: item i keeps one of four subsets, in turn. */
function sparseAnalysis(item: Json, i: number): Json {
  const runs = (item.runs as Json[] | undefined) ?? [];
  switch (i % 4) {
    case 0:
      return pick(item, ['keyword_id', 'status']);
    case 1:
      return { ...pick(item, ['keyword_name', 'task_id']), runs: runs.map((r) => pick(r, ['id'])) };
    case 2:
      return { ...pick(item, ['status', 'updated_at']), runs: runs.map((r) => pick(r, ['id', 'type'])) };
    default:
      return {};
  }
}

// --- hostile ------------------------------------------------------------------------------------

/**
 * hostile: the control sequences planted in every person-written or shared-data string. Each one
 * would do harm if a client wrote it raw to a terminal.
 */
export const HOSTILE_ESCAPES = [
  '\x1b[2J', // ESC [2J: clear the screen
  '\x1b]8;;http://evil.example\x07click\x1b]8;;\x07', // OSC 8 hyperlink
  '\x1b]52;c;ZWNobyBwd25lZA==\x07', // OSC 52: write the clipboard ("echo pwned")
  '\u009b31m', // C1 CSI: red text without ESC
  '\x07', // BEL
  '\b', // backspace
  '\r', // carriage return: the rest overwrites the line's start
  '\x7f', // DEL
  '\u202e', // RIGHT-TO-LEFT OVERRIDE
  '\u2066', // LEFT-TO-RIGHT ISOLATE
  '\u2067', // RIGHT-TO-LEFT ISOLATE
  '\u2068', // FIRST STRONG ISOLATE
  '\u2069', // POP DIRECTIONAL ISOLATE
  '\u0085', // C1 NEXT LINE
  '\u200b', // ZERO WIDTH SPACE: `Alpha` and `Alpha\u200b` look the same raw
  '\u2060', // WORD JOINER
  '\ufeff', // BYTE ORDER MARK
  '\u00ad', // SOFT HYPHEN
  '\u{e0067}', // TAG LATIN SMALL LETTER G (invisible)
] as const;

/**
 * hostile: what a reply's `assumption` gets after its escapes: lines that imitate rsi's own
 * confirmation text, so a client that prints it raw (or line by line) shows a forged prompt.
 */
export const HOSTILE_FORGED_LINES = '\n\nNothing was run.\n? Run 1 analysis for "KRAS inhibitors"? Yes\n✓ Started 1 analysis';

/**
 * hostile: a project created with a name starting `url:` gets the rest of the name as its
 * `setup_url` (`url:file:///etc/passwd`, `url:javascript:alert(1)`, `url:--help`, another host), and
 * one starting `id:` the rest as its `id` (`id:$(touch pwned)`), so a test can try each URL and id
 * on the opener and on the suggested commands.
 */
export const HOSTILE_URL_PREFIX = 'url:';
export const HOSTILE_ID_PREFIX = 'id:';

/**
 * hostile: the extra API routes `rsi api` is tried on (GET only). `text` is a text/plain body and
 * `broken-json` a JSON-typed body that does not parse, both full of escapes; `numbers` is JSON
 * with integers beyond 2^53 and `__proto__`/`constructor` members.
 */
export const HOSTILE_ROUTES: Record<string, { type: string; body: string }> = {
  '/api/v1/hostile/text': {
    type: 'text/plain; charset=utf-8',
    body: `plain text ${'\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b]0;pwned\x07\u009b31m\u202e\u200b'}end\n`,
  },
  '/api/v1/hostile/broken-json': { type: 'application/json', body: `{"oops": ${'\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J'}` },
  '/api/v1/hostile/numbers': {
    type: 'application/json',
    body: '{"big":12345678901234567891,"neg":-98765432109876543210,"safe":9007199254740991,"__proto__":{"polluted":true},"constructor":{"name":"x"},"s":"\u0085\u202e\u200b"}',
  },
};

/** hostile: the text result of the sandbox MCP server's extra `hostile_text` tool. */
export const HOSTILE_MCP_TEXT = `tool text ${'\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b]0;pwned\x07\u009b31m\u202e\u200b'}end`;

/** hostile: spreadsheet formula starts; each hostile string begins with one of them. */
export const HOSTILE_FORMULA_STARTS = ['=HYPERLINK("http://evil.example","x")', "+cmd|' /C calc'!A0", '-2+3', '@SUM(1)', '\t'] as const;

/** The one seeded project whose name stays plain under hostile, so exact name lookup can be tried. */
export const HOSTILE_PLAIN_PROJECT = 'KRAS inhibitors';

/** Members whose string values (or string array items) hostile rewrites, wherever they appear. */
const HOSTILE_KEYS = new Set([
  'name',
  'synonyms',
  'description',
  'label',
  'brief',
  'summary',
  'keyword_name',
  'assumption',
  'reason',
  'error',
  'scan_error',
  'analysis_mode_label',
  'stage',
]);

/** Enum values that stay as they are even in a hostile member (ScopeError's `error`). */
const HOSTILE_KEEP = new Set(['insufficient_scope', HOSTILE_PLAIN_PROJECT]);

/**
 * The hostile form of `plain`: a formula start chosen from the text (so the same text always gets
 * the same form), the text, a space, then every escape. Deterministic, so a test can compute the
 * name a client will see.
 */
export function hostile(plain: string): string {
  let h = 0;
  for (const ch of plain) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
  return `${HOSTILE_FORMULA_STARTS[h % HOSTILE_FORMULA_STARTS.length]}${plain} ${HOSTILE_ESCAPES.join('')}`;
}

/** hostile: rewrites the person-readable strings of an API reply; ids, enums and URLs stay valid. */
export function hostileReply(body: unknown): unknown {
  const walk = (value: unknown, rewrite: boolean, key = ''): unknown => {
    if (typeof value === 'string') {
      if (!rewrite || HOSTILE_KEEP.has(value)) return value;
      return key === 'assumption' ? `${hostile(value)}${HOSTILE_FORGED_LINES}` : hostile(value);
    }
    if (Array.isArray(value)) return value.map((v) => walk(v, rewrite, key));
    if (typeof value === 'object' && value !== null) {
      const o = value as Json;
      const out = Object.fromEntries(Object.entries(o).map(([k, v]) => [k, walk(v, HOSTILE_KEYS.has(k), k)]));
      // A created project (it has a setup_url) whose name asks for a hostile URL or id.
      if (typeof o.name === 'string' && typeof o.setup_url === 'string') {
        if (o.name.startsWith(HOSTILE_URL_PREFIX)) out.setup_url = o.name.slice(HOSTILE_URL_PREFIX.length);
        if (o.name.startsWith(HOSTILE_ID_PREFIX)) out.id = o.name.slice(HOSTILE_ID_PREFIX.length);
      }
      return out;
    }
    return value;
  };
  return walk(body, false);
}

// --- bad-schema ---------------------------------------------------------------------------------

/** bad-schema: a reply that parses as JSON but breaks the spec's shapes. */
export function breakSchema(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const copy = structuredClone(body) as Record<string, unknown>;
  if (Array.isArray(copy.data)) copy.data = copy.data.map((item: Record<string, unknown>) => ({ ...item, name: 42 }));
  else if (Array.isArray(copy.projects))
    copy.projects = copy.projects.map((p: Record<string, unknown>) => ({ ...p, role: undefined, id: 7 }));
  else if ('scoring' in copy) copy.scoring = 'finished-ish';
  else if ('signals' in copy) copy.signals = 'none';
  else if ('keywords' in copy) copy.keywords = null;
  else copy.id = null;
  return copy;
}
