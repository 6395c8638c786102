import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { freePort, RedisServer, waitForPing } from './redis-server.mjs';
import { waitFor } from './wait-for.js';

/** The master name the sentinels of a SentinelGroup monitor. */
export const MASTER_NAME = 'spool-master';

/**
 * A private Sentinel setup for one test file: a master, a replica and three
 * sentinels (`redis-server <conf> --sentinel`) on free loopback ports, with
 * short timeouts (down after 1 s, failover timeout 3 s) so a failover takes
 * a few seconds. Every process is stopped by its own pid.
 */
export class SentinelGroup {
  private constructor(
    readonly servers: RedisServer[],
    readonly sentinelPorts: number[],
    private readonly sentinels: ChildProcess[],
    private readonly dir: string,
  ) {}

  static async start(): Promise<SentinelGroup> {
    const master = await RedisServer.start();
    const replica = await RedisServer.start({ args: ['--replicaof', '127.0.0.1', String(master.port)] });
    const dir = mkdtempSync(join(tmpdir(), 'spool-sentinel-'));
    const group = new SentinelGroup([master, replica], [], [], dir);
    try {
      await waitFor(async () => (await role(replica.port)).includes('connected'), { timeout: 10_000, message: 'the replica in sync' });
      for (let i = 0; i < 3; i++) {
        const port = await freePort();
        const conf = join(dir, `sentinel-${i}.conf`);
        writeFileSync(
          conf,
          [
            `port ${port}`,
            'bind 127.0.0.1',
            `dir ${dir}`,
            `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.port} 2`,
            `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
            `sentinel failover-timeout ${MASTER_NAME} 3000`,
            `sentinel parallel-syncs ${MASTER_NAME} 1`,
            '',
          ].join('\n'),
        );
        const child = spawn('redis-server', [conf, '--sentinel', '--loglevel', 'warning'], { stdio: 'ignore' });
        group.sentinels.push(child);
        group.sentinelPorts.push(port);
        await waitForPing(port);
      }
      // Each sentinel knows the replica and the two other sentinels before a failover can be agreed on.
      await waitFor(async () => (await Promise.all(group.sentinelPorts.map(known))).every((k) => k.replicas >= 1 && k.sentinels >= 2), {
        timeout: 15_000,
        interval: 100,
        message: 'the sentinels to know the replica and each other',
      });
    } catch (err) {
      await group.dispose();
      throw err;
    }
    return group;
  }

  /** The sentinels as a connection takes them. */
  get nodes(): { host: string; port: number }[] {
    return this.sentinelPorts.map((port) => ({ host: '127.0.0.1', port }));
  }

  /** The master's port as the sentinels report it now. */
  async masterPort(): Promise<number> {
    const reply = (await ask(this.sentinelPorts[0]!, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME])) as string[];
    return Number(reply[1]);
  }

  /** The server process that is master now. */
  async master(): Promise<RedisServer> {
    const port = await this.masterPort();
    const server = this.servers.find((s) => s.port === port);
    if (!server) throw new Error(`no server of the group on port ${port}`);
    return server;
  }

  /** A new replica of the current master (a replacement node joining), in sync when this resolves. */
  async addReplica(): Promise<RedisServer> {
    const replica = await RedisServer.start({ args: ['--replicaof', '127.0.0.1', String(await this.masterPort())] });
    this.servers.push(replica);
    await waitFor(async () => (await role(replica.port)).includes('connected'), { timeout: 10_000, message: 'the new replica in sync' });
    return replica;
  }

  async dispose(): Promise<void> {
    await Promise.all(
      this.sentinels.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await exited;
      }),
    );
    await Promise.all(this.servers.map((s) => s.dispose()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function ask(port: number, args: string[]): Promise<unknown> {
  const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false }, RESP: 2 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    client.destroy();
  }
}

async function role(port: number): Promise<string> {
  const reply = (await ask(port, ['ROLE'])) as unknown[];
  return String(reply[3] ?? '');
}

/** How many replicas and other sentinels a sentinel knows of the master. */
async function known(port: number): Promise<{ replicas: number; sentinels: number }> {
  const master = (await ask(port, ['SENTINEL', 'MASTER', MASTER_NAME])) as string[];
  const field = (name: string): number => Number(master[master.indexOf(name) + 1]);
  return { replicas: field('num-slaves'), sentinels: field('num-other-sentinels') };
}
