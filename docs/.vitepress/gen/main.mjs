// Generates what the docs pages include, before `vitepress dev` and `vitepress build`:
//   docs/api/                    the API reference (api.mjs, TypeDoc)
//   docs/.generated/errors.md    every error class of every entry point (errors.mjs)
//   docs/.generated/cli.md       every `spool` command's --help (cli.mjs)
//   docs/.generated/lua.md       every Lua script's header (lua.mjs)
//   docs/.generated/keys.md      every Redis key of a queue (redis-keys.mjs)
//   docs/.generated/changelog.md CHANGELOG.md with its links made site links
// Needs the built package (dist/), which it builds when lib/ is newer.
// --lenient (npm run docs) shows TypeDoc's warnings, and error classes whose doc
// comment lacks its "Do:" part (errors.mjs), instead of failing on them.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuiltLib } from '../../../test/helpers/build-lib.mjs';
import { generateApi } from './api.mjs';
import { cliReference } from './cli.mjs';
import { errorsReference } from './errors.mjs';
import { luaReference } from './lua.mjs';
import { changelogPage } from './changelog.mjs';
import { keysReference } from './redis-keys.mjs';
import { API_OUT, GENERATED } from './paths.mjs';

export async function generate({ strict = true } = {}) {
  const started = Date.now();
  ensureBuiltLib();
  rmSync(API_OUT, { recursive: true, force: true });
  mkdirSync(GENERATED, { recursive: true });
  const project = await generateApi({ strict });
  const pages = {
    'errors.md': errorsReference(project, { strict }),
    'cli.md': cliReference(),
    'lua.md': luaReference(),
    'keys.md': keysReference(),
    'changelog.md': changelogPage(),
  };
  for (const [name, text] of Object.entries(pages)) writeFileSync(join(GENERATED, name), text);
  console.log(`docs: generated the API reference and ${Object.keys(pages).length} reference tables in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  await generate({ strict: !process.argv.includes('--lenient') });
}
