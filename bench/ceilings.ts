import { Redis } from 'ioredis';
import { performance } from 'node:perf_hooks';
import { createClient } from 'redis';
import { inFlight } from './measure.js';

/** The raw ceilings' row keys (Results), contender FLOOR-like pseudo-names under the row 'ceiling'. */
export const CEILINGS = {
  /** node-redis SET, 100 in flight: the access pattern of add one by one (node-redis, as Spool). */
  setInFlight: 'node-redis SET, 100 in flight',
  /** ioredis pipeline of 1,000 SETs per exec(), one at a time: the access pattern of bulk add. */
  setPipelined: 'ioredis pipelined SET, 1,000 per exec',
  /** node-redis EVALSHA of `return 1`, 100 in flight: the cost of a script call itself. */
  evalsha: 'node-redis EVALSHA `return 1`, 100 in flight',
} as const;
export type Ceiling = (typeof CEILINGS)[keyof typeof CEILINGS];

/**
 * What the same Redis does for the simplest command of each access pattern,
 * measured in the same run as the rows: no queue library can add faster than
 * it can SET the same number of keys with the same number in flight. Values
 * are the size of a bench job's payload. Own connections, opened once.
 */
export class CeilingProbe {
  private readonly nodeRedis;
  private readonly ioredis: Redis;
  private sha = '';

  constructor(url: string) {
    this.nodeRedis = createClient({ url });
    const { hostname, port } = new URL(url);
    this.ioredis = new Redis({ host: hostname, port: Number(port), lazyConnect: true });
  }

  async open(): Promise<void> {
    await this.nodeRedis.connect();
    await this.ioredis.connect();
  }

  async close(): Promise<void> {
    await this.nodeRedis.close();
    this.ioredis.disconnect();
  }

  /** Ops per second of `n` operations of one ceiling (FLUSHALL before is the caller's, so the script is loaded here). */
  async run(ceiling: Ceiling, n: number): Promise<number> {
    const value = (i: number) => JSON.stringify({ i, g: 0 });
    if (ceiling === CEILINGS.evalsha) this.sha = String(await this.nodeRedis.sendCommand(['SCRIPT', 'LOAD', 'return 1']));
    const t0 = performance.now();
    switch (ceiling) {
      case CEILINGS.setInFlight:
        await inFlight(n, 100, (i) => this.nodeRedis.set(`ceiling:${i}`, value(i)));
        break;
      case CEILINGS.setPipelined:
        for (let from = 0; from < n; from += 1000) {
          const pipeline = this.ioredis.pipeline();
          for (let i = from; i < Math.min(n, from + 1000); i++) pipeline.set(`ceiling:${i}`, value(i));
          const replies = await pipeline.exec();
          const failed = replies?.find(([err]) => err);
          if (failed) throw failed[0];
        }
        break;
      case CEILINGS.evalsha:
        await inFlight(n, 100, () => this.nodeRedis.sendCommand(['EVALSHA', this.sha, '0']));
        break;
    }
    return (n / (performance.now() - t0)) * 1000;
  }
}
