import { readFileSync } from 'node:fs';
import { importFromBullMQ, type RedisStore } from '../../lib/index.js';
import { cliEnv, runCli } from '../cli/cli.js';
import { redisUrl, testStore, uniquePrefix } from '../helpers/store.js';

const section = readFileSync(new URL('../../docs/migrating/importer.md', import.meta.url), 'utf8');

/** docs/migrating/importer.md "Bringing BullMQ's jobs across": its commands parse, its API example runs. */
describe("README: Bringing BullMQ's jobs across", () => {
  let store: RedisStore;
  beforeAll(async () => {
    store = await testStore();
  });
  afterAll(async () => {
    await store.disconnect();
  });

  it('every flag its commands use is one `spool import bullmq` has', async () => {
    const help = await runCli(['import', 'bullmq', '--help'], cliEnv(uniquePrefix()));
    const flags = [...section.matchAll(/^spool import bullmq .*$/gm)].flatMap((line) => [...line[0].matchAll(/(--[a-z-]+)/g)].map((m) => m[1]!));
    expect(flags.length).toBeGreaterThan(5);
    for (const flag of flags) expect({ flag, known: help.stdout.includes(flag) }).toEqual({ flag, known: true });
  });

  it('its API example runs as written (on an empty BullMQ prefix: nothing found)', async () => {
    const block = /```ts[^\n]*\n([\s\S]*?)```/.exec(section)![1]!;
    const options = /importFromBullMQ\((\{[\s\S]*?\n\})\);/.exec(block)![1]!
      .replace("'redis://old:6379'", JSON.stringify(redisUrl()))
      .replace("bullPrefix: 'bull'", `bullPrefix: ${JSON.stringify(uniquePrefix('bull'))}`);
    const progress: unknown[] = [];
    const console = { log: (...args: unknown[]) => progress.push(args) };
    const run = new Function('importFromBullMQ', 'store', 'console', `return importFromBullMQ(${options});`) as (
      f: typeof importFromBullMQ, s: RedisStore, c: typeof console,
    ) => ReturnType<typeof importFromBullMQ>;
    const report = await run(importFromBullMQ, store, console);
    expect(report.queues.map((q) => q.queue)).toEqual(['orders', 'emails']);
    expect(report.queues[0]!.states.delayed).toMatchObject({ found: 0, imported: 0, existing: 0, skipped: {} });
  });
});
