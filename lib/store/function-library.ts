import { createHash } from 'node:crypto';
import { LUA_SOURCES } from './lua-sources.js';
import { loadScript, scriptParts, type LuaFiles } from './script-loader.js';
import { SCRIPTS, type ScriptDescriptor, type ScriptName } from './scripts.js';

/**
 * Every script of lua/ as one Redis Function library: the includes once, at
 * the library's top level, which runs at FUNCTION LOAD; each script's own
 * code as a registered function. Run as EVALSHA, a script defines its ~80
 * include functions again on every call, a third of a lone add's Redis work
 * (bench/README.md, "Where a lone add's Redis work goes"); as FCALL it
 * defines none. The scripts are unchanged: KEYS and ARGV become upvalues the
 * function sets from its arguments, the notes of includes/announce a table
 * it empties, and a script's `return`s stay in a function of their own.
 *
 * The name carries a hash of the text, so processes of different versions on
 * one Redis each call their own library. Nothing at the top level may keep
 * state between calls (an upvalue outlives the call) or call Lua's string
 * library (not there at load time).
 */
export interface FunctionLibrary {
  /** spool_<12 hex digits of the text's SHA-1>. */
  readonly name: string;
  /** The text FUNCTION LOAD takes, shebang first. */
  readonly source: string;
  /** The function registered for each script. */
  readonly functions: ReadonlyMap<ScriptName, string>;
}

export function buildFunctionLibrary(files: LuaFiles = LUA_SOURCES): FunctionLibrary {
  const included = new Set<string>();
  const tops: string[] = [];
  const bodies: { script: ScriptName; body: string; announces: boolean; readOnly: boolean }[] = [];
  for (const script of Object.keys(SCRIPTS) as ScriptName[]) {
    const descriptor = SCRIPTS[script];
    const { includes, body } = scriptParts(descriptor.file, included, files);
    tops.push(...includes);
    bodies.push({ script, body, announces: loadScript(descriptor.file, files).announces, readOnly: (descriptor as ScriptDescriptor).readOnly === true });
  }
  const text = [
    '-- Spool: every script of lua/ as one function library (lib/store/function-library.ts).',
    'local KEYS, ARGV',
    'local spool_notes = {}',
    ...tops,
  ];
  const hash = createHash('sha1');
  for (const part of [...text, ...bodies.map((b) => b.body)]) hash.update(part);
  const name = `spool_${hash.digest('hex').slice(0, 12)}`;
  const functions = new Map<ScriptName, string>();
  for (const { script, body, announces, readOnly } of bodies) {
    const fn = `${name}_${SCRIPTS[script].file.replace(/-/g, '_')}`;
    functions.set(script, fn);
    text.push(registration(fn, body, announces, readOnly));
  }
  return { name, source: [`#!lua name=${name}`, ...text].join('\n'), functions };
}

/** One script as a function; an announcing one replies {notes, reply} when it collects (includes/announce). */
function registration(fn: string, body: string, announces: boolean, readOnly: boolean): string {
  return [
    `redis.register_function{function_name = '${fn}', flags = {${readOnly ? "'no-writes'" : ''}}, callback = function(keys, args)`,
    '  KEYS, ARGV = keys, args',
    '  spool_notes = {}',
    '  local reply = (function()',
    body,
    '  end)()',
    ...(announces
      ? ["  if ARGV[1] ~= '' or (type(reply) == 'table' and reply.err) then", '    return reply', '  end', '  return {spool_notes, reply}']
      : ['  return reply']),
    'end}',
  ].join('\n');
}
