import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built package (dist/, built by the jest global setup) loaded the way an
 * application loads it: by its name, through package.json "exports", from
 * CommonJS and from ESM, in a plain node process.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

function runNode(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 20_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Package names a script requested while it loaded `entry` (through require, also when ESM imports CommonJS). */
const REQUESTED = `
const Module = require('node:module');
const seen = new Set();
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (!request.startsWith('.') && !request.startsWith('/') && !request.startsWith('node:')) seen.add(request);
  return resolve.call(this, request, ...rest);
};
`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('entry points of the built package', () => {
  it('the CommonJS build uses no import.meta and no file system (the Lua is compiled in)', () => {
    // dist/cjs/cli is the `spool` bin, which no entry point loads: it reads package.json and writes export files.
    const js = filesUnder(join(root, 'dist', 'cjs')).filter((f) => f.endsWith('.js') && !f.includes(join('dist', 'cjs', 'cli', '')));
    expect(js.length).toBeGreaterThan(40);
    expect(js.filter((f) => /import\.meta/.test(readFileSync(f, 'utf8')))).toEqual([]);
    // The one file-system call: a sandboxed Worker checks that its handler module exists when it is made.
    const fsUsers = js.filter((f) => /require\("(node:)?fs(\/promises)?"\)/.test(readFileSync(f, 'utf8')));
    expect(fsUsers.map((f) => f.slice(join(root, 'dist', 'cjs').length + 1))).toEqual([join('engine', 'sandbox', 'options.js')]);
  });

  it.each([
    ['require', `${REQUESTED} require('spool/engine'); console.log(JSON.stringify([...seen]));`],
    ['import', `${REQUESTED} import('spool/engine').then(() => console.log(JSON.stringify([...seen])));`],
  ])('spool/engine (%s) loads redis and no @nestjs/* or other Nest peer', (_how, script) => {
    const run = runNode(['-e', script]);
    expect(run.stderr).toBe('');
    const requested = JSON.parse(run.stdout) as string[];
    expect(requested).toContain('redis');
    expect(requested.filter((name) => /^@nestjs\/|^class-(validator|transformer)$|^reflect-metadata$|^rxjs/.test(name))).toEqual([]);
  });

  it('the main entry does load Nest (the check above can fail)', () => {
    const run = runNode(['-e', `${REQUESTED} require('spool'); console.log(JSON.stringify([...seen]));`]);
    expect(JSON.parse(run.stdout) as string[]).toContain('@nestjs/common');
  });

  it.each(['spool', 'spool/engine', 'spool/store'])(
    '%s gives import and require the same objects (one instance: instanceof and Nest tokens hold across both)',
    (entry) => {
      const script = `
        const required = require('${entry}');
        import('${entry}').then((imported) => {
          const names = Object.keys(required).filter((n) => n !== '__esModule');
          const differ = names.filter((n) => imported[n] !== required[n]);
          const extra = Object.keys(imported).filter((n) => !(n in required));
          console.log(JSON.stringify({ count: names.length, differ, extra }));
        });`;
      const run = runNode(['-e', script]);
      expect(run.stderr).toBe('');
      const { count, differ, extra } = JSON.parse(run.stdout) as { count: number; differ: string[]; extra: string[] };
      expect(differ).toEqual([]);
      expect(extra).toEqual([]);
      if (entry !== 'spool/store') expect(count).toBeGreaterThan(30);
    },
  );

  it('spool and spool/engine load no @nats-io/* until a NatsNotify is used (optional peers, loaded lazily)', () => {
    const script = `${REQUESTED} const { NatsNotify } = require('spool/engine');
      const before = [...seen].filter((n) => n.startsWith('@nats-io/'));
      new NatsNotify({ servers: 'nats://127.0.0.1:1', connectTimeout: 500 }).connect().catch((e) => {
        console.log(JSON.stringify({ before, after: [...seen].filter((n) => n.startsWith('@nats-io/')), error: e.name }));
      });`;
    for (const entry of ['spool', 'spool/engine']) {
      const loads = JSON.parse(runNode(['-e', `${REQUESTED} require('${entry}'); console.log(JSON.stringify([...seen]));`]).stdout) as string[];
      expect(loads.filter((n) => n.startsWith('@nats-io/'))).toEqual([]);
    }
    const run = JSON.parse(runNode(['-e', script]).stdout) as { before: string[]; after: string[]; error: string };
    expect(run.before).toEqual([]);
    expect(run.after).toContain('@nats-io/transport-node');
    expect(run.error).toBe('NatsUnavailableError');
  });

  it('spool and spool/engine load neither prom-client nor @opentelemetry/api; spool/prometheus loads prom-client, the same objects by import and require', () => {
    const loads = (entry: string): string[] => JSON.parse(runNode(['-e', `${REQUESTED} require('${entry}'); console.log(JSON.stringify([...seen]));`]).stdout) as string[];
    for (const entry of ['spool', 'spool/engine']) expect(loads(entry).filter((n) => n === 'prom-client' || n.startsWith('@opentelemetry/'))).toEqual([]);
    expect(loads('spool/prometheus')).toContain('prom-client');
    const script = `
      const required = require('spool/prometheus');
      import('spool/prometheus').then((imported) => {
        console.log(JSON.stringify([imported.SpoolPrometheus === required.SpoolPrometheus, imported.SpoolPrometheusModule === required.SpoolPrometheusModule, typeof required.SpoolPrometheus]));
      });`;
    const run = runNode(['-e', script]);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([true, true, 'function']);
  });

  it('spool and spool/engine never load pg; spool/postgres loads it only when a PostgresStore connects, the same objects by import and require', () => {
    const loads = (entry: string): string[] => JSON.parse(runNode(['-e', `${REQUESTED} require('${entry}'); console.log(JSON.stringify([...seen]));`]).stdout) as string[];
    for (const entry of ['spool', 'spool/engine', 'spool/postgres', 'spool/outbox']) expect(loads(entry).filter((n) => n === 'pg' || n.startsWith('pg-'))).toEqual([]);
    const script = `${REQUESTED}
      const required = require('spool/postgres');
      import('spool/postgres').then(async (imported) => {
        const same = imported.PostgresStore === required.PostgresStore;
        const store = new required.PostgresStore({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
        const error = await store.connect().then(() => 'connected', (e) => e.name);
        await store.disconnect();
        console.log(JSON.stringify([same, seen.has('pg'), error]));
      });`;
    const run = runNode(['-e', script]);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([true, true, 'PostgresUnavailableError']);
  });

  it('an error thrown by the CommonJS build is instanceof the class imported through ESM', () => {
    const script = `
      const { Queue } = require('spool');
      import('spool').then(async ({ InvalidArgumentError, SpoolError }) => {
        try { new Queue('', {}); } catch (err) { console.log(JSON.stringify([err instanceof InvalidArgumentError, err instanceof SpoolError])); }
      });`;
    const run = runNode(['-e', script]);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([true, true]);
  });
});
