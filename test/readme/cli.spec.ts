import { readFileSync } from 'node:fs';
import { Queue, listQueues } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { cliEnv, runCli } from '../cli/cli.js';

const SECTION = readFileSync(new URL('../../docs/operations/cli.md', import.meta.url), 'utf8');

/** docs/operations/cli.md "Command line" section: its commands exist, its table is what counts prints, its listQueues example runs. */
describe('README command line', () => {
  const h = engineHarness();

  it('names only commands spool has, and shows the header spool counts prints', async () => {
    const store = h.store;
    await h.queue('emails').add('welcome', 1);
    const [help, counts] = await Promise.all([runCli(['--help'], cliEnv(store.prefix)), runCli(['counts'], cliEnv(store.prefix))]);
    const used = [...SECTION.matchAll(/^spool (\w+)/gm)].map((m) => m[1]!);
    expect(new Set(used)).toEqual(new Set(['queues', 'counts', 'workers', 'list', 'show', 'redrive', 'cancel', 'promote', 'purge', 'pause', 'resume', 'export', 'events', 'watch']));
    for (const command of used) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const header = (text: string) => text.split('\n').find((l) => l.startsWith('│ queue'))!.replace(/\s+/g, ' ');
    expect(header(counts.stdout)).toBe(header(SECTION));
  });

  it('listQueues example, as written', async () => {
    const store = h.store;
    await h.queue('emails').add('welcome', 1);
    await h.queue('billing').add('invoice', 1, { delay: 60_000 });
    const printed: unknown[][] = [];
    const console = { log: (...args: unknown[]) => printed.push(args) };

    for (const name of await listQueues(store)) {
      console.log(name, await new Queue(name, { store }).getCounts());
    }

    expect(printed.map(([name, counts]) => [name, (counts as { waiting: number; delayed: number }).waiting + (counts as { delayed: number }).delayed])).toEqual([
      ['billing', 1],
      ['emails', 1],
    ]);
  });
});
