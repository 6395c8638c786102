import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { connect, type Socket } from 'node:net';
import { createClient } from 'redis';
import request from 'supertest';
import { getQueueToken, QueueDashboardModule, QueueModule, type Queue } from '../../lib/index.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Issue 37: with 50 queues and 100,000 jobs in one state, every page renders
 * in a bounded number of Redis commands, the same with 100,000 jobs as with
 * ten. Counted on a private redis-server, so nothing else's commands are
 * in the figures: `sent` is what the app sent (MONITOR, less the commands
 * scripts ran), `run` every command Redis ran, scripts' included (INFO stats).
 */
const QUEUES = Array.from({ length: 50 }, (_, i) => `q${String(i).padStart(2, '0')}`);
const BIG = 100_000;

describe('dashboard at scale: Redis commands per page', () => {
  let server: RedisServer;
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let counter: ReturnType<typeof createClient>;
  let monitor: Socket;
  let seen = '';

  beforeAll(async () => {
    server = await RedisServer.start();
    @Module({})
    class Host {}
    app = await NestFactory.create(
      { module: Host, imports: [QueueModule.forRoot({ connection: { url: server.url, prefix: 'scale' } }), QueueModule.registerQueue(...QUEUES), QueueDashboardModule.forRoot({ path: '/ops', readOnly: true })] },
      { logger: ['error'] },
    );
    await app.init();
    http = request(app.getHttpServer());
    const big = app.get<Queue>(getQueueToken('q00'));
    // Bulk adds of 10,000 (one script call each): the 100k jobs in about a second.
    for (let from = 0; from < BIG; from += 10_000) await big.addBulk(Array.from({ length: 10_000 }, (_, i) => ({ name: i % 2 ? 'send' : 'digest', data: { n: from + i } })));
    const small = app.get<Queue>(getQueueToken('q01'));
    await small.addBulk(Array.from({ length: 30 }, (_, i) => ({ name: 'send', data: { n: i } })));
    await small.upsertScheduler('beat', { every: 60_000 }, { name: 'beat' });
    counter = createClient({ url: server.url });
    await counter.connect();
    const { port } = new URL(server.url);
    monitor = connect(Number(port), '127.0.0.1');
    monitor.on('data', (b: Buffer) => (seen += b.toString()));
    monitor.write('MONITOR\r\n');
    await waitFor(() => seen.startsWith('+OK'), { message: 'MONITOR on' });
  }, 120_000);
  afterAll(async () => {
    monitor?.destroy();
    await counter?.quit();
    await app?.close();
    await server?.dispose();
  });

  async function processed(): Promise<number> {
    const info = await counter.sendCommand(['INFO', 'stats']);
    return Number(/total_commands_processed:(\d+)/.exec(String(info))![1]);
  }

  let marks = 0;
  /** Sends a marker and waits until MONITOR shows it: the lines before it are complete. */
  async function mark(): Promise<number> {
    const token = `spool-mark-${++marks}`;
    await counter.sendCommand(['ECHO', token]);
    await waitFor(() => seen.includes(token), { message: `marker ${token}` });
    return seen.indexOf(token);
  }

  /** What the render of `path` cost: commands sent by the app, commands Redis ran (scripts' included), and its time. */
  async function measure(path: string): Promise<{ sent: number; run: number; ms: number }> {
    const from = await mark();
    const before = await processed();
    const started = performance.now();
    await http.get(path).expect(200);
    const ms = performance.now() - started;
    const run = (await processed()) - before - 1;
    const to = await mark();
    const lines = seen.slice(seen.indexOf('\n', from) + 1, seen.lastIndexOf('\n', to)).split('\r\n').filter((l) => l.startsWith('+') && !/ lua\] /.test(l) && !/"(info|echo)"/i.test(l));
    return { sent: lines.length, run, ms };
  }

  it('counts the commands of every page, bounded and independent of the job count', async () => {
    expect((await app.get<Queue>(getQueueToken('q00')).getCounts()).waiting).toBe(BIG);
    const idle = (await processed()) - (await processed());
    expect(idle).toBe(-1); // only the INFO itself between two reads: nothing else talks to this server
    const [bigJob] = await app.get<Queue>(getQueueToken('q00')).getJobs('waiting', 0, 0);
    const pages: Record<string, string> = {
      overview: '/ops',
      'queue (100k waiting)': '/ops/default/q00?state=waiting',
      'queue (30 waiting)': '/ops/default/q01?state=waiting',
      'queue page 2,000': '/ops/default/q00?state=waiting&offset=50000',
      'queue sorted the other way (100k)': '/ops/default/q00?state=waiting&sort=desc',
      'queue sorted, page 2,000': '/ops/default/q00?state=waiting&sort=desc&offset=50000',
      'queue by name (100k)': '/ops/default/q00?state=waiting&name=send',
      job: `/ops/default/q00/jobs/${bigJob!.id}`,
      schedulers: '/ops/default/q01/schedulers',
      metrics: '/ops/default/q00/metrics',
      workers: '/ops/_workers',
      redis: '/ops/_redis',
    };
    const figures: Record<string, { sent: number; run: number; ms: number }> = {};
    for (const [label, path] of Object.entries(pages)) {
      await measure(path); // warm: script loads, first-use reads
      figures[label] = await measure(path);
    }
    process.stdout.write(`dashboard scale (50 queues, 100,000 waiting in one): ${JSON.stringify(figures)}\n`);
    // A queue page sends the same commands with 100,000 jobs as with 30, on its first page as deep in the list.
    expect(figures['queue (100k waiting)']!.sent).toBe(figures['queue (30 waiting)']!.sent);
    expect(figures['queue page 2,000']!.sent).toBe(figures['queue (100k waiting)']!.sent);
    // Sorting the other way walks the same index from its end: the same commands, first page or deep.
    expect(figures['queue sorted the other way (100k)']!.sent).toBe(figures['queue (100k waiting)']!.sent);
    expect(figures['queue sorted, page 2,000']!.sent).toBe(figures['queue (100k waiting)']!.sent);
    expect(figures['queue sorted, page 2,000']!.run).toBeLessThanOrEqual(100);
    // Bounds: a handful of reads per queue on the pages over every queue; a few dozen on one queue's pages.
    expect(figures.overview!.sent).toBeLessThanOrEqual(QUEUES.length * 5);
    expect(figures.workers!.sent).toBeLessThanOrEqual(QUEUES.length * 2);
    expect(figures.redis!.sent).toBeLessThanOrEqual(QUEUES.length * 2 + 8);
    for (const label of ['queue (100k waiting)', 'job', 'schedulers', 'metrics']) expect(figures[label]!.sent).toBeLessThanOrEqual(40);
    // Inside Redis too, the work does not follow the job count (the metrics script reads 60 minutes per queue).
    expect(figures['queue (100k waiting)']!.run).toBeLessThanOrEqual(100);
    expect(figures.overview!.run).toBeLessThanOrEqual(QUEUES.length * 100);
    // A name filter is counted in bounded scans up to 10,000 matches, not over all 100,000 jobs.
    expect(figures['queue by name (100k)']!.sent).toBeLessThanOrEqual(60);
    expect(figures['queue by name (100k)']!.run).toBeLessThanOrEqual(30_000);
    for (const [label, f] of Object.entries(figures)) expect({ label, slow: f.ms > 1500 }).toEqual({ label, slow: false });
  }, 60_000);
});
