// Types for src/build/audit.mjs (plain JavaScript, run by Node from the checkout).
export interface Advisory {
  id?: number;
  url?: string;
  title?: string;
  severity?: string;
  vulnerable_versions?: string;
}
export function npmPackageOf(purl: string): [name: string, version: string] | undefined;
export function auditRequest(sbom: { components?: { name: string; version: string; purl?: string }[] }): {
  body: Record<string, string[]>;
  others: string[];
};
export function findings(
  body: Record<string, string[]>,
  reply: Record<string, Advisory[]>,
): { name: string; version: string; advisory: Advisory }[];
export function audit(options: {
  sbomFile: string;
  registry: string;
  require?: boolean;
  write?: (text: string) => void;
  warn?: (text: string) => void;
  timeoutMs?: number;
}): Promise<number>;
