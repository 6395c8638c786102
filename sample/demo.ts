import { createSampleApp } from './create-app.js';
import { notifyForDemo } from './local-nats.js';
import { redisForDemo } from './local-redis.js';
import { TENANTS } from './dto.js';
import type { JobView } from './job-view.js';

/**
 * `npm run demo`: starts the sample app on a free port (against REDIS_URL if
 * a server answers there, else a private redis-server), drives jobs through
 * HTTP like a client would, prints what happened to each, shuts down
 * gracefully and exits 0 (1 if a job did not end as expected).
 */
type Step = { readonly label: string; readonly queue: string; readonly id: string; readonly expect: string };

async function main(): Promise<void> {
  const redis = await redisForDemo();
  const notify = await notifyForDemo();
  const app = await createSampleApp({ redisUrl: redis.url, prefix: `spool-demo-${process.pid}`, shutdownTimeout: 5000, ...(notify.nats && { nats: notify.nats }) }, { logLevels: ['error', 'warn'], shutdownHooks: false });
  await app.listen(0, '127.0.0.1');
  const base = await app.getUrl();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(`Spool sample app on ${base.replace('[::1]', '127.0.0.1')}, Redis ${redis.url}${notify.nats ? `, notify over NATS ${notify.nats.servers}` : ''}`);

  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const post = async (path: string, body: unknown): Promise<string> => {
    const { status, json } = await call('POST', path, body);
    if (status !== 201) throw new Error(`POST ${path} answered ${status}: ${JSON.stringify(json)}`);
    return String(json.id);
  };

  const steps: Step[] = [];
  steps.push({ label: 'email', queue: 'emails', id: await post('/emails', { to: 'ada@example.com', subject: 'Welcome' }), expect: 'completed' });
  steps.push({ label: 'reminder in 500 ms', queue: 'emails', id: await post('/reminders', { to: 'bob@example.com', delayMs: 500 }), expect: 'completed' });
  steps.push({ label: 'flaky send', queue: 'emails', id: await post('/flaky', { to: 'cy@example.com', subject: 'Retry me' }), expect: 'completed' });
  steps.push({ label: 'export (cancelled)', queue: 'emails', id: await post('/exports', { exportId: 'q3-sales', delayMs: 60_000 }), expect: 'cancelled' });
  const cancel = await call('DELETE', '/exports/q3-sales');
  say(`DELETE /exports/q3-sales -> ${cancel.status} ${JSON.stringify(cancel.json)}`);

  const bad = await call('POST', '/emails', { to: 'not-an-email', subject: '' });
  say(`POST /emails with a bad body -> ${bad.status} ${JSON.stringify(bad.json.message)}`);

  const orderId = `o-${process.pid}`;
  steps.push({ label: 'order flow', queue: 'orders', id: await post('/orders', { orderId, qty: 2 }), expect: 'completed' });
  for (const [i, tenant] of [...TENANTS, ...TENANTS].entries()) {
    steps.push({ label: `report for ${tenant}`, queue: 'reports', id: await post('/reports', { tenant, title: `weekly #${i + 1}` }), expect: 'completed' });
  }

  const deadline = Date.now() + 15_000;
  const views = new Map<Step, JobView>();
  while (views.size < steps.length && Date.now() < deadline) {
    for (const step of steps) {
      if (views.has(step)) continue;
      const { json } = await call('GET', `/jobs/${step.queue}/${encodeURIComponent(step.id)}`);
      const view = json as unknown as JobView;
      if (['completed', 'failed', 'cancelled'].includes(view.state)) views.set(step, view);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  let ok = bad.status === 400;
  say('');
  for (const step of steps) {
    const view = views.get(step);
    const outcome = !view ? 'did not finish' : view.state === 'completed' ? JSON.stringify(view.result) : view.state === 'cancelled' ? 'cancelled by DELETE before it ran' : (view.error ?? '');
    const right = view?.state === step.expect;
    ok &&= right;
    say(`${right ? 'ok ' : 'BAD'} ${step.label.padEnd(20)} ${String(view?.state ?? 'pending').padEnd(10)} attempts=${view?.attempts ?? '-'}  ${outcome}`);
  }
  const tree = await call('GET', `/orders/${orderId}`);
  const children = (tree.json.children as JobView[]).map((c) => `${c.queue}/${c.name}=${c.state}`).join(', ');
  say(`\nGET /orders/${orderId}: order ${(tree.json.order as JobView).state}; children: ${children}`);

  await app.close();
  await notify.stop();
  await redis.stop();
  say(`\nshut down gracefully; ${ok ? 'every job ended as expected' : 'SOME JOBS DID NOT END AS EXPECTED'}`);
  if (!ok) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
