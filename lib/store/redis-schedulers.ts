import type { QueueKeys } from './keys.js';
import type { RedisClientLike } from './redis-client.js';
import { decodeHash } from './replies.js';
import type { RawReply } from './reply-values.js';
import type { SchedulerRecord, SchedulerStore, SchedulerWrite } from './scheduler-store.js';
import type { ScriptName } from './scripts.js';
import type { NewJob } from './store.js';

/** What RedisSchedulers needs from its RedisStore. */
export interface SchedulerStoreHost {
  run(name: ScriptName, queue: string, args: readonly (string | number)[], id: string): Promise<RawReply>;
  client(what: string): RedisClientLike;
  keysOf(queue: string): QueueKeys;
}

/** Schedulers on Redis: lua/scheduler-*.lua and the hashes they keep (lua/includes/schedulers). */
export class RedisSchedulers implements SchedulerStore {
  constructor(private readonly host: SchedulerStoreHost) {}

  async upsert(queue: string, s: SchedulerWrite): Promise<{ changed: boolean; next: number | null }> {
    const args = [s.id, s.spec, s.kind, s.every, s.anchor, s.endAt, s.limit, s.missed, tickTemplate(s.job), s.times.join(',')];
    const [changed, next] = (await this.host.run('schedulerUpsert', queue, args, s.id)) as [number, string];
    return { changed: Number(changed) === 1, next: next === '' ? null : Number(next) };
  }

  async refill(queue: string, id: string, spec: string, times: readonly number[]): Promise<number> {
    return Number(await this.host.run('schedulerRefill', queue, [id, spec, times.join(',')], id));
  }

  async remove(queue: string, id: string): Promise<boolean> {
    return Number(await this.host.run('schedulerRemove', queue, [id], id)) === 1;
  }

  async pause(queue: string, id: string): Promise<'paused' | 'already' | 'unknown'> {
    const code = Number(await this.host.run('schedulerPause', queue, [id], id));
    return code === 1 ? 'paused' : code === 2 ? 'already' : 'unknown';
  }

  async resume(queue: string, id: string): Promise<{ outcome: 'resumed' | 'running' | 'unknown'; next: number | null }> {
    const [code, next] = (await this.host.run('schedulerResume', queue, [id], id)) as [number, string];
    return { outcome: Number(code) === 1 ? 'resumed' : Number(code) === 2 ? 'running' : 'unknown', next: next === '' ? null : Number(next) };
  }

  async get(queue: string, id: string): Promise<SchedulerRecord | null> {
    const hash = decodeHash((await this.host.client('getScheduler').sendCommand(['HGETALL', this.host.keysOf(queue).scheduler(id)])) as RawReply);
    return decodeScheduler(id, hash);
  }

  async list(queue: string): Promise<SchedulerRecord[]> {
    const client = this.host.client('getSchedulers');
    const keys = this.host.keysOf(queue);
    const ids = ((await client.sendCommand(['ZRANGE', keys.schedulers, '0', '-1'])) as string[]).sort();
    const hashes = await Promise.all(ids.map((id) => client.sendCommand(['HGETALL', keys.scheduler(id)]) as Promise<RawReply>));
    return ids.map((id, i) => decodeScheduler(id, decodeHash(hashes[i]))).filter((r): r is SchedulerRecord => r !== null);
  }
}

/** The job hash fields every tick job starts from, as add.lua would write them (defaults left out). */
function tickTemplate(job: NewJob): string {
  const fields = ['name', job.name, 'data', job.data, 'opts', job.opts];
  if (job.maxAttempts !== 1) fields.push('maxAttempts', String(job.maxAttempts));
  if (job.priority !== 0) fields.push('priority', String(job.priority));
  if (job.removeOnComplete !== '-1,-1') fields.push('rc', job.removeOnComplete);
  if (job.removeOnFail !== '-1,-1') fields.push('rf', job.removeOnFail);
  if (job.lifo) fields.push('lifo', '1');
  if (job.group !== undefined && job.group !== '') fields.push('group', job.group);
  return JSON.stringify(fields);
}

export function decodeScheduler(id: string, h: Record<string, string>): SchedulerRecord | null {
  if (h.spec === undefined) return null;
  const num = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));
  return {
    id,
    spec: h.spec,
    next: num(h.next) ?? null,
    times: h.ts ? h.ts.split(',').map(Number) : [],
    count: num(h.count) ?? 0,
    skipped: num(h.skipped) ?? 0,
    ...(h.paused === '1' && { paused: true }),
    ...(h.last !== undefined && { lastJobId: h.last }),
    ...(h.lastAt !== undefined && { lastTickAt: Number(h.lastAt) }),
    createdAt: num(h.createdAt) ?? 0,
    updatedAt: num(h.updatedAt) ?? 0,
  };
}
