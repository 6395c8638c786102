import { readFileSync } from 'node:fs';

/**
 * A Markdown file of the repository (README.md, or a page of the docs site
 * such as docs/guide/jobs.md), as the readme specs check it against the
 * library: the examples and tables they test live where a reader finds them.
 */
export function docText(file: string): string {
  return readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
}

/** The README, the front door (its examples moved to docs/ keep their specs: docText). */
export const README = docText('README.md');

/** The body rows of the first table after `marker` in `file`, each row's cells (the outer pipes dropped). */
export function docTable(file: string, marker: string): string[][] {
  const text = docText(file);
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${file} has no "${marker}"`);
  const lines = text.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, line.endsWith('|') ? -1 : undefined).split(' | ').map((cell) => cell.trim()));
  }
  return rows;
}

/** The lines of the first ```ts block (plain, fragment or file=) after `marker` in `file`. */
export function docBlockAfter(file: string, marker: string): string[] {
  const text = docText(file);
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${file} has no "${marker}"`);
  const fence = /```ts[^\n]*\n/g;
  fence.lastIndex = at;
  const open = fence.exec(text);
  if (!open) throw new Error(`${file} has no \`\`\`ts block after "${marker}"`);
  const start = open.index + open[0].length;
  return text.slice(start, text.indexOf('```', start)).trim().split('\n');
}
