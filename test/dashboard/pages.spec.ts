import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { FlowProducer, getQueueToken, QueueDashboardModule, QueueModule, SpoolBootstrapError, UnrecoverableError, Worker, type Queue } from '../../lib/index.js';
import { redisUrl, testStore, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { IsEmail, IsInt, Min } from 'class-validator';
import { auditLog } from '../../lib/dashboard/actions.js';
import { appModule, createHost, csrfOf, HeaderGuard } from './fixture.js';

class WelcomeDto {
  @IsEmail() to!: string;
  @IsInt() @Min(1) step!: number;
}

describe('QueueDashboardModule (Nest, Express and Fastify)', () => {
  it('refuses to mount actions without a guard, with the fix in the message', () => {
    const refused = (): unknown => QueueDashboardModule.forRoot({ path: '/queues' });
    expect(refused).toThrow(SpoolBootstrapError);
    expect(refused).toThrow(/has no guard: pass guard: .* or readOnly: true/);
    expect(() => QueueDashboardModule.forRoot({ path: '/queues', readOnly: 'yes' } as never)).toThrow(/readOnly must be a boolean/);
    expect(() => QueueDashboardModule.forRoot({ guard: HeaderGuard, colour: 'red' } as never)).toThrow(/colour/);
  });

  it('readOnly mounts without a guard: pages, no action buttons, POST refused', async () => {
    const app = await createHost({ path: 'ops/queues', readOnly: true });
    try {
      const http = request(app.getHttpServer());
      const page = await http.get('/ops/queues').expect(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
      expect(page.text).toContain('>mail</a>');
      expect(page.text).toContain('>billing</a>');
      // No processor in this app: no worker heartbeat, said as such.
      expect(page.text).toContain('<td class="num zero" title="no worker heartbeat in the last 15 s">0</td>');
      const q = await http.get('/ops/queues/default/mail?state=waiting').expect(200);
      expect(q.text).not.toContain('data-action');
      const { cookie } = csrfOf(page);
      await http.post('/ops/queues/default/mail/actions').set('cookie', cookie).send({ action: 'pause' }).expect(403);
      expect(await app.get<Queue>(getQueueToken('mail')).isPaused()).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('shows a sharded queue once, whole: one overview row, every shard\'s jobs on its page', async () => {
    @Module({})
    class ShardedHost {}
    const app = await NestFactory.create(
      {
        module: ShardedHost,
        imports: [
          QueueModule.forRoot({ connection: { url: redisUrl(), prefix: uniquePrefix('dash-shards') } }),
          QueueModule.registerQueue({ name: 'orders', shards: 3 }),
          QueueDashboardModule.forRoot({ path: '/ops', readOnly: true }),
        ],
      },
      { logger: ['error'] },
    );
    await app.init();
    try {
      const orders = app.get<Queue>(getQueueToken('orders'));
      const jobs = await orders.addBulk(Array.from({ length: 9 }, (_, i) => ({ name: 'ship', data: i, opts: { delay: 60_000 } })));
      const http = request(app.getHttpServer());
      const overview = await http.get('/ops').expect(200);
      expect(overview.text).toContain('>orders</a>');
      expect(overview.text).not.toContain('orders~');
      const page = await http.get('/ops/default/orders?state=delayed').expect(200);
      for (const job of jobs) expect(page.text).toContain(`/ops/default/orders/jobs/${job.id}`);
      await http.get(`/ops/default/orders/jobs/${jobs[4]!.id}`).expect(200);
      expect(await orders.cancel({ filter: { state: 'delayed', name: 'ship' } })).toBe(9);
    } finally {
      await app.close();
    }
  });

  it('shows a dead child of a flow once in its parent\'s tree, with its state', async () => {
    const prefix = uniquePrefix('dash-flow');
    const app = await NestFactory.create(appModule(QueueDashboardModule.forRoot({ path: '/ops', readOnly: true }), prefix), { logger: ['error'] });
    await app.init();
    const store = await testStore(undefined, prefix);
    const worker = new Worker('billing', async (job) => {
      if (job.name === 'charge') throw new UnrecoverableError('card declined');
      return 'ok';
    }, { store });
    try {
      const flows = new FlowProducer({ store });
      const tree = await flows.add({
        name: 'ship',
        queueName: 'mail',
        opts: { jobId: 'ship:1' },
        children: [
          { name: 'charge', queueName: 'billing', opts: { jobId: 'charge:1' } },
          { name: 'receipt', queueName: 'billing', opts: { jobId: 'receipt:1' } },
        ],
      });
      const billing = app.get<Queue>(getQueueToken('billing'));
      await waitFor(async () => (await billing.getJob('charge:1'))?.state === 'failed' && (await billing.getJob('receipt:1'))?.state === 'completed', { message: 'the children to finish' });
      // The engine lists the dead child both as pending and as a failure: the page must not.
      expect(await tree.job.getPendingChildren()).toEqual([{ queue: 'billing', id: 'charge:1' }]);
      expect(Object.keys(await tree.job.getChildrenFailures())).toEqual(['billing:charge:1']);
      const page = await request(app.getHttpServer()).get('/ops/default/mail/jobs/ship%3A1').expect(200);
      const tree$ = /<ul class="tree">([\s\S]*?)<\/section>/.exec(page.text)![1]!;
      const shown = [...tree$.matchAll(/>(charge:1|receipt:1)<\/a>(.*?)<\/li>/g)].map((m) => [m[1], /badge st-([a-z-]+)/.exec(m[2]!)?.[1]]);
      expect(shown).toEqual([['charge:1', 'failed'], ['receipt:1', 'completed']]);
    } finally {
      await worker.close();
      await store.disconnect();
      await app.close();
    }
  });

  it('adds and duplicates jobs: CSRF and guard, JSON object required, DTO field errors, audited', async () => {
    @Module({})
    class DtoHost {}
    const app = await NestFactory.create(
      {
        module: DtoHost,
        imports: [
          QueueModule.forRoot({ connection: { url: redisUrl(), prefix: uniquePrefix('dash-add') } }),
          QueueModule.registerQueue({ name: 'signup', jobs: { welcome: WelcomeDto } }),
          QueueDashboardModule.forRoot({ path: '/ops', guard: HeaderGuard, refreshSeconds: 0 }),
        ],
      },
      { logger: ['error'] },
    );
    await app.init();
    try {
      const signup = app.get<Queue>(getQueueToken('signup'));
      const http = request(app.getHttpServer());
      const page = await http.get('/ops/default/signup').set('x-user', 'ada').expect(200);
      expect(page.text).toContain('<summary>Add job</summary>');
      const { cookie, token } = csrfOf(page);
      const post = (body: object, t = token): request.Test => http.post('/ops/default/signup/actions').set('x-user', 'ada').set('cookie', cookie).set('x-spool-csrf', t).send(body);
      await http.post('/ops/default/signup/actions').set('cookie', cookie).set('x-spool-csrf', token).send({ action: 'add', jobName: 'x', data: '{}' }).expect(403);
      await post({ action: 'add', jobName: 'x', data: '{}' }, 'forged').expect(403);
      expect((await post({ action: 'add', jobName: 'x', data: '{nope' }).expect(400)).body.errors[0]).toMatch(/^data: /);
      expect((await post({ action: 'add', jobName: 'x', data: '[1]' }).expect(400)).body.message).toBe('data must be a JSON object');
      const refused = await post({ action: 'add', jobName: 'welcome', data: JSON.stringify({ to: 'not-mail', step: 0 }) }).expect(400);
      expect(refused.body.message).toBe('data does not match the DTO of "welcome"');
      expect(refused.body.errors).toEqual(expect.arrayContaining([expect.stringMatching(/^to: .*email/), expect.stringMatching(/^step: .*not be less than 1/)]));
      expect(await signup.getCounts()).toMatchObject({ waiting: 0 });
      const logged = jest.spyOn(auditLog, 'log');
      const added = await post({ action: 'add', jobName: 'welcome', data: JSON.stringify({ to: 'ada@example.com', step: 1 }) }).expect(200);
      const id = /^Added job (\S+) \(welcome\) to signup$/.exec(added.body.message)![1]!;
      expect(logged).toHaveBeenCalledWith(`${added.body.message} by ada`);
      logged.mockRestore();
      expect((await signup.getJob(id))?.data).toEqual({ to: 'ada@example.com', step: 1 });
      // No DTO for this name: any JSON object goes.
      await post({ action: 'add', jobName: 'other', data: '{"free": true}' }).expect(200);
      const jobPage = await http.get(`/ops/default/signup/jobs/${id}`).set('x-user', 'ada').expect(200);
      expect(jobPage.text).toContain('<summary>Duplicate job</summary>');
      expect(jobPage.text).toMatch(/name="jobName" value="welcome"/);
      expect(jobPage.text).toContain('&quot;to&quot;: &quot;ada@example.com&quot;');
    } finally {
      await app.close();
    }
  });

  for (const platform of ['express', 'fastify'] as const) {
    describe(`on ${platform}`, () => {
      let app: INestApplication;
      let http: ReturnType<typeof request>;
      let mail: Queue;

      beforeAll(async () => {
        app = await createHost({ path: '/queues', guard: HeaderGuard, refreshSeconds: 0 }, platform);
        http = request(app.getHttpServer());
        mail = app.get<Queue>(getQueueToken('mail'));
      });
      afterAll(() => app.close());

      it('serves its assets and guards every page', async () => {
        await http.get('/queues').expect(403);
        const css = await http.get('/queues/_assets/app.css').set('x-user', 'ada').expect(200);
        expect(css.headers['content-type']).toMatch(/text\/css/);
        await http.get('/queues/_assets/app.js').set('x-user', 'ada').expect(200).expect('content-type', /javascript/);
        await http.get('/queues/default/nope').set('x-user', 'ada').expect(404);
      });

      it('switches queues from a queue page without JavaScript: a plain GET form, answered with a redirect', async () => {
        const res = await http.get('/queues/default/mail').set('x-user', 'ada').expect(200);
        const form = /<form class="switcher"[\s\S]*?<\/form>/.exec(res.text)![0];
        expect(form).toContain('<form class="switcher" method="get" action="/queues/_switch">');
        expect(form).toContain('<label for="queue-switch">Queue</label>');
        expect([...form.matchAll(/<option value="([^"]+)" data-href="([^"]+)"( selected)?>([^<]+)<\/option>/g)].map((m) => [m[1], m[2], m[4], Boolean(m[3])])).toEqual([
          ['default/billing', '/queues/default/billing', 'billing', false],
          ['default/mail', '/queues/default/mail', 'mail', true],
        ]);
        expect(form).toContain('<button type="submit">Go</button>');
        // What a browser without scripts sends on Go: the form's GET, then the redirect to the queue's page.
        const go = await http.get('/queues/_switch?to=default%2Fbilling').set('x-user', 'ada').expect(303);
        expect(go.headers.location).toBe('/queues/default/billing');
        // Only a queue of this dashboard: never a redirect elsewhere; and behind the guard like every page.
        const unknown = await http.get('/queues/_switch?to=https%3A%2F%2Fevil.example').set('x-user', 'ada').expect(404);
        expect(unknown.headers.location).toBeUndefined();
        expect(unknown.text).toContain('no queue &quot;https://evil.example&quot; on this dashboard');
        await http.get('/queues/_switch?to=default%2Fbilling').expect(403);
      });

      it('renders job data escaped', async () => {
        const job = await mail.add('send', { html: '<script>alert(1)</script>', quote: `"'` }, { delay: 60_000 });
        const res = await http.get(`/queues/default/mail/jobs/${job.id}`).set('x-user', 'ada').expect(200);
        expect(res.text).not.toContain('<script>alert(1)</script>');
        expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
        expect(res.text.match(/<script/g)).toHaveLength(1); // the module's own app.js only
      });

      it('runs an action with the page token and refuses it without', async () => {
        const delayed = await mail.add('send', { n: 1 }, { delay: 60_000 });
        const page = await http.get('/queues/default/mail?state=delayed').set('x-user', 'ada').expect(200);
        const { cookie, token } = csrfOf(page);
        expect(token).not.toBe('');
        const body = { action: 'promote', ids: [delayed.id] };
        await http.post('/queues/default/mail/actions').set('cookie', cookie).send(body).expect(403); // guard: no user
        await http.post('/queues/default/mail/actions').set('x-user', 'ada').set('cookie', cookie).send(body).expect(403); // no token
        await http.post('/queues/default/mail/actions').set('x-user', 'ada').set('cookie', cookie).set('x-spool-csrf', `${token}x`).send(body).expect(403);
        expect((await mail.getJob(delayed.id))!.state).toBe('delayed');
        const ok = await http.post('/queues/default/mail/actions').set('x-user', 'ada').set('cookie', cookie).set('x-spool-csrf', token).send(body).expect(200);
        expect(ok.body).toEqual({ message: 'Promoted 1 job of mail' });
        expect((await mail.getJob(delayed.id))!.state).toBe('waiting');
        // Bad input comes back as a 400 naming the problem; GET never changes anything.
        const bad = await http.post('/queues/default/mail/actions').set('x-user', 'ada').set('cookie', cookie).set('x-spool-csrf', token).send({ action: 'explode' }).expect(400);
        expect(bad.body.message).toMatch(/action must be one of/);
        const badFilter = await http.post('/queues/default/mail/actions').set('x-user', 'ada').set('cookie', cookie).set('x-spool-csrf', token).send({ action: 'redrive', filter: '{' }).expect(400);
        expect(badFilter.body.message).toMatch(/filter must be JSON/);
        const notFinished = await http.post('/queues/default/mail/actions').set('x-user', 'ada').set('cookie', cookie).set('x-spool-csrf', token).send({ action: 'remove', ids: [delayed.id] }).expect(400);
        expect(notFinished.body.message).toMatch(new RegExp(delayed.id));
        await http.get('/queues/default/mail/actions').set('x-user', 'ada').expect(404);
      });

      it('pages a finished state newest first and searches by name and id', async () => {
        const billing = app.get<Queue>(getQueueToken('billing'));
        const added = await billing.addBulk(Array.from({ length: 30 }, (_, i) => ({ name: i % 3 ? 'invoice' : 'refund', data: i, opts: { delay: 60_000 } })));
        for (const job of added) await billing.cancel(job.id); // cancelled in order: the last added is the newest
        const ids = (html: string): string[] => [...html.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]!);
        const first = await http.get('/queues/default/billing?state=cancelled').set('x-user', 'ada').expect(200);
        expect(ids(first.text)).toEqual(added.slice(5).reverse().map((j) => j.id));
        expect(first.text).toContain('1–25 of 30');
        expect(first.text).toContain('Purge all 30');
        const next = /<a href="([^"]+)">next →<\/a>/.exec(first.text)![1]!.replace(/&amp;/g, '&');
        const second = await http.get(next).set('x-user', 'ada').expect(200);
        expect(ids(second.text)).toEqual(added.slice(0, 5).reverse().map((j) => j.id));
        const refunds = await http.get('/queues/default/billing?state=cancelled&name=refund').set('x-user', 'ada').expect(200);
        expect(ids(refunds.text)).toHaveLength(10);
        expect(refunds.text).toContain('Purge all 10');
        const byId = await http.get(`/queues/default/billing?id=${added[7]!.id}`).set('x-user', 'ada').expect(303);
        expect(byId.headers.location).toBe(`/queues/default/billing/jobs/${added[7]!.id}`);
        const missing = await http.get('/queues/default/billing?id=nope&state=cancelled').set('x-user', 'ada').expect(200);
        expect(missing.text).toContain('No job with id &quot;nope&quot; in billing.');
      });

      it('sorts by the When column both ways with plain links, pages keep the order, a filter says why it cannot sort', async () => {
        const tax = app.get<Queue>(getQueueToken('billing'));
        const ids = (html: string): string[] => [...html.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]!);
        const link = (html: string, label: string): string => new RegExp(`<a (?:class="[^"]*" )?href="([^"]+)"[^>]*>${label}</a>`).exec(html)![1]!.replace(/&amp;/g, '&');
        // Delayed jobs, due one after the other: the index is by run-at.
        const added: Awaited<ReturnType<Queue['add']>>[] = [];
        for (let i = 0; i < 30; i++) added.push(await tax.add('sorting', { i }, { delay: 3_600_000 + i * 1000 }));
        const due = added.map((j) => j.id);
        const mine = (list: string[]): string[] => list.filter((id) => due.includes(id));
        const first = await http.get('/queues/default/billing?state=delayed').set('x-user', 'ada').expect(200);
        expect(first.text).toMatch(/<th class="sortable">When <a class="sort on" href="[^"]+" aria-current="true">↑ due soonest first<\/a> <a class="sort" href="[^"]+">↓ due last first<\/a><\/th>/);
        expect(first.text).toContain('Only the When column sorts: delayed jobs are kept in that order');
        const soonest = mine(ids(first.text));
        expect(soonest).toEqual(due.slice(0, soonest.length));
        // The other way: a plain GET link (no script), the page after it keeps the order.
        const latestHref = link(first.text, '↓ due last first');
        expect(latestHref).toBe('/queues/default/billing?state=delayed&sort=desc');
        const latest = await http.get(latestHref).set('x-user', 'ada').expect(200);
        expect(mine(ids(latest.text))).toEqual([...due].reverse().slice(0, 25));
        expect(latest.text).toContain('aria-current="true">↓ due last first</a>');
        const next = /<a href="([^"]+)">next →<\/a>/.exec(latest.text)![1]!.replace(/&amp;/g, '&');
        expect(next).toContain('sort=desc');
        const page2 = await http.get(next).set('x-user', 'ada').expect(200);
        expect(mine(ids(page2.text))).toEqual([...due].reverse().slice(25));
        // A filter scans one way: no sort links, the reason said.
        const filtered = await http.get('/queues/default/billing?state=delayed&name=sorting&sort=desc').set('x-user', 'ada').expect(200);
        expect(filtered.text).not.toContain('class="sort');
        expect(filtered.text).toContain('Filtered: due soonest first only');
        expect(mine(ids(filtered.text))).toEqual(due.slice(0, 25));
        // Finished jobs are newest first by default; oldest first walks the same index from its other end.
        for (const job of added) await tax.cancel(job.id); // cancelled in order: the last one is the newest
        const oldest = await http.get('/queues/default/billing?state=cancelled&sort=asc').set('x-user', 'ada').expect(200);
        const newest = await http.get('/queues/default/billing?state=cancelled').set('x-user', 'ada').expect(200);
        expect(mine(ids(newest.text))).toEqual([...due].reverse().slice(0, 25));
        expect(oldest.text).toContain('Sorted by finished at, oldest first.');
        const finished = async (list: string[]): Promise<number[]> => Promise.all(list.map(async (id) => (await tax.getJob(id))!.finishedAt!));
        const up = await finished(ids(oldest.text));
        const down = await finished(ids(newest.text));
        expect(up.length).toBeGreaterThan(0);
        expect(up).toEqual([...up].sort((a, b) => a - b));
        expect(down).toEqual([...down].sort((a, b) => b - a));
        expect(up[0]).toBeLessThanOrEqual(down[down.length - 1]!);
      });

      it('pauses and resumes the queue and a job name', async () => {
        const page = await http.get('/queues/default/mail').set('x-user', 'ada').expect(200);
        const { cookie, token } = csrfOf(page);
        const post = (body: object) => http.post('/queues/default/mail/actions').set('x-user', 'ada').set('cookie', cookie).set('x-spool-csrf', token).send(body).expect(200);
        await post({ action: 'pause', names: ['send'] });
        expect(await mail.pausedNames()).toEqual(['send']);
        const shown = await http.get('/queues').set('x-user', 'ada').expect(200);
        expect(shown.text).toContain('1 name paused');
        await post({ action: 'resume', names: ['send'] });
        await post({ action: 'pause' });
        expect(await mail.isPaused()).toBe(true);
        await post({ action: 'resume' });
        await waitFor(async () => !(await mail.isPaused()), { message: 'queue resumed' });
      });
    });
  }
});
