import { createSentinel, type RedisSentinelOptions } from 'redis';
import type { RedisClientLike } from '../redis-client.js';

type Listener = (...args: never[]) => void;

/** A node-redis Sentinel client (`createSentinel()`), as far as telling it from other clients goes. */
export interface SentinelClientLike {
  getMasterNode(): unknown;
  acquire(): Promise<unknown>;
  duplicate(): unknown;
}

/** A node-redis Sentinel client rather than a single-node or cluster client. */
export function isSentinelClient(value: unknown): value is SentinelClientLike {
  const candidate = value as Partial<Record<'getMasterNode' | 'acquire', unknown>> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.getMasterNode === 'function' && typeof candidate.acquire === 'function';
}

/** The parts of a node-redis sentinel client (`createSentinel()`) the adapter uses. */
interface SentinelInternals {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): Promise<unknown>;
  sendCommand(isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => unknown): Promise<unknown>;
  unsubscribe(channel: string, listener?: (message: string, channel: string) => unknown): Promise<unknown>;
  on(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
}

/**
 * A node-redis Sentinel client seen as the one-connection RedisClientLike the
 * store uses. node-redis finds the master through the sentinels, hears of a
 * failover from them (+switch-master, and a periodic check) and moves its
 * master connection, its pub/sub and its pool over by itself: commands and
 * scripts (EVALSHA; the new master answers NOSCRIPT once and the runner
 * loads the script again), the subscriber and blocking reads follow it.
 * duplicate() makes a sentinel client of its own (one master connection in
 * its pool): a blocking XREAD or a WATCH there holds no connection the
 * store's commands need.
 */
export class SentinelClient implements RedisClientLike {
  private readonly sentinel: SentinelInternals;

  /** A sentinel client made from `options`, or a `createSentinel()` client you made (its duplicates are node-redis's `duplicate()`). */
  constructor(private readonly source: RedisSentinelOptions | SentinelClientLike) {
    this.sentinel = (isSentinelClient(source) ? source : createSentinel(source)) as unknown as SentinelInternals;
  }

  get isOpen(): boolean {
    return this.sentinel.isOpen;
  }

  get isReady(): boolean {
    return this.sentinel.isReady;
  }

  connect(): Promise<unknown> {
    return this.sentinel.connect();
  }

  close(): Promise<unknown> {
    return this.sentinel.close();
  }

  destroy(): void {
    // NOTE: node-redis's sentinel destroy() is async (it closes its pools); nothing waits on it here, as for a client's destroy().
    this.sentinel.destroy().catch(() => undefined);
  }

  duplicate(): SentinelClient {
    return new SentinelClient(isSentinelClient(this.source) ? (this.source.duplicate() as SentinelClientLike) : this.source);
  }

  sendCommand(args: readonly string[]): Promise<unknown> {
    // isReadonly false: every command goes to the master (there is no replica pool).
    return this.sentinel.sendCommand(false, [...args]);
  }

  subscribe(channel: string, listener: (message: string, channel: string) => unknown): Promise<unknown> {
    return this.sentinel.subscribe(channel, listener);
  }

  unsubscribe(channel: string, listener?: (message: string, channel: string) => unknown): Promise<unknown> {
    return this.sentinel.unsubscribe(channel, listener);
  }

  on(event: string, listener: Listener): this {
    this.sentinel.on(event, listener);
    return this;
  }

  off(event: string, listener: Listener): this {
    this.sentinel.off(event, listener);
    return this;
  }
}
