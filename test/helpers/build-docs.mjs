import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DOCS_DIST = join(root, 'docs', '.vitepress', 'dist');
/** What the docs site is made from; docs/ without what its build writes. */
const INPUTS = ['docs', 'lib', 'lua', 'package.json', 'CHANGELOG.md'];
const OUTPUTS = new Set([join(root, 'docs', 'api'), join(root, 'docs', '.generated'), join(root, 'docs', '.vitepress', 'dist'), join(root, 'docs', '.vitepress', 'cache')]);

function newest(path) {
  if (OUTPUTS.has(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), 0);
}

/**
 * The built docs site (npm run docs:build), built when it is missing or older
 * than what it is made from, so a rerun of the site tests does not build again.
 * One test file calls it (test/docs/site.spec.ts): builds never race.
 */
export function ensureBuiltDocs() {
  const stamp = join(DOCS_DIST, 'index.html');
  const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  if (built >= Math.max(...INPUTS.map((input) => newest(join(root, input))))) return false;
  const run = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], timeout: 900_000 });
  run([join(root, 'docs', '.vitepress', 'gen', 'main.mjs')]);
  run([join(root, 'node_modules', 'vitepress', 'bin', 'vitepress.js'), 'build', 'docs']);
  return true;
}
