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
    expect(await page.locator('tr[data-queue="emails"] .legend').innerText()).toMatch(/^\d+ done · \d+ failed attempts$/);
    expect(await page.locator('tr[data-queue="emails"] svg rect.ok').count()).toBe(60);
    await page.screenshot({ path: join(SHOTS, 'overview.png'), fullPage: true });
  });

  /** What accept() reads in the page (the specs compile without the DOM lib). */
  interface PageGlobals {
    spoolBeforeAction?: boolean;
    readonly document: { getElementById(id: string): { readonly hidden: boolean } | null };
  }

  async function accept(click: () => Promise<void>, reloads = true): Promise<string[]> {
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.accept();
    });
    // A successful action reloads the page, which then shows the flash: mark this document first, so the
    // wait cannot match the flash still shown by the previous action's reload.
    // (A refused action shows its flash without a reload: reloads false.)
    if (reloads) await page.evaluate(() => void ((globalThis as unknown as PageGlobals).spoolBeforeAction = true));
    await click();
    // A function, not a string: the dashboard's CSP refuses eval of strings in the page.
    await page.waitForFunction(() => {
      const g = globalThis as unknown as PageGlobals;
      return g.spoolBeforeAction !== true && g.document.getElementById('flash')?.hidden === false;
    });
    return asked;
  }

  it('lists completed jobs with their duration and result, and active ones with progress', async () => {
    await page.goto(`${url}/default/emails?state=completed`);
    const head = await page.locator('table.jobs thead th').allInnerTexts();
    expect(head.slice(-2).map((t) => t.toLowerCase())).toEqual(['duration', 'result']);
    const first = page.locator('table.jobs tbody tr').first();
    expect(await first.locator('td.num').last().innerText()).toMatch(/^\d+ ms$|^\d+ s$/);
    expect(await first.locator('code.result').count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'queue-completed.png'), fullPage: true });
  });

  it('Schedulers page: lists a scheduler, runs it now and removes it, each confirmed', async () => {
    const reports = app.get<Queue>(getQueueToken('reports'), { strict: false });
    await reports.upsertScheduler('nightly-digest', { cron: '0 2 * * *', tz: 'Europe/Paris', limit: 30 }, { name: 'digest', data: { to: 'ops@example.com' } });
    await page.goto(`${url}/default/reports`);
    await page.locator('nav.subnav a', { hasText: 'Schedulers' }).click();
    const row = page.locator('tr[data-scheduler="nightly-digest"]');
    expect(await row.locator('td').nth(2).innerText()).toBe('cron 0 2 * * *');
    expect(await row.locator('td').nth(3).innerText()).toBe('Europe/Paris');
    expect(await row.locator('td').nth(4).innerText()).toMatch(/^in \d+ (h|min)/);
    expect(await row.locator('td').nth(7).innerText()).toBe('0 of 30 ticks');
    const pausing = await accept(() => row.getByRole('button', { name: 'Pause' }).click());
    expect(pausing).toEqual(['Pause scheduler "nightly-digest" of reports? Its pending tick is dropped and nothing ticks until you resume it.']);
    expect(await page.locator('#flash').innerText()).toBe('Paused scheduler nightly-digest of reports');
    expect(await reports.getScheduler('nightly-digest')).toMatchObject({ paused: true, next: null });
    expect(await row.locator('td').nth(4).innerText()).toBe('paused');
    await page.screenshot({ path: join(SHOTS, 'schedulers.png'), fullPage: true });
    await accept(() => row.getByRole('button', { name: 'Resume' }).click());
    expect(await page.locator('#flash').innerText()).toBe('Resumed scheduler nightly-digest of reports');
    expect((await reports.getScheduler('nightly-digest'))!.next).toBeGreaterThan(Date.now());
    const asked = await accept(() => row.getByRole('button', { name: 'Run now' }).click());
    expect(asked).toEqual(['Add one "digest" job of scheduler "nightly-digest" to reports now? Its next tick stays as it is.']);
    const flash = await page.locator('#flash').innerText();
    const id = /^Added job (\S+) of scheduler nightly-digest to reports$/.exec(flash)?.[1];
    expect(id).toMatch(/^nightly-digest:\d+$/);
    await waitFor(async () => (await reports.getJob(id!)) !== null, { message: 'the run-now job' });
    const removed = await accept(() => page.locator('tr[data-scheduler="nightly-digest"]').getByRole('button', { name: 'Remove' }).click());
    expect(removed[0]).toMatch(/^Remove scheduler "nightly-digest" of reports/);
    expect(await page.locator('#flash').innerText()).toBe('Removed scheduler nightly-digest of reports');
    expect(await reports.getSchedulers()).toEqual([]);
  });

  it('Metrics page: figures and four charts with axes in their units, the gauge history among them', async () => {
    // The emails worker's heartbeat samples the gauges once a minute (its first beat at start).
    await waitFor(async () => (await emails.getMetrics()).minutes.some((m) => m.oldestWaitingMs !== null), { message: 'a gauge sample' });
    await page.goto(`${url}/default/emails/metrics`);
    const figures = await page.locator('.figure').allInnerTexts();
    expect(figures.some((f) => /Completed \/h\s*\n\s*\d+/.test(f))).toBe(true);
    expect(figures.some((f) => f.includes('Failed attempts /h') && /retried, \d+ dead-lettered \(jobs\)/.test(f))).toBe(true);
    expect(await page.locator('figure.mchart figcaption').allInnerTexts()).toEqual([
      expect.stringContaining('Throughput per minute'),
      expect.stringContaining('Handler duration per minute'),
      expect.stringContaining('Oldest waiting age per minute'),
      expect.stringContaining('Delayed lag per minute'),
    ]);
    const throughput = page.locator('figure.mchart').first();
    expect((await throughput.locator('svg text').allTextContents()).filter((t) => t.endsWith('/min')).length).toBeGreaterThanOrEqual(2);
    expect((await throughput.locator('svg text').allTextContents()).filter((t) => /^\d\d:\d\d$/.test(t)).length).toBeGreaterThanOrEqual(5);
    const durations = page.locator('figure.mchart').nth(1);
    expect((await durations.locator('svg text').allTextContents()).some((t) => / ms$| s$/.test(t))).toBe(true);
    expect(await durations.locator('polyline.p50').count()).toBe(1);
    for (const [nth, cls] of [[2, 'age'], [3, 'lag']] as const) {
      const chart = page.locator('figure.mchart').nth(nth);
      const texts = await chart.locator('svg text').allTextContents();
      // y ticks in time units (round durations), x ticks in UTC minutes.
      expect(texts.filter((t) => /^\d+ (ms|s|min)( \d+ s)?$/.test(t)).length).toBeGreaterThanOrEqual(3);
      expect(texts.filter((t) => /^\d\d:\d\d$/.test(t)).length).toBeGreaterThanOrEqual(5);
      expect(await chart.locator(`circle.${cls}`).count()).toBeGreaterThanOrEqual(1);
      expect(await chart.locator('p.small').innerText()).toContain('one sample a minute');
    }
    await page.screenshot({ path: join(SHOTS, 'metrics.png'), fullPage: true });
  });

  it('Workers page: every worker with host, pid, concurrency and busy slots; one queue\'s from its page', async () => {
    const workers = await emails.getWorkers();
    await page.goto(`${url}/_workers`);
    const queues = await page.locator('table.workers tbody tr td:first-child').allInnerTexts();
    expect([...new Set(queues)]).toEqual(['emails', 'orders', 'reports', 'warehouse']);
    const row = page.locator(`tr[data-worker="${workers[0]!.id}"] td`);
    expect((await row.allInnerTexts()).slice(2, 5)).toEqual([workers[0]!.hostname, String(workers[0]!.pid), String(workers[0]!.concurrency)]);
    await page.screenshot({ path: join(SHOTS, 'workers.png'), fullPage: true });
    await page.goto(`${url}/default/emails`);
    await page.locator('nav.subnav a', { hasText: 'Workers' }).click();
    expect(await page.locator('h1').innerText()).toBe('Workers of emails');
    expect(await page.locator('table.workers tbody tr').count()).toBe(workers.length);

    // Pause one worker: confirmed, posted with the CSRF token, taken by the worker at its next heartbeat.
    const id = workers[0]!.id;
    const asked = await accept(() => page.locator(`tr[data-worker="${id}"]`).getByRole('button', { name: 'Pause' }).click());
    expect(asked[0]).toMatch(new RegExp(`^Pause worker ${id} of emails \\(.+, pid \\d+\\)\\? Within 5 s it takes no new job`));
    expect(await page.locator('#flash').innerText()).toBe(`Asked worker ${id} of emails to pause (it does so at its next heartbeat, within 5 s)`);
    await waitFor(async () => (await emails.getWorkers()).find((w) => w.id === id)?.paused === true, { timeout: 8000, message: 'the worker paused' });
    await page.reload();
    expect(await page.locator(`tr[data-worker="${id}"] .badge`).innerText()).toBe('paused');
    await page.screenshot({ path: join(SHOTS, 'workers-paused.png'), fullPage: true });
    await accept(() => page.locator(`tr[data-worker="${id}"]`).getByRole('button', { name: 'Resume' }).click());
    expect(await page.locator('#flash').innerText()).toBe(`Asked worker ${id} of emails to resume (it does so at its next heartbeat, within 5 s)`);
    await waitFor(async () => (await emails.getWorkers()).find((w) => w.id === id)?.paused === false, { timeout: 8000, message: 'the worker running again' });
  }, 30_000);

  it('Redis page: version, memory and policy, clients, keys, clock', async () => {
    await page.goto(url);
    await page.locator('nav.pages a', { hasText: 'Redis' }).click();
    const facts = await page.locator('section.redis dl.facts').innerText();
    expect(facts).toMatch(/Version\s+\d+\.\d+\.\d+ \(standalone\)/);
    expect(facts).toMatch(/Eviction policy\s+noeviction/);
    expect(facts).toMatch(/Connected clients\s+\d+/);
    expect(facts).toMatch(/this app's 4 queue\(s\) hold ≈ [\d,]+ job keys/);
    expect(facts).toMatch(/Clock\s+Redis \d+ ms (ahead of|behind) this host/);
    await page.screenshot({ path: join(SHOTS, 'redis.png'), fullPage: true });
  });

  it('Add job form: the DTO\'s field errors under the form, then the job added (confirmed)', async () => {
    await page.goto(`${url}/default/emails?state=waiting`);
    await page.locator('summary', { hasText: 'Add job' }).click();
    await page.getByLabel('Job name').fill('send');
    await page.getByLabel('Data (JSON object)').fill('{ "to": "not-an-address", "subject": "" }');
    const asked = await accept(() => page.getByRole('button', { name: 'Add job' }).click(), false);
    expect(asked).toEqual(['Add a job named "send" to emails?']);
    const errors = await page.locator('form.addjob .field-errors li').allInnerTexts();
    expect(errors).toEqual(expect.arrayContaining([expect.stringMatching(/^to: .*email/), expect.stringMatching(/^subject: /)]));
    await page.screenshot({ path: join(SHOTS, 'add-job-errors.png'), fullPage: true });
    await page.getByLabel('Data (JSON object)').fill('{ "to": "ada@example.com", "subject": "hello from the dashboard" }');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Add job' }).click();
    const flash = page.locator('#flash', { hasText: /^Added job \S+ \(send\) to emails$/ });
    await flash.waitFor({ timeout: 10_000 });
    const id = /^Added job (\S+) /.exec(await flash.innerText())![1]!;
    expect((await emails.getJob(id))?.data).toEqual({ to: 'ada@example.com', subject: 'hello from the dashboard' });
  });

  it('queue switcher: Go opens the chosen queue (the script goes straight there; without it the form\'s GET redirects)', async () => {
    await page.goto(`${url}/default/emails`);
    await page.getByLabel('Queue').selectOption({ label: 'orders' });
    await page.getByRole('button', { name: 'Go' }).click();
    await page.waitForURL(`${url}/default/orders`);
    expect(await page.locator('h1').innerText()).toMatch(/^orders\s/);
  });

  interface FocusGlobals {
    readonly document: { readonly activeElement: { getAttribute(name: string): string | null } | null };
  }

  /** Tabs through the page once (as many presses as it has focusable elements, and a few) and returns the kb marks reached. */
  async function tabThrough(): Promise<Set<string>> {
    const stops = await page.locator('a[href], button:not([disabled]), input, select, textarea, summary').count();
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    const reached = new Set<string>();
    for (let i = 0; i < stops + 3; i++) {
      await page.keyboard.press('Tab');
      const mark = await page.evaluate(() => (globalThis as unknown as FocusGlobals).document.activeElement?.getAttribute('data-kb') ?? null);
      if (mark !== null) reached.add(mark);
    }
    return reached;
  }

  /** Marks every action button, and returns their marks with their labels. */
  async function actionButtons(): Promise<Map<string, string>> {
    const labels = await page.locator('button[data-action]').evaluateAll((els) => els.map((el, i) => (el.setAttribute('data-kb', String(i)), el.textContent ?? '')));
    return new Map(labels.map((label, i) => [String(i), label]));
  }

  it('keyboard: Tab reaches every action button of the queue and job pages, Enter asks, cancel leaves all as it was, focus is outlined', async () => {
    const fragile = await emails.add('fragile', { to: 'keys@example.com' });
    await state(emails, fragile.id, 'failed');

    // Queue page, failed jobs: the "selected" buttons wait for a selection, which the keyboard makes too (Space).
    await page.goto(`${url}/default/emails?state=failed`);
    await page.locator(`tr[data-id="${fragile.id}"] input.pick`).focus();
    await page.keyboard.press('Space');
    expect(await page.locator('button.needs-selection:disabled').count()).toBe(0);
    const onQueue = await actionButtons();
    expect([...onQueue.values()]).toEqual(expect.arrayContaining(['Pause queue', 'Pause name', 'Redrive selected', 'Remove selected']));
    const reachedQueue = await tabThrough();
    expect([...onQueue.keys()].filter((k) => !reachedQueue.has(k)).map((k) => onQueue.get(k))).toEqual([]);

    // Job page: every action of a failed job.
    await page.goto(`${url}/default/emails/jobs/${encodeURIComponent(fragile.id)}`);
    const onJob = await actionButtons();
    expect([...onJob.values()]).toEqual(expect.arrayContaining(['Redrive', 'Remove']));
    const reachedJob = await tabThrough();
    expect([...onJob.keys()].filter((k) => !reachedJob.has(k)).map((k) => onJob.get(k))).toEqual([]);

    // Focus the Redrive button from the keyboard: its outline shows (:focus-visible), then Enter asks.
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    for (let i = 0; i < 200; i++) {
      await page.keyboard.press('Tab');
      const label = await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string | null } | null } }).document.activeElement?.textContent ?? '');
      if (label === 'Redrive') break;
    }
    const outline = await page.locator('button:focus').evaluate((el) => {
      const view = el.ownerDocument.defaultView as unknown as { getComputedStyle(e: unknown): { outlineStyle: string; outlineWidth: string; outlineColor: string } };
      const cs = view.getComputedStyle(el);
      return { style: cs.outlineStyle, width: cs.outlineWidth, color: cs.outlineColor };
    });
    expect(outline).toEqual({ style: 'solid', width: '2px', color: 'rgb(29, 78, 216)' });
    const asked: string[] = [];
    // The confirmation is the browser's own dialog: Escape there is its Cancel (dismiss).
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.keyboard.press('Enter');
    await waitFor(() => asked.length === 1, { message: 'the confirmation' });
    expect(asked[0]).toMatch(/^Redrive 1 job: /);
    // Cancelled: nothing was posted, the job is still a dead letter and the button can be used again.
    expect(await page.locator('#flash').isHidden()).toBe(true);
    expect((await emails.getJob(fragile.id))?.state).toBe('failed');
    expect(await page.locator('button:focus').isEnabled()).toBe(true);
  }, 30_000);

  it('follows prefers-color-scheme: dark', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await page.goto(url);
      const bg = await page.locator('body').evaluate((el) => (el.ownerDocument.defaultView as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor);
      expect(bg).toBe('rgb(20, 24, 32)');
      await page.screenshot({ path: join(SHOTS, 'overview-dark.png'), fullPage: true });
      await page.goto(`${url}/default/emails/metrics`);
      await page.screenshot({ path: join(SHOTS, 'metrics-dark.png'), fullPage: true });
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });
});
