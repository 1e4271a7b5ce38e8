/**
 * The columns `rsi mcp tools` shows, declared once: the command prints them and `--fields` takes
 * their keys (the command's declaration lists them as its fields; test/unit/fields-every-
 * format.test.ts holds the two together). Plain data.
 */
import type { Column } from '../../../io/columns.js';

export interface ToolRow {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
}

/** `args`: a tool's arguments as one cell (`name*:string limit:integer`). */
export function toolColumns<T extends ToolRow>(args: (tool: T) => string): Column<T>[] {
  return [
    { header: 'NAME', value: (t) => t.name, keep: true },
    // Read from the tool's `inputSchema` (csv/tsv give no column of their own to a member a column shows).
    { header: 'ARGUMENTS', member: 'inputSchema', value: args },
    { header: 'DESCRIPTION', member: ['title', 'description'], value: (t) => t.title ?? t.description ?? '', flexible: true },
  ];
}
