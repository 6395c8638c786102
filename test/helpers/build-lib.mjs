import { execFileSync } from 'node:child_process';
import { existsSync, statSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * Child-process fixtures (workers killed and restarted by the tests) run the
 * compiled library from dist/, since plain node cannot load TypeScript. Builds
 * it when dist/ is missing or older than lib/.
 */
export function ensureBuiltLib() {
  const entry = join(root, 'dist', 'index.js');
  if (existsSync(entry) && statSync(entry).mtimeMs >= newest(join(root, 'lib'))) return;
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });
}
