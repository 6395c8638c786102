import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { getQueueToken, type Queue } from '../../lib/index.js';
import { createSampleApp } from '../../sample/create-app.js';
import type { JobView } from '../../sample/job-view.js';
import { redisUrl, uniquePrefix } from '../helpers/store.js';
import { parsePromText, sampleValue } from '../helpers/prom-text.js';
import { waitFor } from '../helpers/wait-for.js';

describe('sample app over HTTP (e2e)', () => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    app = await createSampleApp({ redisUrl: redisUrl(), prefix: uniquePrefix('e2e'), shutdownTimeout: 3000 }, { logLevels: ['error'], shutdownHooks: false });
    await app.init();
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    const problems = (await Promise.all(['emails', 'orders', 'warehouse', 'reports'].map((q) => app.get<Queue>(getQueueToken(q), { strict: false }).verify()))).flat();
    await app.close();
    expect(problems).toEqual([]);
  });

  async function finished(queue: string, id: string): Promise<JobView> {
    let view: JobView | undefined;
    await waitFor(
      async () => {
        const res = await http.get(`/jobs/${queue}/${encodeURIComponent(id)}`).expect(200);
        view = res.body as JobView;
        return ['completed', 'failed', 'cancelled'].includes(view.state);
      },
      { timeout: 10_000, interval: 50, message: `job ${queue}/${id} to finish` },
    );
    return view!;
  }

  it('enqueues a validated email and shows its result', async () => {
    const res = await http.post('/emails').send({ to: 'ada@example.com', subject: 'Welcome' }).expect(201);
    const view = await finished('emails', res.body.id);
    expect(view).toMatchObject({ name: 'send', state: 'completed', attempts: 1, result: 'sent "Welcome" to ada@example.com' });
  });

  it('answers 400 with every problem for a bad body, and enqueues nothing', async () => {
    const before = await app.get<Queue>(getQueueToken('emails'), { strict: false }).getCounts();
    const res = await http.post('/emails').send({ to: 'nope', subject: '', extra: 1 }).expect(400);
    expect(res.body.message).toEqual(expect.arrayContaining(['property extra should not exist', 'to must be an email', 'subject must be longer than or equal to 1 characters']));
    const after = await app.get<Queue>(getQueueToken('emails'), { strict: false }).getCounts();
    expect(after.waiting + after.active + after.completed).toBe(before.waiting + before.active + before.completed);
  });

  it('runs a delayed reminder after its delay', async () => {
    const res = await http.post('/reminders').send({ to: 'bob@example.com', delayMs: 300 }).expect(201);
    const early = await http.get(`/jobs/emails/${res.body.id}`).expect(200);
    expect(early.body.state).toBe('delayed');
    expect(await finished('emails', res.body.id)).toMatchObject({ state: 'completed', result: 'reminded bob@example.com' });
  });

  it('retries a job that fails twice, then succeeds', async () => {
    const res = await http.post('/flaky').send({ to: 'cy@example.com', subject: 'x' }).expect(201);
    expect(await finished('emails', res.body.id)).toMatchObject({ state: 'completed', attempts: 3, result: 'sent to cy@example.com on attempt 3' });
  });

  it('cancels a scheduled export and a running one by the caller id', async () => {
    await http.post('/exports').send({ exportId: 'later', delayMs: 60_000 }).expect(201);
    const scheduled = await http.delete('/exports/later').expect(200);
    expect(scheduled.body).toEqual({ id: 'export:later', outcome: 'cancelled' });
    expect((await finished('emails', 'export:later')).state).toBe('cancelled');

    await http.post('/exports').send({ exportId: 'now' }).expect(201);
    await waitFor(async () => (await http.get('/jobs/emails/export:now')).body.progress >= 1, { timeout: 5000, message: 'the export to make progress' });
    const running = await http.delete('/exports/now').expect(200);
    expect(running.body.outcome).toBe('cancelling');
    expect((await finished('emails', 'export:now')).state).toBe('cancelled');
    await http.delete('/exports/never-added').expect(404);
  });

  it('runs an order flow over two queues and shows its tree', async () => {
    await http.post('/orders').send({ orderId: 'o1', qty: 2 }).expect(201);
    const order = await finished('orders', 'order:o1');
    expect(order.result).toBe('shipped o1 after: charged 24 EUR for o1, packed o1, picked 2 for o1');
    const tree = await http.get('/orders/o1').expect(200);
    expect(tree.body.order.state).toBe('completed');
    expect(tree.body.children.map((c: JobView) => `${c.queue}/${c.name}:${c.state}`)).toEqual(['orders/charge:completed', 'warehouse/pick:completed', 'warehouse/pack:completed']);
    await http.get('/orders/unknown').expect(404);
  });

  it('renders tenant reports on the grouped queue', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 9; i++) ids.push((await http.post('/reports').send({ tenant: ['acme', 'globex', 'initech'][i % 3], title: `r${i}` }).expect(201)).body.id);
    for (const id of ids) expect((await finished('reports', id)).state).toBe('completed');
    const group = await http.get('/reports/tenants/acme').expect(200);
    expect(group.body.active).toBe(0);
    await http.post('/reports').send({ tenant: 'umbrella', title: 'x' }).expect(400);
  });

  it('answers 429 with Retry-After to a tenant over its waiting limit (SpoolExceptionFilter), and reports readiness', async () => {
    const reports = app.get<Queue>(getQueueToken('reports'), { strict: false });
    await reports.pauseGroup('initech');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await http.post('/reports').send({ tenant: 'initech', title: `q${i}` }).expect(201)).body.id);
    const refused = await http.post('/reports').send({ tenant: 'initech', title: 'one too many' }).expect(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body).toMatchObject({ statusCode: 429, queue: 'reports', group: 'initech', limit: 20 });
    await reports.resumeGroup('initech');
    for (const id of ids) expect((await finished('reports', id)).state).toBe('completed');
    const health = await http.get('/health').expect(200);
    expect(health.body).toMatchObject({ ok: true, connections: { default: { ok: true } } });
  });

  it('serves Prometheus metrics of every queue at GET /metrics', async () => {
    const sent = await http.post('/emails').send({ to: 'grace@example.com', subject: 'Metrics' }).expect(201);
    await finished('emails', sent.body.id);
    const res = await http.get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePromText(res.text);
    const emails = await app.get<Queue>(getQueueToken('emails'), { strict: false }).getCounts();
    expect(sampleValue(families, 'spool_jobs', 'spool_jobs', { queue: 'emails', state: 'completed' })).toBe(emails.completed);
    for (const queue of ['emails', 'orders', 'warehouse', 'reports']) {
      expect(sampleValue(families, 'spool_jobs', 'spool_jobs', { queue, state: 'waiting' })).toBeDefined();
    }
    expect(sampleValue(families, 'spool_jobs_completed_total', 'spool_jobs_completed_total', { queue: 'emails' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(families, 'spool_handler_duration_seconds', 'spool_handler_duration_seconds_count', { queue: 'emails' })).toBeGreaterThanOrEqual(1);
  });

  it('answers 404 for an unknown queue or job', async () => {
    await http.get('/jobs/nope/1').expect(404);
    await http.get('/jobs/emails/missing').expect(404);
  });
});
