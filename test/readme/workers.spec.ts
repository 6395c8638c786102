import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  OnJob,
  OnWorkerEvent,
  Processor,
  QueueModule,
  SpoolWorkers,
  UnrecoverableError,
  Worker,
  getQueueToken,
  type ActiveJob,
  type Batch,
  type Queue,
} from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { docText } from '../helpers/readme-table.js';

const PAGE = docText('docs/guide/workers.md');
import { redisUrl, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/** The body of the `n`th fenced block of `lang` after `heading` (and before the next ## heading). */
function readmeBlock(heading: string, lang: string, n = 0): string {
  const at = PAGE.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`docs/guide/workers.md has no "${heading}"`);
  const end = PAGE.indexOf('\n## ', at + heading.length + 2);
  const section = PAGE.slice(at, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
  if (blocks[n] === undefined) throw new Error(`docs/guide/workers.md "${heading}" has no ${lang} block ${n}`);
  return blocks[n]!;
}

/**
 * docs/guide/workers.md "Workers: pause, sandboxes, batches": the examples as written there
 * (the store from the harness; the handler module is the page's own text,
 * written to a temporary directory; `search` records its calls).
 */
describe('README worker modes', () => {
  const h = engineHarness();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'spool-readme-sandbox-'));
    const module = readmeBlock('## Sandboxed processors', 'js');
    writeFileSync(join(dir, 'thumbnails.mjs'), module);
    // The Nest example names thumbnails.js: a compiled ES module next to a package.json of type module.
    writeFileSync(join(dir, 'thumbnails.js'), module);
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('pauses one worker: it claims nothing while paused, resumes, and pause(true) resolves at once', async () => {
    const store = h.store;
    const queue = h.queue<{ to: string }>('emails');
    const worker = new Worker<{ to: string }>('emails', async (job) => `sent to ${job.data.to}`, { store });
    try {
      await worker.pause(); // claims nothing more; resolves once its running jobs are written
      expect(worker.isPaused()).toBe(true);
      const job = await queue.add('welcome', { to: 'ada@example.com' });
      expect((await queue.getJob(job.id))!.state).toBe('waiting');
      await worker.resume(); // claims again
      expect(await job.waitUntilFinished({ timeout: 5000 })).toBe('sent to ada@example.com');
      await worker.pause({ doNotWaitActive: true }); // or pause(true): resolves at once, running jobs finish meanwhile
      expect(worker.isPaused()).toBe(true);
    } finally {
      await worker.close();
    }
  });

  it('runs the handler module of the page in sandboxes: the named export for its name, the default for the rest', async () => {
    const store = h.store;
    const queue = h.queue('images');
    const base = pathToFileURL(join(dir, 'entry.mjs'));
    const images = new Worker('images', new URL('./thumbnails.mjs', base), {
      store,
      concurrency: 4, // up to four sandboxes, one job each at a time
      sandbox: { runner: 'threads', maxMemoryMb: 256 },
    });
    try {
      const thumb = await queue.add('thumbnail', { path: 'cat.png' });
      const other = await queue.add('crop', { path: 'cat.png' });
      await waitFor(async () => (await queue.getCounts()).completed === 2, { timeout: 15_000, message: 'both jobs done' });
      const done = await queue.getJob(thumb.id);
      expect(done).toMatchObject({ progress: 100 });
      expect((done!.result as { digest: string }).digest).toMatch(/^[0-9a-f]{64}$/);
      expect(await queue.getLogs(thumb.id)).toEqual(['hashed cat.png']);
      expect((await queue.getJob(other.id))!.result).toEqual({ skipped: 'crop' });
    } finally {
      await images.close();
    }
  });

  it('takes jobs in batches: one bulk write per batch, batch.fail for one job, one result per job', async () => {
    const store = h.store;
    const queue = h.queue<{ id: string; body: string }>('index');
    const written: { id: string; body: string }[][] = [];
    const search = { bulkIndex: async (docs: { id: string; body: string }[]) => void written.push(docs) };
    const indexer = new Worker<{ id: string; body: string }>(
      'index',
      async (jobs, batch) => {
        const docs = jobs.filter((job) => {
          if (job.data.body.length > 0) return true;
          batch.fail(job, new UnrecoverableError('empty document')); // this job alone
          return false;
        });
        await search.bulkIndex(docs.map((job) => job.data)); // one write for the batch
        return jobs.map((job) => job.data.id); // one result per job, in their order
      },
      { store, batch: { size: 100, maxWaitMs: 50 } },
    );
    try {
      const jobs = await queue.addBulk(Array.from({ length: 250 }, (_, i) => ({ name: 'doc', data: { id: `d${i}`, body: i === 7 ? '' : 'text' } })));
      await waitFor(async () => {
        const counts = await queue.getCounts();
        return counts.completed + counts.failed === 250;
      }, { message: 'every document handled' });
      expect(written.length).toBeLessThan(10);
      expect(written.flat()).toHaveLength(249);
      expect(await queue.getJob(jobs[7]!.id)).toMatchObject({ state: 'failed', error: { reason: 'unrecoverable', message: 'empty document' } });
      expect((await queue.getJob(jobs[8]!.id))!.result).toBe('d8');
    } finally {
      await indexer.close();
    }
  });

  it('runs the Nest examples: SpoolWorkers.get pauses a processor, a sandboxed processor in child processes, an @OnJob batch', async () => {
    @Processor('emails')
    class EmailProcessor {
      @OnJob('send') send(job: ActiveJob<{ to: string }>): string {
        return `sent to ${job.data.to}`;
      }
    }

    @Injectable()
    class Maintenance {
      constructor(private readonly workers: SpoolWorkers) {}

      async holdEmails(): Promise<void> {
        await this.workers.get(EmailProcessor)?.pause();
      }
    }

    const warned: string[] = [];
    const console = { warn: (line: string) => warned.push(line) };
    const __dirname = dir;
    @Processor('images', { concurrency: 4, sandbox: { file: join(__dirname, 'thumbnails.js'), runner: 'processes' } })
    class ImageProcessor {
      @OnWorkerEvent('failed')
      failed(job: ActiveJob, error: Error, next: 'retry' | 'dead'): void {
        console.warn(`thumbnail ${job.id} failed (${next}): ${error.message}`);
      }
    }

    type Doc = { id: string; body: string };
    @Injectable()
    class SearchService {
      readonly written: Doc[][] = [];
      async bulkIndex(docs: Doc[]): Promise<void> {
        this.written.push(docs);
      }
    }

    @Processor('index')
    class IndexProcessor {
      constructor(private readonly search: SearchService) {}

      @OnJob('document', { batch: { size: 100, maxWaitMs: 50 } })
      async index(jobs: ActiveJob<Doc>[], batch: Batch<Doc>): Promise<string[]> {
        void batch;
        await this.search.bulkIndex(jobs.map((job) => job.data));
        return jobs.map((job) => job.data.id);
      }
    }

    @Module({
      imports: [QueueModule.forRoot({ connection: { url: redisUrl(), prefix: uniquePrefix('readme-modes') } }), QueueModule.registerQueue('emails', 'images', 'index')],
      providers: [EmailProcessor, Maintenance, ImageProcessor, SearchService, IndexProcessor],
    })
    class AppModule {}

    const app = await Test.createTestingModule({ imports: [AppModule] }).compile();
    await app.init();
    try {
      await app.get(Maintenance).holdEmails();
      const emails = app.get<Queue>(getQueueToken('emails'));
      expect(app.get(SpoolWorkers).get(EmailProcessor)!.isPaused()).toBe(true);
      const held = await emails.add('send', { to: 'ada@example.com' });
      expect((await emails.getJob(held.id))!.state).toBe('waiting');

      const images = app.get<Queue>(getQueueToken('images'));
      const thumb = await images.add('thumbnail', { path: 'dog.png' }, { attempts: 1 });
      const failing = await images.add('thumbnail', null, { attempts: 1 });
      await waitFor(async () => (await images.getJob(thumb.id))?.state === 'completed', { timeout: 15_000, message: 'the thumbnail made in a child process' });
      await waitFor(() => warned.length === 1, { timeout: 15_000, message: 'the failed event' });
      expect(warned[0]).toMatch(new RegExp(`^thumbnail ${failing.id} failed \\(dead\\): `));

      const index = app.get<Queue<Doc>>(getQueueToken('index'));
      await index.addBulk(Array.from({ length: 150 }, (_, i) => ({ name: 'document', data: { id: `n${i}`, body: 'x' } })));
      await waitFor(async () => (await index.getCounts()).completed === 150, { message: '150 documents indexed' });
      const written = app.get(SearchService).written;
      expect(written.flat()).toHaveLength(150);
      expect(Math.max(...written.map((w) => w.length))).toBeLessThanOrEqual(100);
    } finally {
      await app.close();
    }
  });
});
