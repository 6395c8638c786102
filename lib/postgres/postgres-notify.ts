import type { Client, ClientConfig, Notification } from 'pg';
import type { FinishedMessage, NotifyAdapter, OwnershipMessage, SchedMessage, Unsubscribe } from '../notify/notify-adapter.js';
import { loadPg } from './peer.js';

type Listener<T> = (message: T) => void;

/** The LISTEN/NOTIFY channel of a schema: every transition's pg_notify goes there (sql/functions/00-includes). */
export function channelOf(schema: string): string {
  return `spool:${schema}`;
}

/** A notification as the SQL functions write it: c = s (sched), o (ownership) or d (done). */
function decode(payload: string | undefined): { c: string; [k: string]: unknown } | undefined {
  if (!payload) return undefined;
  try {
    const v = JSON.parse(payload) as unknown;
    return typeof v === 'object' && v !== null && typeof (v as { c?: unknown }).c === 'string' ? (v as { c: string }) : undefined;
  } catch {
    return undefined;
  }
}

/** Options of PostgresNotify: how to open its one listening connection. */
export interface PostgresNotifyOptions {
  /** node-postgres client config of the listening connection (connectionString, host, ...). */
  readonly client: ClientConfig;
  readonly schema: string;
  /** A listener threw, or the connection dropped: reported here (default: ignored). */
  readonly onError?: (message: string, err: unknown) => void;
}

/**
 * Wake-ups over PostgreSQL LISTEN/NOTIFY: one listening connection per
 * adapter, opened on the first subscription and reopened after a drop (the
 * listeners then hear onReconnect: messages sent meanwhile are lost, the
 * workers' slow poll is the net). The store's SQL functions call pg_notify
 * inside their transaction, so a job added in a caller's transaction wakes
 * workers when that transaction commits, and never when it rolls back.
 */
export class PostgresNotify implements NotifyAdapter {
  private readonly sched = new Set<Listener<SchedMessage>>();
  private readonly owls = new Set<Listener<OwnershipMessage>>();
  private readonly done = new Set<Listener<FinishedMessage>>();
  private readonly reconnects = new Set<() => void>();
  private readonly drops = new Set<() => void>();
  private client: Promise<Client> | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly options: PostgresNotifyOptions) {}

  onScheduled(listener: Listener<SchedMessage>): Promise<Unsubscribe> {
    return this.subscribe(this.sched, listener);
  }

  onOwnershipLost(listener: Listener<OwnershipMessage>): Promise<Unsubscribe> {
    return this.subscribe(this.owls, listener);
  }

  onFinished(listener: Listener<FinishedMessage>): Promise<Unsubscribe> {
    return this.subscribe(this.done, listener);
  }

  onReconnect(listener: () => void): () => void {
    this.reconnects.add(listener);
    return () => void this.reconnects.delete(listener);
  }

  onDrop(listener: () => void): () => void {
    this.drops.add(listener);
    return () => void this.drops.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.sched.clear();
    this.owls.clear();
    this.done.clear();
    const client = this.client;
    this.client = undefined;
    if (client) await client.then((c) => c.end()).catch(() => undefined);
  }

  private async subscribe<T>(set: Set<Listener<T>>, listener: Listener<T>): Promise<Unsubscribe> {
    set.add(listener);
    try {
      await this.connection();
    } catch (err) {
      // Not listening yet: polling covers the gap, and the connection is retried.
      this.options.onError?.('PostgreSQL LISTEN connection failed; retrying', err);
      this.scheduleRetry();
    }
    return async () => void set.delete(listener);
  }

  private connection(): Promise<Client> {
    this.client ??= this.open().catch((err: unknown) => {
      this.client = undefined;
      throw err;
    });
    return this.client;
  }

  private async open(): Promise<Client> {
    const pg = await loadPg();
    // Named, so an operator (or a test) can tell this connection in pg_stat_activity.
    const client = new pg.Client({ ...this.options.client, application_name: 'spool-notify' });
    client.on('notification', (n: Notification) => this.dispatch(n.payload));
    const lost = (err?: unknown) => {
      if (this.closed || !this.client) return;
      this.client = undefined;
      this.options.onError?.('PostgreSQL LISTEN connection dropped; reconnecting', err);
      for (const l of this.drops) l();
      this.scheduleRetry();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    await client.connect();
    await client.query(`LISTEN "${channelOf(this.options.schema)}"`);
    if (this.closed) {
      await client.end();
      throw new Error('PostgresNotify closed');
    }
    return client;
  }

  private scheduleRetry(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connection().then(
        () => {
          for (const l of this.reconnects) l();
        },
        () => this.scheduleRetry(),
      );
    }, 500);
    this.retry.unref();
  }

  private dispatch(payload: string | undefined): void {
    const m = decode(payload);
    if (!m || this.closed) return;
    const q = String(m.q);
    if (m.c === 's') {
      const message: SchedMessage = m.k === 'delayed' ? { kind: 'delayed', queue: q, dueIn: Number(m.d) } : { kind: 'waiting', queue: q };
      emit(this.sched, message);
    } else if (m.c === 'o') {
      emit(this.owls, { kind: m.k === 'cancel' ? 'cancel' : 'lost', queue: q, id: String(m.i), token: String(m.t) });
    } else if (m.c === 'd') {
      emit(this.done, { queue: q, id: String(m.i), state: String(m.s) });
    }
  }
}

function emit<T>(set: Set<Listener<T>>, message: T): void {
  for (const listener of [...set]) {
    try {
      listener(message);
    } catch {
      // One listener's bug must not keep the message from the others.
    }
  }
}
