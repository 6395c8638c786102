import { createHash } from 'node:crypto';
import { SpoolError } from '../common/errors.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's `lua/` directory: the nearest one above this file. Sources
 * (lib/store/), the package build (dist/store/) and app builds that compile
 * lib/ elsewhere all find it without configuration.
 */
export const LUA_DIR = findLuaDir(dirname(fileURLToPath(import.meta.url)));

function findLuaDir(start: string): string {
  for (let dir = start, i = 0; i < 8; i++, dir = dirname(dir)) {
    if (existsSync(join(dir, 'lua', 'add.lua'))) return join(dir, 'lua');
  }
  return join(start, '..', '..', 'lua');
}

const INCLUDE = /^--- @include "([^"]+)"\s*$/;

export interface LoadedScript {
  readonly name: string;
  /** Source with every include inlined once, in first-use order. */
  readonly source: string;
  readonly sha: string;
}

/** A script names an include that does not exist, or includes come round in a circle. */
export class ScriptIncludeError extends SpoolError {
  constructor(message: string, readonly chain: readonly string[]) {
    super(`${message} (include chain: ${chain.join(' -> ')})`);
  }
}

/**
 * Reads `lua/<name>.lua` and resolves `--- @include "includes/x"` lines
 * (paths relative to `lua/`, no extension). An include used twice in one
 * script is inlined once; a missing or circular include is reported with the
 * chain that led to it.
 */
export function loadScript(name: string, dir: string = LUA_DIR): LoadedScript {
  const included = new Set<string>();
  const source = resolve(name, [], included, dir);
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

function resolve(path: string, chain: readonly string[], included: Set<string>, dir: string): string {
  const here = [...chain, path];
  if (chain.includes(path)) {
    throw new ScriptIncludeError(`circular include of "${path}"`, here);
  }
  let text: string;
  try {
    text = readFileSync(join(dir, `${path}.lua`), 'utf8');
  } catch {
    throw new ScriptIncludeError(`missing Lua file "${path}.lua" in ${dir}`, here);
  }
  return text
    .split('\n')
    .map((line) => {
      const match = INCLUDE.exec(line);
      if (!match) return line;
      const target = match[1]!;
      if (chain.includes(target) || target === path) {
        throw new ScriptIncludeError(`circular include of "${target}"`, [...here, target]);
      }
      if (included.has(target)) return `-- (${target} already included)`;
      const body = resolve(target, here, included, dir);
      included.add(target);
      return body;
    })
    .join('\n');
}
