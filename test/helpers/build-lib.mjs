import { existsSync, statSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from '../../.ci/build/build.mjs';
import { generateLuaModule } from '../../.ci/build/lua-sources.mjs';

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
 * compiled library from dist/, since plain node cannot load TypeScript.
 * Regenerates lib/store/lua-sources.ts from lua/ (the sources jest runs
 * import it), then builds dist/ when it is missing or older than lib/.
 */
export function ensureBuiltLib() {
  generateLuaModule();
  const entries = [join(root, 'dist', 'cjs', 'index.js'), join(root, 'dist', 'esm', 'index.mjs')];
  const built = entries.every((e) => existsSync(e)) ? Math.min(...entries.map((e) => statSync(e).mtimeMs)) : 0;
  if (built >= Math.max(newest(join(root, 'lib')), statSync(join(root, 'package.json')).mtimeMs)) return;
  build();
}
