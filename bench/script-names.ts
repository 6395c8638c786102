import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { LUA_SOURCES } from '../lib/store/lua-sources.js';
import { loadScript } from '../lib/store/script-loader.js';

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** The directory of an installed package (its main file's directory, up to the package name). */
function packageDir(name: string): string {
  const main = createRequire(import.meta.url).resolve(name);
  const at = main.lastIndexOf(`/node_modules/${name}/`);
  return at >= 0 ? main.slice(0, at + `/node_modules/${name}`.length) : dirname(main);
}

/**
 * Script SHA1 -> "library:script" for every Lua script the three contenders
 * load: Spool's lua/ files as its loader inlines them, BullMQ's script
 * modules (ioredis defineCommand hashes their content), bee-queue's lua files.
 */
export function scriptNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const file of Object.keys(LUA_SOURCES)) {
    if (file.startsWith('includes/')) continue;
    names.set(loadScript(file).sha, `Spool:${file}`);
  }
  const bullScripts = createRequire(import.meta.url)(join(packageDir('bullmq'), 'dist/cjs/scripts/index.js')) as Record<string, { name: string; content: string }>;
  for (const script of Object.values(bullScripts)) names.set(sha1(script.content), `BullMQ:${script.name}`);
  const beeLua = join(packageDir('bee-queue'), 'lib/lua');
  for (const file of readdirSync(beeLua).filter((f) => f.endsWith('.lua'))) {
    names.set(sha1(readFileSync(join(beeLua, file), 'utf8')), `bee-queue:${file.replace(/\.lua$/, '')}`);
  }
  return names;
}
