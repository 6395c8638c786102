import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, EXIT_FAILED, EXIT_USAGE, UsageError } from '../../lib/cli/errors.js';
import { SpoolError } from '../../lib/common/errors.js';
import { ReplyShapeError, StoreError, StoreNotConnectedError } from '../../lib/store/errors.js';
import { ScriptIncludeError } from '../../lib/store/script-loader.js';
import { UnsupportedServerError } from '../../lib/store/server-checks.js';

const LIB = resolve(dirname(fileURLToPath(import.meta.url)), '../../lib');
/**
 * Lower layers first: a file may import its own layer and the ones before it,
 * never one after. postgres (the PostgreSQL store) is a store beside Redis's; outbox (a Redis store's transactional enqueue) writes to PostgreSQL. migrate (the BullMQ importer) writes through the engine and the store. The operator surfaces (testing, dashboard, cli) sit on top
 * of the Nest glue; observability is used by it.
 */
const ORDER = ['common', 'notify', 'store', 'postgres', 'outbox', 'engine', 'migrate', 'observability', 'nest', 'testing', 'dashboard', 'cli'];

/** The package's entry points (package.json exports) compose layers: they may re-export any of them. */
const ENTRY_POINTS = new Set(
  Object.values(JSON.parse(readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../package.json'), 'utf8')).exports as Record<string, unknown>)
    .map((target) => (typeof target === 'object' && target !== null ? (target as { require?: { default?: string } }).require?.default : undefined))
    .filter((path): path is string => typeof path === 'string')
    .map((path) => resolve(LIB, path.replace(/^\.\/dist\/cjs\//, '').replace(/\.js$/, '.ts'))),
);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The layer of a lib file, or undefined for files at lib/ top level (entry points, logger). */
function layer(file: string): number | undefined {
  const [first, second] = relative(LIB, file).split(/[\\/]/);
  return second === undefined ? undefined : ORDER.indexOf(first!);
}

describe('layers', () => {
  it('knows every folder of lib/', () => {
    const folders = readdirSync(LIB).filter((name) => statSync(join(LIB, name)).isDirectory());
    for (const folder of folders) expect(ORDER).toContain(folder);
  });

  it('has no import from a lower layer up', () => {
    const upward: string[] = [];
    for (const file of files(LIB)) {
      const from = layer(file);
      if (from === undefined || ENTRY_POINTS.has(file)) continue;
      for (const match of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        const target = resolve(dirname(file), match[1]!);
        const to = layer(target);
        if (to !== undefined && to > from) upward.push(`${relative(LIB, file)} -> ${relative(LIB, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('roots every error Spool throws on purpose in SpoolError', () => {
    expect(new StoreNotConnectedError('x')).toBeInstanceOf(SpoolError);
    expect(new ReplyShapeError('claim', 'x')).toBeInstanceOf(StoreError);
    expect(new ReplyShapeError('claim', 'x')).toBeInstanceOf(SpoolError);
    expect(new UnsupportedServerError('old')).toBeInstanceOf(SpoolError);
    expect(new UnsupportedServerError('old').name).toBe('UnsupportedServerError');
    expect(new ScriptIncludeError('missing', ['a', 'b'])).toBeInstanceOf(SpoolError);
    expect(new ScriptIncludeError('missing', ['a', 'b']).name).toBe('ScriptIncludeError');
    expect(new CliError('cancelled: nothing was changed')).toBeInstanceOf(SpoolError);
    expect(new CliError('x')).toMatchObject({ name: 'CliError', message: 'x', exitCode: EXIT_FAILED });
    expect(new UsageError('x')).toBeInstanceOf(SpoolError);
    expect(new UsageError('x')).toMatchObject({ name: 'UsageError', exitCode: EXIT_USAGE });
  });

  it('has no error class outside SpoolError: only SpoolError itself extends Error', () => {
    const roots: string[] = [];
    for (const file of files(LIB)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/class (\w+)(?:<[^>]*>)? extends (?:Error|TypeError|RangeError)\b/g)) {
        roots.push(`${relative(LIB, file)}: ${match[1]}`);
      }
    }
    expect(roots).toEqual(['common/errors.ts: SpoolError']);
  });
});
