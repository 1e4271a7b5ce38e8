/**
 * The output formats every data command accepts (`--format`, the `format` setting), and what each
 * one is; written once, here. A leaf module (it imports nothing), so the settings (src/settings.ts)
 * check the setting against it, and a command ask whether its output is for people, without loading
 * the terminal layer. Each format's writer is in its record in src/io/formats.ts: a name added here does
 * not compile until its traits below and that record exist.
 */
export const OUTPUT_FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * What a format is. `documents`: the service's reply as JSON, never a view of it; a reply goes out
 * `whole`, the one document it is (a list's page with its `meta`), which then says what notes would
 * (`✓ Created`, "nothing matched"), or as `items`, one document a line (a list as its items, a
 * reply that is one object as one line). `rows`: a view of the reply in columns, the command's
 * declared ones first. The reader: a person at a terminal (a pager, a table fitted to the width,
 * pictures, notes and footers beside the data, a list in a cell as `a, b`) or a program (the data
 * alone, every character and number as sent).
 */
export type FormatTraits =
  | { readonly kind: 'documents'; readonly reader: 'programs'; readonly reply: 'whole' | 'items' }
  | {
      readonly kind: 'rows';
      readonly reader: 'people' | 'programs';
      /** `lines`: one record alone (a keyword card) goes out as one `field<TAB>value` line per field, grep-able (gh's `view`). */
      readonly record?: 'lines';
    };

export const FORMAT_TRAITS = {
  table: { kind: 'rows', reader: 'people' },
  tsv: { kind: 'rows', reader: 'programs', record: 'lines' },
  csv: { kind: 'rows', reader: 'programs' },
  json: { kind: 'documents', reader: 'programs', reply: 'whole' },
  ndjson: { kind: 'documents', reader: 'programs', reply: 'items' },
} as const satisfies { readonly [F in OutputFormat]: FormatTraits };

function traits(format: OutputFormat): FormatTraits {
  return FORMAT_TRAITS[format];
}

/**
 * Whether a format is read by a person at a terminal, so a pager helps, tables are fitted to its
 * width and notes go beside the data; the others are for programs.
 */
export function forPeople(format: OutputFormat): boolean {
  return traits(format).reader === 'people';
}

/** Whether the format is JSON documents: the reply goes out as sent, no prose. */
export function printsDocuments(format: OutputFormat): boolean {
  return traits(format).kind === 'documents';
}

/** Whether a reply goes out as the one document it is (json), which then says what notes would. */
export function printsWholeReply(format: OutputFormat): boolean {
  const t = traits(format);
  return t.kind === 'documents' && t.reply === 'whole';
}

/** Whether one record alone (a card) is printed as `field<TAB>value` lines rather than one row. */
export function printsRecordAsLines(format: OutputFormat): boolean {
  const t = traits(format);
  return t.kind === 'rows' && t.record === 'lines';
}

/** The formats as a person reads a choice: `table, tsv, csv, json or ndjson`. */
export function formatChoices(): string {
  return `${OUTPUT_FORMATS.slice(0, -1).join(', ')} or ${OUTPUT_FORMATS[OUTPUT_FORMATS.length - 1]}`;
}
