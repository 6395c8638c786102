import { Queue, RedisStore, type JobOptions } from '../../lib/index.js';
import { pushList } from '../../lib/store/keys.js';
import type { RedisClientLike } from '../../lib/store/redis-client.js';
import { decodeHash } from '../../lib/store/replies.js';
import type { RawReply } from '../../lib/store/reply-values.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { usePrivateRedis } from '../helpers/private-redis.js';
import { silentLogger, uniquePrefix } from '../helpers/store.js';

type Fields = Record<string, string>;

/** A flat field/value list as an object. */
const asObject = (flat: readonly unknown[]): Fields => {
  const out: Fields = {};
  for (let i = 0; i < flat.length; i += 2) out[String(flat[i])] = String(flat[i + 1]);
  return out;
};

/** What differs between two runs of the same start: times, the lease counter's number (the token keeps its worker and mark), the queue in a dedup key. */
const normalized = (job: Fields): Fields => ({
  ...job,
  ...(job.dk !== undefined && { dk: job.dk.replace(/^\{[^}]+\}/, '{queue}') }),
  createdAt: 'T',
  startedAt: 'T',
  token: job.token!.replace(/^w1:\d+/, 'w1:N'),
});

/**
 * The one-job push (lua/includes/push-jobs): an add of one plain job to a
 * queue where nothing waits writes it already started for the named idle
 * worker. It must write what the claim's push writes: compared here against
 * the same add sent through the claim (a leftover ring turn, meta rr, turns
 * the one-job push off without changing what the claim does with the job).
 * A private server: the tests count the commands each path runs.
 */
describe('the one-job push', () => {
  const server = usePrivateRedis();
  let store: RedisStore;
  let prefix: string;
  let redis: RedisClientLike;

  beforeEach(async () => {
    prefix = uniquePrefix();
    store = new RedisStore({ url: server.url }, { prefix, logger: silentLogger });
    await store.connect();
    redis = commandOf(store);
  });
  afterEach(async () => {
    await store.disconnect();
  });

  /** Commands of `names` the server ran during `run`. */
  async function counted(names: readonly string[], run: () => Promise<void>): Promise<Record<string, number>> {
    await redis.sendCommand(['CONFIG', 'RESETSTAT']);
    await run();
    const info = String(await redis.sendCommand(['INFO', 'commandstats']));
    return Object.fromEntries(names.map((name) => [name, Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0)]));
  }

  /** The messages in worker w1's push list (no worker pops it here). */
  const pushedTo = async (queue: string): Promise<string[]> => ((await redis.sendCommand(['LRANGE', pushList(keysOf(store, queue), 'w1'), '0', '-1'])) as unknown[]).map(String);

  /** Names worker w1 for pushes, adds one job, and returns what each store part holds after it. */
  async function startOne(name: string, opts: JobOptions, throughClaim: boolean) {
    const queue = new Queue<number>(name, { store });
    const k = keysOf(store, name);
    if (throughClaim) await redis.sendCommand(['HSET', k.meta, 'rr', '1']);
    await redis.sendCommand(['SET', `${k.idle}:push`, 'w1|30000|1', 'PX', '30000']);
    let id = '';
    const commands = await counted(['rpush', 'lpop', 'hgetall'], async () => {
      id = (await queue.add('x', 7, opts)).id;
    });
    const messages = await pushedTo(name);
    expect(messages).toHaveLength(1);
    // The list lives as long as the lease it carries.
    expect(Number(await redis.sendCommand(['TTL', pushList(k, 'w1')]))).toBe(30);
    const pushed = JSON.parse(messages[0]!) as string[][];
    expect(pushed).toHaveLength(1);
    const job = decodeHash((await redis.sendCommand(['HGETALL', k.job(id)])) as RawReply);
    const active = (await redis.sendCommand(['ZRANGE', k.active, '0', '-1', 'WITHSCORES'])) as string[];
    const events = ((await redis.sendCommand(['XRANGE', k.events, '-', '+'])) as [string, RawReply][]).map(([, fields]) => decodeHash(fields));
    const meta = decodeHash((await redis.sendCommand(['HGETALL', k.meta])) as RawReply);
    const lanes = [await redis.sendCommand(['LLEN', k.fifo]), await redis.sendCommand(['ZCARD', k.wait])];
    return { id, job, pushed: asObject(pushed[0]!), active, events, meta, lanes, commands };
  }

  const cases: [string, JobOptions, string][] = [
    ['a plain job', {}, '.'],
    ['a job kept on completion by count (rc)', { removeOnComplete: 5 }, '+'],
    ['a job with attempts', { attempts: 3 }, '.'],
    ['a job deduplicated until it finishes (dk)', { dedup: { key: 'only-one' } }, ''],
  ];

  it.each(cases)('%s: the same hash, lease, index entry, events and message as through the claim', async (_label, opts, mark) => {
    const direct = await startOne(`direct-${mark || 'none'}-${Object.keys(opts).join()}`, opts, false);
    const viaClaim = await startOne(`claim-${mark || 'none'}-${Object.keys(opts).join()}`, opts, true);
    // The paths differ in what they ran: the one-job push neither lists, pops nor re-reads the job (its one RPUSH is the push list's).
    expect(direct.commands).toEqual({ rpush: 1, lpop: 0, hgetall: 0 });
    expect(viaClaim.commands).toEqual({ rpush: 2, lpop: 1, hgetall: 1 });
    for (const run of [direct, viaClaim]) {
      expect(run.job.state).toBe('active');
      expect(run.job.token).toMatch(new RegExp(`^w1:${run.meta.lc}${mark.replace('.', '\\.').replace('+', '\\+')}$`));
      expect(run.active).toEqual([[run.id, Number(run.job.startedAt) + 30000]]); // the lease's expiry
      expect(run.pushed).toEqual({ ...run.job, id: run.id });
      expect(run.lanes).toEqual([0, 0]);
    }
    expect(normalized(direct.job)).toEqual(normalized(viaClaim.job));
    expect(direct.events).toEqual(viaClaim.events);
    expect(direct.events.map((e) => e.event)).toEqual(['added', 'active']);
    // Meta alike but for the claim's traces: rr written back, the name's waiting count up and down to 0.
    const { rr: _rr, 'n:x': waitingOfName, ...claimMeta } = viaClaim.meta;
    expect(waitingOfName).toBe('0');
    expect(direct.meta).toEqual(claimMeta);
  });

  it('a job waiting ahead is the one pushed: the new one waits behind it', async () => {
    const queue = new Queue<number>('ahead', { store });
    const k = keysOf(store, 'ahead');
    const first = await queue.add('x', 1); // no worker named: it waits
    await redis.sendCommand(['SET', `${k.idle}:push`, 'w1|30000|1', 'PX', '30000']);
    const second = await queue.add('x', 2);
    const messages = await pushedTo('ahead');
    expect(messages).toHaveLength(1);
    expect(asObject((JSON.parse(messages[0]!) as string[][])[0]!).id).toBe(first.id);
    expect((await queue.getJob(second.id))?.state).toBe('waiting');
    expect(await queue.verify()).toEqual([]);
  });

  it.each([
    ['the queue is paused', async (queue: Queue<number>) => queue.pause()],
    ['a rate limit is set', async (queue: Queue<number>) => queue.configure({ rateLimit: { max: 100, duration: 1000 } })],
  ])('goes through the claim when %s', async (label, setUp) => {
    const name = `gated-${label.length}`;
    const queue = new Queue<number>(name, { store });
    await setUp(queue);
    await redis.sendCommand(['SET', `${keysOf(store, name).idle}:push`, 'w1|30000|1', 'PX', '30000']);
    const commands = await counted(['rpush'], async () => void (await queue.add('x', 1)));
    // Listed (one RPUSH), then claimed for the worker when the gate lets it (one more, to the push list).
    expect(commands.rpush! - (await pushedTo(name)).length).toBe(1);
    expect(await queue.verify()).toEqual([]);
  });
});
