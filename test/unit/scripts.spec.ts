import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LUA_SOURCES } from '../../lib/store/lua-sources.js';
import { loadScript, ScriptIncludeError } from '../../lib/store/script-loader.js';
import { LuaLayoutError } from '../../lib/store/lua-shake.js';
import { QUEUE_KEYS } from '../../lib/store/keys.js';
import { claimArgs, completeArgs } from '../../lib/store/script-args.js';
import { SCRIPTS, type ScriptDescriptor } from '../../lib/store/scripts.js';

const LUA_DIR = fileURLToPath(new URL('../../lua', import.meta.url));

/**
 * KEYS lines of a script header: `KEYS[3] name ...`, `KEYS[7..] ...` (variadic)
 * and `KEYS[1..17] queue keys (includes/queue)`, which stands for the keys
 * the header of includes/queue lists.
 */
function headerKeys(file: string): { fixed: string[]; rest: boolean; queue: boolean } {
  const text = readFileSync(join(LUA_DIR, `${file}.lua`), 'utf8');
  const header = text.slice(0, text.indexOf(']]'));
  const fixed: string[] = [];
  let rest = false;
  let queue = false;
  for (const match of header.matchAll(/^\s*KEYS\[(\d+)(\.\.)?(\d+)?\]\s+(\S+)/gm)) {
    if (match[3] && match[4] === 'queue') {
      queue = true;
      const bundle = headerKeys('includes/queue').fixed;
      expect(Number(match[3])).toBe(bundle.length);
      fixed.push(...bundle);
      continue;
    }
    if (match[2]) {
      rest = true;
      continue;
    }
    expect(Number(match[1])).toBe(fixed.length + 1);
    fixed.push(match[4]!);
  }
  return { fixed, rest, queue };
}

/**
 * ARGV lines of a script header after the queue bundle: `ARGV[4] job id ...`
 * (fixed, one per line, numbered in order) and `ARGV[8..] name, room pairs`.
 */
function headerArgv(file: string, queue: boolean): { fixed: string[]; rest?: string } {
  const text = readFileSync(join(LUA_DIR, `${file}.lua`), 'utf8');
  const header = text.slice(0, text.indexOf(']]'));
  const first = queue ? 4 : 1;
  const fixed: string[] = [];
  let rest: string | undefined;
  for (const match of header.matchAll(/^\s*ARGV\[(\d+)(\.\.)?(\d+)?\]\s+(.+)$/gm)) {
    const n = Number(match[1]);
    if (queue && n === 1) {
      expect(match[3]).toBe('3');
      continue;
    }
    expect(rest).toBeUndefined(); // nothing after the variadic tail
    expect(n).toBe(first + fixed.length);
    if (match[2]) rest = match[4]!;
    else fixed.push(match[4]!);
  }
  return { fixed, ...(rest !== undefined && { rest }) };
}

describe('Lua scripts and their descriptors', () => {
  const descriptors = Object.entries(SCRIPTS) as [string, ScriptDescriptor][];

  it.each(descriptors)('%s declares the same KEYS, in the same order, as its header', (_name, descriptor) => {
    const { fixed, rest, queue } = headerKeys(descriptor.file);
    expect(queue).toBe(descriptor.queue);
    expect(fixed).toEqual([...(descriptor.queue ? QUEUE_KEYS : []), ...descriptor.keys]);
    expect(rest).toBe(descriptor.rest !== undefined);
  });

  it.each(descriptors)('%s declares the same ARGV, in the same order, as its header', (_name, descriptor) => {
    const { fixed, rest } = headerArgv(descriptor.file, descriptor.queue);
    expect(fixed).toHaveLength(descriptor.argv.length);
    descriptor.argv.forEach((label, i) => expect(fixed[i]!.startsWith(label)).toBe(true));
    if (descriptor.argvRest === undefined) expect(rest).toBeUndefined();
    else expect(rest?.startsWith(descriptor.argvRest)).toBe(true);
  });

  it('packs claim and complete arguments where their descriptors put them, fetch fields in the same order', () => {
    const fetch = { workerId: 'W', count: 7, lockMs: 9000, woken: true, pushSlots: 5, nameRoom: [['mail', 2]] as const };
    const at = (argv: readonly string[], label: string) => argv.indexOf(label);
    const claim = claimArgs(fetch);
    const complete = completeArgs([{ lease: { id: 'J', token: 'T' }, result: 'R', durationMs: 3 }, { lease: { id: 'K', token: 'U' }, result: 'S' }], fetch);
    for (const [args, d, perJob] of [[claim, SCRIPTS.claim, 0], [complete, SCRIPTS.complete, 8]] as const) {
      expect(args[at(d.argv, 'worker id')]).toBe('W');
      expect(args[at(d.argv, 'count')]).toBe(7);
      expect(args[at(d.argv, 'lease duration ms')]).toBe(9000);
      expect(args[at(d.argv, 'push slots')]).toBe(5);
      expect(args.slice(d.argv.length + perJob)).toEqual(['mail', 2]);
    }
    expect(claim[at(SCRIPTS.claim.argv, 'woken')]).toBe(1);
    expect(complete[at(SCRIPTS.complete.argv, 'number of jobs')]).toBe(2);
    expect(complete.slice(SCRIPTS.complete.argv.length, SCRIPTS.complete.argv.length + 8)).toEqual(['J', 'T', 'R', 3, 'K', 'U', 'S', '']);
    expect(at(SCRIPTS.complete.argv, 'worker id') - at(SCRIPTS.claim.argv, 'worker id')).toBe(at(SCRIPTS.complete.argv, 'lease duration ms') - at(SCRIPTS.claim.argv, 'lease duration ms'));
  });

  it('lists the queue bundle in includes/queue in the order QUEUE_KEYS sends it', () => {
    expect(headerKeys('includes/queue').fixed).toEqual([...QUEUE_KEYS]);
  });

  it('has a descriptor for every script file in lua/', () => {
    const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua')).map((f) => f.slice(0, -4));
    expect(files.sort()).toEqual(descriptors.map(([, d]) => d.file).sort());
  });

  it.each(descriptors)('%s loads with every include resolved once', (_name, descriptor) => {
    const script = loadScript(descriptor.file);
    expect(script.source).not.toMatch(/^--- @include/m);
    expect(script.sha).toMatch(/^[0-9a-f]{40}$/);
    const definitions = [...script.source.matchAll(/^local function (\w+)/gm)].map((m) => m[1]);
    expect(new Set(definitions).size).toBe(definitions.length);
  });

  it.each(descriptors)('%s defines every spool_ function and SPOOL_ constant it names (none left out by the shaker)', (_name, descriptor) => {
    const { source } = loadScript(descriptor.file);
    const code = source.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--.*$/gm, '').replace(/'[^'\n]*'/g, "''");
    const defined = new Set([
      ...[...code.matchAll(/^\s*local function (\w+)/gm)].map((m) => m[1]!),
      ...[...code.matchAll(/^\s*local ([\w, ]+?)\s*=/gm)].flatMap((m) => m[1]!.split(',').map((name) => name.trim())),
    ]);
    const named = new Set([...code.matchAll(/\b(?:spool|SPOOL)_\w+/g)].map((m) => m[0]));
    expect([...named].filter((name) => !defined.has(name))).toEqual([]);
  });
});

describe('script loader', () => {
  const fixture = (files: Record<string, string>) => files;

  it('carries every file of lua/ as it is on disk (lua-sources.ts is generated from lua/)', () => {
    const onDisk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? onDisk(join(dir, e.name)) : e.name.endsWith('.lua') ? [join(dir, e.name)] : [],
      );
    const files = Object.fromEntries(onDisk(LUA_DIR).map((path) => [relative(LUA_DIR, path).slice(0, -4), readFileSync(path, 'utf8')]));
    expect(Object.keys(files).length).toBeGreaterThan(20);
    expect(LUA_SOURCES).toEqual(files);
  });

  it('reports a missing include with the chain that led to it', () => {
    const files = fixture({ main: '--- @include "includes/a"\nreturn 1\n', 'includes/a': '--- @include "includes/nope"\n' });
    expect(() => loadScript('main', files)).toThrow(ScriptIncludeError);
    expect(() => loadScript('main', files)).toThrow(/missing Lua file "includes\/nope.lua".*main -> includes\/a -> includes\/nope/);
  });

  it('reports a circular include with its chain', () => {
    const files = fixture({
      main: '--- @include "includes/a"\n',
      'includes/a': '--- @include "includes/b"\n',
      'includes/b': '--- @include "includes/a"\n',
    });
    expect(() => loadScript('main', files)).toThrow(/circular include of "includes\/a".*main -> includes\/a -> includes\/b -> includes\/a/);
  });

  it('inlines an include used twice only once', () => {
    const files = fixture({
      main: '--- @include "includes/a"\n--- @include "includes/b"\nreturn a()\n',
      'includes/a': '--- @include "includes/b"\nlocal function a()\n  return b()\nend\n',
      'includes/b': 'local function b() end\n',
    });
    const { source } = loadScript('main', files);
    expect(source.match(/local function b/g)).toHaveLength(1);
    expect(source.indexOf('function b')).toBeLessThan(source.indexOf('function a'));
  });
  it('leaves out the definitions of includes that the script never reaches', () => {
    const files = fixture({
      main: '--- @include "includes/a"\nreturn used()\n',
      'includes/a': [
        '--[[ a: helpers ]]',
        "local LIMIT, SPARE = 10, 'x'",
        'local UNUSED = 3',
        '-- why used exists',
        'local function used()',
        '  return helper() + LIMIT',
        'end',
        'local function helper()',
        '  return 1 -- never unused()',
        'end',
        '-- unused() is mentioned here, in a full-line comment',
        'local function unused()',
        '  return UNUSED',
        'end',
        '',
      ].join('\n'),
    });
    const { source } = loadScript('main', files);
    expect(source).toContain('local function used()');
    expect(source).toContain('-- why used exists');
    expect(source).toContain("local LIMIT, SPARE = 10, 'x'");
    expect(source).toContain('--[[ a: helpers ]]');
    // Named by used (defined later in the file: a kept name keeps it wherever it sits).
    expect(source).toContain('local function helper()');
    // Named only in a trailing comment of kept code: kept (a mention never drops a definition).
    expect(source).toContain('local function unused()');
    expect(source).toContain('local UNUSED = 3');
    const strict = loadScript('main', { ...files, 'includes/a': files['includes/a']!.replace(' -- never unused()', '') });
    expect(strict.source).not.toContain('unused');
    expect(strict.source).not.toContain('UNUSED');
    // An include loaded on its own keeps everything.
    expect(loadScript('includes/a', files).source).toContain('local function unused()');
  });

  it('refuses an include whose top level it cannot split', () => {
    const unterminated = fixture({ main: '--- @include "includes/a"\nreturn f()\n', 'includes/a': 'local function f()\n  return 1\n  end\n' });
    expect(() => loadScript('main', unterminated)).toThrow(LuaLayoutError);
    expect(() => loadScript('main', unterminated)).toThrow(/lua\/includes\/a.lua line 1: the function f has no column-0 "end"/);
    const multiline = fixture({ main: '--- @include "includes/a"\nreturn T\n', 'includes/a': 'local T = {\n  1,\n}\n' });
    expect(() => loadScript('main', multiline)).toThrow(/line 1: a top-level constant must fit on one line/);
  });
});
