import { readFileSync } from 'node:fs';

/** The README, as the readme specs check it against the library. */
export const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The body rows of the first table after `marker`, each row's cells (the outer pipes dropped). */
export function readmeTable(marker: string): string[][] {
  return markdownTable(README, marker, 'README');
}

/** The body rows of the first table after `marker` in a Markdown text (`source` names it in errors). */
export function markdownTable(text: string, marker: string, source: string): string[][] {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${source} has no "${marker}"`);
  const lines = text.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, line.endsWith('|') ? -1 : undefined).split(' | ').map((cell) => cell.trim()));
  }
  return rows;
}
