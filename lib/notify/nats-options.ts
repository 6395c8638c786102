import { InvalidArgumentError } from '../common/errors.js';
import { parseJsonObject } from '../common/json-object.js';
import { assertKnownKeys, assertPlainObject, describe } from '../common/validation.js';
import type { SpoolLogger } from '../logger.js';
import type { Announcement } from './notify-adapter.js';

export interface NatsNotifyOptions {
  /** One server or several, e.g. `'nats://127.0.0.1:4222'`. */
  readonly servers: string | readonly string[];
  /**
   * A JetStream KV bucket (created with a 60 s TTL when missing) for the
   * wake-hint budget. Needs `nats-server -js`. Left out: every idle worker
   * wakes on every announcement.
   */
  readonly kvBucket?: string;
  /** Subjects are `<subjectPrefix>.sched|owls|done`. Default `spool`. */
  readonly subjectPrefix?: string;
  /** How long the first connection may take before NatsUnavailableError, in ms. Default 5,000. */
  readonly connectTimeout?: number;
  readonly logger?: SpoolLogger;
}

export interface ResolvedNatsOptions {
  readonly servers: readonly string[];
  readonly kvBucket?: string;
  readonly subjectPrefix: string;
  readonly connectTimeout: number;
}

export const NATS_OPTION_KEYS = ['servers', 'kvBucket', 'subjectPrefix', 'connectTimeout', 'logger'] as const;
const SUBJECT = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const BUCKET = /^[A-Za-z0-9_-]+$/;

export function resolveNatsOptions(options: unknown, field = 'NatsNotify options'): ResolvedNatsOptions {
  assertPlainObject(options, field);
  assertKnownKeys(options, NATS_OPTION_KEYS, field);
  const raw = options.servers;
  const servers = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(servers) || servers.length === 0 || !servers.every((s) => typeof s === 'string' && s !== '')) {
    throw new InvalidArgumentError(`${field}.servers`, `must be a server URL or a list of them, got ${describe(raw)}`, "e.g. { servers: 'nats://127.0.0.1:4222' }");
  }
  const prefix = options.subjectPrefix ?? 'spool';
  if (typeof prefix !== 'string' || !SUBJECT.test(prefix)) {
    throw new InvalidArgumentError(`${field}.subjectPrefix`, `${describe(prefix)} is not a NATS subject prefix`, 'use letters, digits, _ and - in tokens separated by dots, e.g. "spool.app"');
  }
  const bucket = options.kvBucket;
  if (bucket !== undefined && (typeof bucket !== 'string' || !BUCKET.test(bucket))) {
    throw new InvalidArgumentError(`${field}.kvBucket`, `${describe(bucket)} is not a KV bucket name`, 'use letters, digits, _ and -, e.g. "spool_hints"');
  }
  const timeout = options.connectTimeout ?? 5000;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1) {
    throw new InvalidArgumentError(`${field}.connectTimeout`, `must be a whole number of ms >= 1, got ${describe(timeout)}`);
  }
  return { servers: servers as string[], ...(bucket !== undefined && { kvBucket: bucket }), subjectPrefix: prefix, connectTimeout: timeout };
}

/** The KV key of a queue's hint count; queue names outside the key alphabet are base64url-encoded behind '='. */
export function hintKey(subjectPrefix: string, queue: string): string {
  const safe = BUCKET.test(queue) ? queue : `=${Buffer.from(queue).toString('base64url')}`;
  return `${subjectPrefix}.hint.${safe}`;
}

/** One announcement as a NATS payload (JSON; the subject names the channel). */
export function encodeNats(a: Announcement): string {
  return JSON.stringify(a);
}

/** A payload back into an announcement; null for anything that is not one of ours. */
export function decodeNats(raw: string): Announcement | null {
  const value = parseJsonObject(raw);
  if (!value) return null;
  const a = value as Partial<Record<'channel' | 'message' | 'hints', unknown>>;
  const m = (typeof a.message === 'object' && a.message !== null ? a.message : {}) as Record<string, unknown>;
  const text = (v: unknown): v is string => typeof v === 'string';
  if (a.channel === 'sched' && text(m.queue)) {
    if (m.kind === 'waiting') return { channel: 'sched', message: { kind: 'waiting', queue: m.queue }, hints: Number(a.hints) || 0 };
    if (m.kind === 'delayed' && typeof m.dueIn === 'number') return { channel: 'sched', message: { kind: 'delayed', queue: m.queue, dueIn: m.dueIn }, hints: 0 };
  }
  if (a.channel === 'owls' && (m.kind === 'lost' || m.kind === 'cancel') && text(m.queue) && text(m.id) && text(m.token)) {
    return { channel: 'owls', message: { kind: m.kind, queue: m.queue, id: m.id, token: m.token } };
  }
  if (a.channel === 'done' && text(m.queue) && text(m.id) && text(m.state)) {
    return { channel: 'done', message: { queue: m.queue, id: m.id, state: m.state } };
  }
  return null;
}
