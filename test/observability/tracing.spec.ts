import { fork } from 'node:child_process';
import { join } from 'node:path';
import { FlowProducer, Queue, Worker, type RedisStore } from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { AlwaysOffSampler } from '@opentelemetry/sdk-trace-base';
import { startOtel } from '../fixtures/otel-sdk.mjs';
import { redisUrl, testStore } from '../helpers/store.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';

interface SpanView {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly attributes: Record<string, unknown>;
  readonly status: { readonly code: number; readonly message?: string };
  readonly events: string[];
}

const PRODUCER = 3;
const CONSUMER = 4;
const STATUS_ERROR = 2;

/** Runs jobs in another process (its own SDK) and resolves with the spans it recorded. */
function runWorkerProcess(store: RedisStore, queues: string[], expect: number, addJobs: () => Promise<void>): Promise<SpanView[]> {
  const child = fork(join(process.cwd(), 'test', 'fixtures', 'traced-worker.mjs'), [JSON.stringify({ url: redisUrl(), prefix: store.prefix, queues, expect })], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise<SpanView[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the traced worker process did not report its spans within 20 s'));
    }, 20_000);
    child.on('message', (m: { type: string; spans?: SpanView[] }) => {
      if (m.type === 'ready') addJobs().catch(reject);
      if (m.type === 'spans') {
        clearTimeout(timer);
        resolve(m.spans!);
      }
    });
    child.once('exit', (code) => code !== 0 && reject(new Error(`the traced worker process exited with ${code}`)));
  });
}

describe('OpenTelemetry traces across processes', () => {
  let store: RedisStore;
  let otel: ReturnType<typeof startOtel>;

  beforeEach(async () => {
    otel = startOtel();
    store = await testStore();
  });
  afterEach(async () => {
    await store.disconnect();
    await otel.stop();
  });

  it('continues the producer trace in the consumer span, with messaging attributes and errors recorded', async () => {
    const queue = new Queue('traced', { store });
    let ok = '';
    let boom = '';
    const consumer = await runWorkerProcess(store, ['traced'], 2, () =>
      otel.tracer.startActiveSpan('http request', async (span) => {
        ok = (await queue.add('fine', { n: 1 })).id;
        boom = (await queue.add('boom', { n: 2 })).id;
        span.end();
      }),
    );
    const producer = otel.spans() as SpanView[];
    const request = producer.find((s) => s.name === 'http request')!;
    const sends = producer.filter((s) => s.name === 'send traced');
    expect(sends).toHaveLength(2);
    for (const send of sends) {
      expect(send).toMatchObject({ kind: PRODUCER, traceId: request.traceId, parentSpanId: request.spanId });
      expect(send.attributes).toMatchObject({ 'messaging.system': 'spool', 'messaging.destination.name': 'traced', 'messaging.operation.type': 'send' });
    }

    const processed = consumer.filter((s) => s.name === 'process traced');
    expect(processed).toHaveLength(2);
    const fine = processed.find((s) => s.attributes['messaging.message.id'] === ok)!;
    const failed = processed.find((s) => s.attributes['messaging.message.id'] === boom)!;
    // Same trace in both processes: each consumer span is a child of the producer span of its add.
    expect(fine.traceId).toBe(request.traceId);
    expect(failed.traceId).toBe(request.traceId);
    expect(sends.map((s) => s.spanId)).toEqual(expect.arrayContaining([fine.parentSpanId, failed.parentSpanId]));
    expect(fine).toMatchObject({ kind: CONSUMER, attributes: { 'messaging.system': 'spool', 'messaging.destination.name': 'traced', 'messaging.operation.type': 'process', 'spool.job.name': 'fine', 'spool.job.attempt': 1 } });
    expect(fine.status.code).not.toBe(STATUS_ERROR);
    expect(failed.status).toMatchObject({ code: STATUS_ERROR, message: 'boom failed' });
    expect(failed.events).toContain('exception');
    // The handler ran inside the consumer span: its own spans are children of it.
    const downstream = consumer.filter((s) => s.name === 'downstream');
    expect(downstream.map((s) => s.parentSpanId).sort()).toEqual([fine.spanId, failed.spanId].sort());
  });

  it('carries the flow producer context to parent and children alike', async () => {
    const flows = new FlowProducer({ store, queues: [new Queue('traced-parent', { store }), new Queue('traced-child', { store })] });
    const consumer = await runWorkerProcess(store, ['traced-parent', 'traced-child'], 3, () =>
      otel.tracer.startActiveSpan('checkout', async (span) => {
        await flows.add({ name: 'ship', queueName: 'traced-parent', children: [{ name: 'pick', queueName: 'traced-child' }, { name: 'pack', queueName: 'traced-child' }] });
        span.end();
      }),
    );
    const checkout = (otel.spans() as SpanView[]).find((s) => s.name === 'checkout')!;
    const processed = consumer.filter((s) => s.name.startsWith('process '));
    expect(processed.map((s) => s.attributes['spool.job.name']).sort()).toEqual(['pack', 'pick', 'ship']);
    for (const span of processed) expect(span.traceId).toBe(checkout.traceId);
  });

  it('runs without @opentelemetry/api installed: nothing loaded, nothing stored', async () => {
    const fixtures = join(process.cwd(), 'test', 'fixtures');
    const child = fork(join(fixtures, 'untraced-run.mjs'), [JSON.stringify({ url: redisUrl(), prefix: store.prefix })], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: ['--import', join(fixtures, 'no-otel.mjs'), '--require', join(fixtures, 'no-otel.cjs')],
    });
    const report = await new Promise<{ result: string; tc: string | null; loaded: string[] }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no report within 20 s')), 20_000);
      child.on('message', (m: { type: string; result: string; tc: string | null; loaded: string[] }) => {
        clearTimeout(timer);
        resolve(m);
      });
      child.once('exit', (code) => {
        if (code === 0) return;
        clearTimeout(timer);
        reject(new Error(`the fixture exited with ${code}`));
      });
    });
    expect(report).toEqual({ type: 'result', result: 'ran plain', tc: null, loaded: [] });
  });

  it('adds of one turn share a script call, yet each job stores the context of its own send span', async () => {
    let calls = 0;
    const counting = new Proxy(store, {
      get(target, prop) {
        if (prop === 'add') calls += 1;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const queue = new Queue('traced-turn', { store: counting });
    const requests = ['request a', 'request b', 'request c'];
    const jobs = await Promise.all(
      requests.map((name) =>
        otel.tracer.startActiveSpan(name, async (span) => {
          const job = await queue.add('x', {});
          span.end();
          return job;
        }),
      ),
    );
    const spans = otel.spans() as SpanView[];
    const sends = spans.filter((s) => s.name === 'send traced-turn');
    expect(sends).toHaveLength(3);
    for (let i = 0; i < requests.length; i++) {
      const request = spans.find((s) => s.name === requests[i])!;
      const send = sends.find((s) => s.parentSpanId === request.spanId)!;
      const stored = (await commandOf(store, 'test').sendCommand(['HGET', keysOf(store, 'traced-turn').job(jobs[i]!.id), 'tc'])) as string;
      // W3C traceparent: version-traceId-spanId-flags; the job continues its own request's send span.
      expect(JSON.parse(stored)).toMatchObject({ traceparent: expect.stringContaining(`-${request.traceId}-${send.spanId}-`) });
    }
    expect(new Set(sends.map((s) => s.traceId)).size).toBe(3);
    expect(calls).toBe(1);
  });

  it('tracing: false on Queue, FlowProducer and Worker: no span and no stored context, with the SDK on', async () => {
    const tc = async (queue: string, id: string): Promise<string | null> =>
      (await commandOf(store, 'test').sendCommand(['HGET', keysOf(store, queue).job(id), 'tc'])) as string | null;
    const off = new Queue('quiet', { store, tracing: false });
    const on = new Queue('loud', { store });
    const flows = new FlowProducer({ store, queues: [off], tracing: false });
    const ran: string[] = [];
    const worker = new Worker('quiet', async (job) => void ran.push(job.name), { store, tracing: false });
    try {
      const [quiet, loud, tree] = await otel.tracer.startActiveSpan('request', async (span) => {
        const added = await Promise.all([off.add('plain', {}), on.add('traced', {}), flows.add({ name: 'parent', queueName: 'quiet', children: [{ name: 'child', queueName: 'quiet' }] })]);
        span.end();
        return added;
      });
      expect(await tc('quiet', quiet.id)).toBeNull();
      expect(await tc('quiet', tree.job.id)).toBeNull();
      expect(await tc('quiet', tree.children[0]!.job.id)).toBeNull();
      // The control: the same call with tracing on stores the context.
      expect(await tc('loud', loud.id)).not.toBeNull();
      // Completed is written after the handler returned, so a consumer span would have ended by then.
      await waitFor(async () => (await off.getCounts()).completed === 3, { message: 'the three quiet jobs to complete' });
      expect(ran.sort()).toEqual(['child', 'parent', 'plain']);
      const names = (otel.spans() as SpanView[]).map((s) => s.name);
      expect(names.filter((n) => n.endsWith('quiet'))).toEqual([]);
      expect(names).toContain('send loud');
      expect(() => new Queue('q', { store, tracing: 'no' as unknown as boolean })).toThrow('Queue options.tracing must be a boolean');
    } finally {
      await worker.close();
      await on.cancel((await on.getJobs('waiting'))[0]!.id);
    }
  });

  it('stores no trace context when no span is active and the SDK is off', async () => {
    await otel.stop();
    const queue = new Queue('untraced', { store });
    const job = await queue.add('plain', {});
    const stored = (await commandOf(store, 'test').sendCommand(['HGET', keysOf(store, 'untraced').job(job.id), 'tc'])) as string | null;
    expect(stored).toBeNull();
    otel = startOtel();
  });

  it("a send span the SDK's sampler drops still hands the job its own context (not sampled), as the SDK decided", async () => {
    await otel.stop();
    otel = startOtel({ sampler: new AlwaysOffSampler() });
    const queue = new Queue('dropped', { store });
    const job = await queue.add('plain', {});
    const stored = (await commandOf(store, 'test').sendCommand(['HGET', keysOf(store, 'dropped').job(job.id), 'tc'])) as string | null;
    // A new trace whose sampled flag is off: the consumer's ParentBased sampler follows the producer's decision.
    expect(JSON.parse(stored ?? '{}')).toEqual({ traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/) });
    expect(otel.spans()).toEqual([]);
  });
});
