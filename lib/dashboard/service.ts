import { ForbiddenException, NotFoundException } from '@nestjs/common';
import { SpoolBootstrapError } from '../nest/errors.js';
import type { SpoolConnections } from '../nest/connections.js';
import type { QueueRegistry } from '../nest/queue-registry.js';
import { actorOf, auditLog, parseAction, runAction } from './actions.js';
import { APP_CSS, APP_JS } from './assets.js';
import { CSRF_HEADER, CsrfTokens, csrfCookie, readCookie, CSRF_COOKIE } from './csrf.js';
import type { QueueDashboardOptions } from './options.js';
import { DashboardReader, type QueueQuery } from './reader.js';
import { html, query, type SafeHtml } from './views/escape.js';
import { jobView } from './views/job.js';
import { jobHref, layout, queueHref, type PageFrame } from './views/layout.js';
import { overviewView } from './views/overview.js';
import { queueView } from './views/queue.js';
import { metricsView } from './views/metrics.js';
import { redisView, schedulersView, workersView } from './views/ops.js';
import { OpsReader } from './ops-reader.js';

/** What the controller needs of a request and a response, on Express and Fastify alike. */
export interface DashboardRequest {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly user?: unknown;
  readonly protocol?: string;
}
export interface DashboardResponse {
  header(name: string, value: string): unknown;
  status(code: number): unknown;
}

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

function header(req: DashboardRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Renders the pages and runs the actions behind the dashboard's routes. */
export class DashboardService {
  private readonly reader: DashboardReader;
  private readonly ops: OpsReader;
  private readonly csrf: CsrfTokens;
  readonly readOnly: boolean;
  private readonly refreshSeconds: number;

  constructor(
    options: QueueDashboardOptions,
    registry: QueueRegistry,
    connections: SpoolConnections,
    readonly base: string,
  ) {
    for (const c of options.connections ?? []) {
      if (!connections.names.includes(c)) throw new SpoolBootstrapError(`QueueDashboardModule options.connections "${c}"`, 'is not configured', `configured: ${connections.names.join(', ')}`);
    }
    this.reader = new DashboardReader(registry, connections, options.connections, base);
    this.ops = new OpsReader(this.reader, registry, connections, base);
    this.csrf = new CsrfTokens(options.csrfSecret);
    this.readOnly = options.readOnly === true;
    this.refreshSeconds = options.refreshSeconds ?? 5;
  }

  asset(file: string, res: DashboardResponse): string {
    const body = file === 'app.css' ? APP_CSS : file === 'app.js' ? APP_JS : undefined;
    if (body === undefined) throw new NotFoundException(`no dashboard asset ${file}`);
    res.header('content-type', file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
    res.header('cache-control', 'public, max-age=300');
    res.header('x-content-type-options', 'nosniff');
    return body;
  }

  async overview(req: DashboardRequest, res: DashboardResponse): Promise<string> {
    const rows = await this.reader.overview();
    return this.page(req, res, { title: 'Queues', crumbs: [] }, overviewView(this.base, rows, this.reader.connectionNames().length > 1));
  }

  async queue(connection: string, name: string, q: QueueQuery & { id?: string }, req: DashboardRequest, res: DashboardResponse): Promise<string> {
    return this.guarded(req, res, async () => {
      let notice: string | undefined;
      if (q.id) {
        const job = await this.reader.queue(connection, name).getJob(q.id);
        if (job) return this.redirect(res, jobHref(this.base, connection, name, q.id));
        notice = `No job with id "${q.id}" in ${name}.`;
      }
      const model = await this.reader.queuePage(connection, name, q, this.readOnly, notice);
      return this.page(req, res, { title: name, crumbs: [[name]], endpoint: queueHref(this.base, connection, name, '/actions') }, queueView(model));
    });
  }

  /**
   * The queue switcher's plain GET form (works without JavaScript): `to` is "<connection>/<queue>" of a queue this
   * dashboard shows, answered with a redirect to its page; anything else is a 404 (never a redirect elsewhere).
   */
  async switchTo(to: string | undefined, req: DashboardRequest, res: DashboardResponse): Promise<string> {
    return this.guarded(req, res, async () => {
      const link = this.reader.queueLinks().find((l) => `${l.connection}/${l.queue}` === to);
      if (!link) throw new NotFoundException(`no queue "${to ?? ''}" on this dashboard: pick one from the list`);
      return this.redirect(res, link.href);
    });
  }

  async job(connection: string, name: string, id: string, req: DashboardRequest, res: DashboardResponse): Promise<string> {
    return this.guarded(req, res, async () => {
      const model = await this.reader.jobPage(connection, name, id, this.readOnly);
      const queuePage = queueHref(this.base, connection, name, query({ state: model.job.state }));
      return this.page(req, res, { title: `${name} / ${id}`, crumbs: [[name, queuePage], [id]], endpoint: queueHref(this.base, connection, name, '/actions'), back: queuePage }, jobView(model));
    });
  }

  async schedulers(connection: string, name: string, req: DashboardRequest, res: DashboardResponse): Promise<string> {
    return this.guarded(req, res, async () => {
      const model = await this.ops.schedulers(connection, name, this.readOnly);
      return this.page(req, res, { title: `${name} schedulers`, crumbs: [[name, queueHref(this.base, connection, name)], ['schedulers']], endpoint: queueHref(this.base, connection, name, '/actions') }, schedulersView(model));
    });
  }

  async metrics(connection: string, name: string, req: DashboardRequest, res: DashboardResponse): Promise<string> {
    return this.guarded(req, res, async () => {
      const model = await this.ops.metrics(connection, name);
      return this.page(req, res, { title: `${name} metrics`, crumbs: [[name, queueHref(this.base, connection, name)], ['metrics']] }, metricsView(model));
    });
  }

  async workers(only: string | undefined, req: DashboardRequest, res: DashboardResponse): Promise<string> {
    const rows = await this.ops.workers(only);
    return this.page(req, res, { title: 'Workers', crumbs: [['workers']] }, workersView(this.base, rows, Date.now(), this.readOnly, only));
  }

  async redis(req: DashboardRequest, res: DashboardResponse): Promise<string> {
    const sections = await this.ops.redis();
    return this.page(req, res, { title: 'Redis', crumbs: [['redis']] }, redisView(sections, Date.now()));
  }

  /** POST: refused when read-only or without the page's CSRF token; logged with who did it. */
  async act(connection: string, name: string, body: unknown, req: DashboardRequest): Promise<{ message: string }> {
    if (this.readOnly) throw new ForbiddenException('this dashboard is read-only (QueueDashboardModule readOnly: true)');
    if (!this.csrf.verify(header(req, 'cookie'), header(req, CSRF_HEADER))) {
      throw new ForbiddenException(`missing or wrong CSRF token: reload the page and try again (the ${CSRF_HEADER} header must match the page's token)`);
    }
    const queue = this.reader.queue(connection, name);
    const request = parseAction(body);
    const message = await runAction(queue, request);
    const who = actorOf(req.user);
    auditLog.log(`${message}${request.ids ? ` [ids: ${request.ids.slice(0, 20).join(', ')}${request.ids.length > 20 ? ', ...' : ''}]` : ''}${request.filter ? ` [filter: ${JSON.stringify(request.filter)}]` : ''}${who ? ` by ${who}` : ''}`);
    return { message };
  }

  private async guarded(req: DashboardRequest, res: DashboardResponse, render: () => Promise<string>): Promise<string> {
    try {
      return await render();
    } catch (err) {
      if (!(err instanceof NotFoundException)) throw err;
      res.status(404);
      return this.page(req, res, { title: 'Not found', crumbs: [['not found']] }, html`<p class="empty">${err.message}</p>`);
    }
  }

  private redirect(res: DashboardResponse, to: string): string {
    res.status(303);
    res.header('location', to);
    return '';
  }

  private page(req: DashboardRequest, res: DashboardResponse, frame: Pick<PageFrame, 'title' | 'crumbs' | 'endpoint' | 'back'>, body: SafeHtml): string {
    let nonce = readCookie(header(req, 'cookie'), CSRF_COOKIE);
    if (!nonce) {
      nonce = this.csrf.newNonce();
      res.header('set-cookie', csrfCookie(nonce, this.base, req.protocol === 'https' || header(req, 'x-forwarded-proto') === 'https'));
    }
    res.header('content-type', 'text/html; charset=utf-8');
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.header(k, v);
    const full: PageFrame = { ...frame, base: this.base, csrf: this.readOnly ? '' : this.csrf.token(nonce), readOnly: this.readOnly, refreshSeconds: this.refreshSeconds };
    return layout(full, body).value;
  }
}
