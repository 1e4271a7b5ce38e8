/** The output formats every data command accepts (`--format`); written once, here. */
export const OUTPUT_FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
