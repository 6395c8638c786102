import { createHash } from 'node:crypto';
import { SpoolError } from '../common/errors.js';
import { includePieces, shake, type LuaPiece } from './lua-shake.js';
import { LUA_SOURCES } from './lua-sources.js';

/**
 * Lua files by their path under lua/ without ".lua" ("add", "includes/finish").
 * The package's own come from lua-sources.ts, generated from lua/ at build
 * time, so loading needs no file system path (the same code runs as CommonJS
 * and as ES modules).
 */
export type LuaFiles = Readonly<Record<string, string>>;

const INCLUDE = /^--- @include "([^"]+)"\s*$/;

export interface LoadedScript {
  readonly name: string;
  /** Source with every include inlined once, in first-use order. */
  readonly source: string;
  readonly sha: string;
  /**
   * The script includes `includes/announce`: called with an empty ARGV[1]
   * (no sched channel) it replies `{notes, reply}` instead of `reply`.
   */
  readonly announces: boolean;
}

const ANNOUNCE = 'includes/announce';

/**
 * Wraps a script that announces (includes/announce) so that, when it
 * collects rather than publishes, its reply carries the notes: the body runs
 * as a function (its `return`s stay as written) and the notes table lives
 * outside it. Error replies pass through unchanged. Publishing calls reply
 * exactly as before.
 */
function withNotes(source: string): string {
  return [
    'local spool_notes = {}',
    'local spool_reply = (function()',
    source,
    'end)()',
    "if ARGV[1] ~= '' or (type(spool_reply) == 'table' and spool_reply.err) then",
    '  return spool_reply',
    'end',
    'return {spool_notes, spool_reply}',
  ].join('\n');
}

/** A script names an include that does not exist, or includes come round in a circle. */
export class ScriptIncludeError extends SpoolError {
  constructor(message: string, readonly chain: readonly string[]) {
    super(`${message} (include chain: ${chain.join(' -> ')})`);
  }
}

/**
 * Loads `lua/<name>.lua` and resolves `--- @include "includes/x"` lines
 * (paths relative to `lua/`, no extension). An include used twice in one
 * script is inlined once; a missing or circular include is reported with the
 * chain that led to it. Definitions of includes the script never reaches are
 * left out (lua-shake.ts); an include loaded on its own keeps all of them.
 */
export function loadScript(name: string, files: LuaFiles = LUA_SOURCES): LoadedScript {
  const included = new Set<string>();
  const fragment = name.startsWith('includes/');
  const pieces = resolve(name, [], included, files);
  const resolved = fragment ? pieces.map((piece) => piece.text).join('\n') : shake(pieces);
  // An include loaded on its own (tests build scripts around it) stays a fragment.
  const announces = !fragment && included.has(ANNOUNCE);
  const source = announces ? withNotes(resolved) : resolved;
  return { name, source, sha: createHash('sha1').update(source).digest('hex'), announces };
}

function resolve(path: string, chain: readonly string[], included: Set<string>, files: LuaFiles): LuaPiece[] {
  const here = [...chain, path];
  if (chain.includes(path)) {
    throw new ScriptIncludeError(`circular include of "${path}"`, here);
  }
  const text = Object.hasOwn(files, path) ? files[path] : undefined;
  if (text === undefined) {
    throw new ScriptIncludeError(`missing Lua file "${path}.lua"`, here);
  }
  // The script's own lines are kept whole; an include's are split into definitions.
  const isInclude = chain.length > 0;
  const pieces: LuaPiece[] = [];
  let own: string[] = [];
  const flush = () => {
    if (own.length === 0) return;
    pieces.push(...(isInclude ? includePieces(path, own) : [{ text: own.join('\n') }]));
    own = [];
  };
  for (const line of text.split('\n')) {
    const match = INCLUDE.exec(line);
    if (!match) {
      own.push(line);
      continue;
    }
    const target = match[1]!;
    if (chain.includes(target) || target === path) {
      throw new ScriptIncludeError(`circular include of "${target}"`, [...here, target]);
    }
    if (included.has(target)) {
      own.push(`-- (${target} already included)`);
      continue;
    }
    flush();
    pieces.push(...resolve(target, here, included, files));
    included.add(target);
  }
  flush();
  return pieces;
}
