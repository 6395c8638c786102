// CHANGELOG.md as a site page: its links to docs/ pages become site links.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, generatedBy } from './paths.mjs';

export function changelogPage() {
  const text = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
  return generatedBy('changelog.mjs', 'CHANGELOG.md') + text.replace(/\]\(docs\//g, '](/');
}
