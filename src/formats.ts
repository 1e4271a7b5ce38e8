/**
 * The output formats every data command accepts (`--format`, the `format` setting); written once,
 * here. A leaf module (it imports nothing), so the config store may check the setting against it
 * without reaching into the terminal layer.
 */
export const OUTPUT_FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Whether a format is read by a person at a terminal, so a pager helps and tables are fitted to
 * its width: the table; the others are for scripts.
 */
export function forPeople(format: OutputFormat): boolean {
  return format === 'table';
}

/** The formats as a person reads a choice: `table, tsv, csv, json or ndjson`. */
export function formatChoices(): string {
  return `${OUTPUT_FORMATS.slice(0, -1).join(', ')} or ${OUTPUT_FORMATS[OUTPUT_FORMATS.length - 1]}`;
}
