import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, request as httpClient, type BrowserContext, type Page } from 'playwright-core';
import { getFlowProducerToken, getQueueToken, type FlowProducer, type Queue } from '../../lib/index.js';
import { createSampleApp } from '../../sample/create-app.js';
import { DASHBOARD_PASSWORD, DASHBOARD_USER } from '../../sample/dashboard-guard.js';
import { redisUrl, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/** Screenshots of every page, for a person to look at (gitignored). */
const SHOTS = join(process.cwd(), 'test-output', 'dashboard');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The sample app's dashboard in Debian's chromium: one browser for the file. */
describe('dashboard in a real browser (sample app, chromium)', () => {
  let app: INestApplication;
  let url: string;
  let profile: string;
  let browser: BrowserContext;
  let page: Page;
  let emails: Queue;

  beforeAll(async () => {
    app = await createSampleApp({ redisUrl: redisUrl(), prefix: uniquePrefix('browser'), shutdownTimeout: 3000 }, { logLevels: ['error'], shutdownHooks: false });
    await app.listen(0, '127.0.0.1');
    url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/queues`;
    emails = app.get<Queue>(getQueueToken('emails'), { strict: false });
    mkdirSync(SHOTS, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'spool-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      httpCredentials: { username: DASHBOARD_USER, password: DASHBOARD_PASSWORD },
      viewport: { width: 1360, height: 860 },
    });
    page = browser.pages()[0] ?? (await browser.newPage());
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function state(queue: Queue, id: string, want: string): Promise<void> {
    await waitFor(async () => (await queue.getJob(id))?.state === want, { timeout: 10_000, message: `job ${id} of ${queue.name} to be ${want}` });
  }

  it('lists the queues on the overview, with the workers serving each', async () => {
    // The sample app runs one processor per queue: each worker's heartbeat is on the page once it was sent.
    await waitFor(async () => (await emails.getWorkers()).length === 1, { message: 'the emails worker heard from' });
    const workers = await emails.getWorkers();
    await page.goto(url);
    const names = await page.locator('table.overview tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-queue')));
    expect(names).toEqual(['emails', 'orders', 'reports', 'warehouse']);
    const cell = page.locator('tr[data-queue="emails"] td:nth-child(3)');
    expect(await cell.innerText()).toBe('1');
    expect(await cell.getAttribute('title')).toBe(`0 of ${workers[0]!.concurrency} slots busy on ${workers[0]!.hostname}`);
  });

  it('opens failed jobs, redrives one, and sees it complete', async () => {
    const fragile = await emails.add('fragile', { to: 'ops@example.com' });
    await state(emails, fragile.id, 'failed');
    await page.goto(url);
    await page.locator('tr[data-queue="emails"] td.bad a').click();
    await page.waitForSelector(`tr[data-id="${fragile.id}"]`);
    expect(await page.locator(`tr[data-id="${fragile.id}"] .err`).innerText()).toContain('mailbox of ops@example.com is full');
    await page.screenshot({ path: join(SHOTS, 'queue-failed.png'), fullPage: true });
    await page.locator(`tr[data-id="${fragile.id}"] a.jid`).click();
    expect(await page.locator('section.error .errmsg').innerText()).toContain('mailbox of ops@example.com is full');
    await page.screenshot({ path: join(SHOTS, 'job-failed.png'), fullPage: true });
    await page.goBack();

    await page.locator(`tr[data-id="${fragile.id}"] input.pick`).check();
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.accept();
    });
    await page.getByRole('button', { name: 'Redrive selected' }).click();
    await page.waitForSelector('#flash:not([hidden])');
    expect(asked).toEqual(['Redrive 1 selected job(s) of emails?']);
    expect(await page.locator('#flash').innerText()).toBe('Redrove 1 job of emails');
    await state(emails, fragile.id, 'completed');
    await page.goto(`${url}/default/emails/jobs/${fragile.id}`);
    expect(await page.locator('dl.facts .badge').first().innerText()).toBe('completed');
    expect(await page.locator('section pre').nth(1).innerText()).toContain('after a redrive');
  });

  it('shows a flow tree with links to parent and children', async () => {
    const flows = app.get<FlowProducer>(getFlowProducerToken(), { strict: false });
    const orders = app.get<Queue>(getQueueToken('orders'), { strict: false });
    await flows.add({
      name: 'ship',
      queueName: 'orders',
      data: { orderId: 'b1' },
      opts: { jobId: 'order:b1' },
      children: [
        { name: 'charge', queueName: 'orders', data: { orderId: 'b1', qty: 2 }, opts: { jobId: 'charge:b1' } },
        { name: 'pick', queueName: 'warehouse', data: { orderId: 'b1', qty: 2 }, opts: { jobId: 'pick:b1' } },
      ],
    });
    await state(orders, 'order:b1', 'completed');
    await page.goto(`${url}/default/orders/jobs/${encodeURIComponent('order:b1')}`);
    const links = await page.locator('ul.tree a').allInnerTexts();
    expect(links.sort()).toEqual(['charge:b1', 'pick:b1']);
    await page.screenshot({ path: join(SHOTS, 'job-flow-parent.png'), fullPage: true });
    await page.locator('ul.tree a', { hasText: 'pick:b1' }).click();
    await page.waitForSelector('text=Parent:');
    expect(await page.locator('h1').innerText()).toBe('Job pick:b1');
    await page.locator('section.flow p a').click();
    expect(await page.locator('h1').innerText()).toBe('Job order:b1');
  });

  it('shows a payload with a script tag as text (no dialog)', async () => {
    const payload = '<script>alert("xss")</script><img src=x onerror="alert(1)">';
    const job = await emails.add('reminder', { to: payload }, { delay: 3_600_000 });
    const dialogs: string[] = [];
    const onDialog = (d: { message(): string; dismiss(): Promise<void> }): void => {
      dialogs.push(d.message());
      void d.dismiss();
    };
    page.on('dialog', onDialog);
    await page.goto(`${url}/default/emails/jobs/${job.id}`);
    await page.waitForLoadState('load');
    expect(await page.locator('pre.data').innerText()).toContain(payload.replace(/"/g, '\\"'));
    await page.screenshot({ path: join(SHOTS, 'job-delayed-xss.png'), fullPage: true });
    await page.goto(`${url}/default/emails?state=delayed`);
    expect(await page.locator(`tr[data-id="${job.id}"] a.jid`).innerText()).toBe(job.id);
    await page.screenshot({ path: join(SHOTS, 'queue-delayed.png'), fullPage: true });
    page.off('dialog', onDialog);
    expect(dialogs).toEqual([]);
  });

  it('refuses an unauthenticated POST and a POST without the CSRF token', async () => {
    const job = await emails.add('reminder', { to: 'x@example.com' }, { delay: 3_600_000 });
    const target = `${url}/default/emails/actions`;
    const anonymous = await httpClient.newContext();
    try {
      const res = await anonymous.post(target, { data: { action: 'promote', ids: [job.id] } });
      expect(res.status()).toBe(401);
    } finally {
      await anonymous.dispose();
    }
    // Logged in (the browser's credentials and CSRF cookie), but without the page's token.
    const res = await page.request.post(target, { data: { action: 'promote', ids: [job.id] } });
    expect(res.status()).toBe(403);
    expect(((await res.json()) as { message: string }).message).toMatch(/CSRF token/);
    expect((await emails.getJob(job.id))!.state).toBe('delayed');
  });

  it('shows the last hour on the overview once jobs ran', async () => {
    await Promise.all(Array.from({ length: 5 }, (_, i) => emails.add('send', { to: `u${i}@example.com`, subject: 'hi' })));
    await waitFor(async () => (await emails.getMetrics()).lastHour.completed >= 6, { timeout: 10_000, message: 'sends completed' });
    await page.goto(url);
    expect(await page.locator('tr[data-queue="emails"] .legend').innerText()).toMatch(/^\d+ done · \d+ failed \/h$/);
    expect(await page.locator('tr[data-queue="emails"] svg rect.ok').count()).toBe(60);
    await page.screenshot({ path: join(SHOTS, 'overview.png'), fullPage: true });
  });
});
