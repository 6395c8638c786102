import { readFileSync } from 'node:fs';

/** The README, as the readme specs check it against the library. */
export const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The body rows of the first table after `marker`, each row's cells (the outer pipes dropped). */
export function readmeTable(marker: string): string[][] {
  const at = README.indexOf(marker);
  if (at < 0) throw new Error(`README has no "${marker}"`);
  const lines = README.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, line.endsWith('|') ? -1 : undefined).split(' | ').map((cell) => cell.trim()));
  }
  return rows;
}
