import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from 'redis';
import { freePort, RedisServer, waitForPing } from './redis-server.mjs';
import { makeCertificates, type TestCertificates } from './tls-redis.js';
import { waitFor } from './wait-for.js';

/** The master name the sentinels of a SentinelGroup monitor. */
export const MASTER_NAME = 'spool-master';

/** A data node: its process, and the TLS port clients and replication use. */
interface DataNode {
  readonly server: RedisServer;
  readonly tlsPort: number;
}

/**
 * A private Sentinel setup for one test file, as production runs one: a
 * master, a replica and three sentinels (`redis-server <conf> --sentinel`)
 * on free loopback ports, TLS everywhere clients and replication go (a CA
 * made with openssl; each node keeps a plain port for the helper's own
 * checks only), passwords on both kinds of node, and short timeouts (down
 * after 1 s, failover timeout 3 s) so a failover takes a few seconds. Every
 * process is stopped by its own pid.
 */
export class SentinelGroup {
  private constructor(
    private readonly nodes_: DataNode[],
    /** The sentinels' plain ports (the helper's checks) and TLS ports (clients). */
    private readonly sentinelPlainPorts: number[],
    readonly sentinelPorts: number[],
    private readonly sentinels: ChildProcess[],
    readonly certs: TestCertificates,
    /** The data nodes' password (requirepass, masterauth) and the sentinels' own (requirepass of the sentinels). */
    readonly passwords: { readonly master: string; readonly sentinel: string },
  ) {}

  static async start(passwords = { master: 'master-secret', sentinel: 'sentinel-secret' }): Promise<SentinelGroup> {
    const certs = makeCertificates();
    const group = new SentinelGroup([], [], [], [], certs, passwords);
    try {
      const master = await group.startNode();
      const replica = await group.startNode(master.tlsPort);
      await waitFor(async () => (await group.role(replica.server.port)).includes('connected'), { timeout: 10_000, message: 'the replica in sync' });
      for (let i = 0; i < 3; i++) {
        const [port, tlsPort] = [await freePort(), await freePort()];
        const conf = join(certs.dir, `sentinel-${i}.conf`);
        writeFileSync(
          conf,
          [
            `port ${port}`,
            `tls-port ${tlsPort}`,
            ...group.tlsConf(),
            'bind 127.0.0.1',
            `dir ${certs.dir}`,
            `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.tlsPort} 2`,
            `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
            `sentinel failover-timeout ${MASTER_NAME} 3000`,
            `sentinel parallel-syncs ${MASTER_NAME} 1`,
            `sentinel auth-pass ${MASTER_NAME} ${passwords.master}`,
            `requirepass ${passwords.sentinel}`,
            `sentinel sentinel-pass ${passwords.sentinel}`,
            '',
          ].join('\n'),
        );
        const child = spawn('redis-server', [conf, '--sentinel', '--loglevel', 'warning'], { stdio: 'ignore' });
        group.sentinels.push(child);
        group.sentinelPlainPorts.push(port);
        group.sentinelPorts.push(tlsPort);
        await waitForPing(port);
      }
      // Each sentinel knows the replica and the two other sentinels before a failover can be agreed on.
      await waitFor(async () => (await Promise.all(group.sentinelPlainPorts.map((port) => group.known(port)))).every((k) => k.replicas >= 1 && k.sentinels >= 2), {
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

  /** The sentinels (TLS ports) as a connection takes them. */
  get nodes(): { host: string; port: number }[] {
    return this.sentinelPorts.map((port) => ({ host: '127.0.0.1', port }));
  }

  /** The `tls` option of a client: the test CA (servers do not ask for client certificates here). */
  get tls(): { ca: string } {
    return { ca: this.certs.ca };
  }

  /** The master's TLS port as the sentinels report it now. */
  async masterPort(): Promise<number> {
    const reply = (await ask(this.sentinelPlainPorts[0]!, this.passwords.sentinel, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME])) as string[];
    return Number(reply[1]);
  }

  /** The server process that is master now. */
  async master(): Promise<RedisServer> {
    const port = await this.masterPort();
    const node = this.nodes_.find((n) => n.tlsPort === port);
    if (!node) throw new Error(`no server of the group on TLS port ${port}`);
    return node.server;
  }

  /** A new replica of the current master (a replacement node joining), in sync when this resolves. */
  async addReplica(): Promise<RedisServer> {
    const node = await this.startNode(await this.masterPort());
    await waitFor(async () => (await this.role(node.server.port)).includes('connected'), { timeout: 20_000, message: 'the new replica in sync' });
    return node.server;
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
    await Promise.all(this.nodes_.map((n) => n.server.dispose()));
    rmSync(this.certs.dir, { recursive: true, force: true });
  }

  private tlsConf(): string[] {
    const { dir, caFile } = this.certs;
    return [`tls-cert-file ${join(dir, 'server.crt')}`, `tls-key-file ${join(dir, 'server.key')}`, `tls-ca-cert-file ${caFile}`, 'tls-auth-clients no', 'tls-replication yes'];
  }

  /** A data node with TLS (and the group's password), a replica of the master on `replicaOf` (a TLS port) when given. */
  private async startNode(replicaOf?: number): Promise<DataNode> {
    const tlsPort = await freePort();
    const tls = this.tlsConf().flatMap((line) => {
      const [key, value] = line.split(' ');
      return [`--${key}`, value!];
    });
    const auth = ['--requirepass', this.passwords.master, '--masterauth', this.passwords.master];
    const server = await RedisServer.start({ args: ['--tls-port', String(tlsPort), ...tls, ...auth, ...(replicaOf === undefined ? [] : ['--replicaof', '127.0.0.1', String(replicaOf)])] });
    const node = { server, tlsPort };
    this.nodes_.push(node);
    return node;
  }

  private async role(port: number): Promise<string> {
    const reply = (await ask(port, this.passwords.master, ['ROLE'])) as unknown[];
    return String(reply[3] ?? '');
  }

  /** How many replicas and other sentinels a sentinel knows of the master. */
  private async known(port: number): Promise<{ replicas: number; sentinels: number }> {
    const master = (await ask(port, this.passwords.sentinel, ['SENTINEL', 'MASTER', MASTER_NAME])) as string[];
    const field = (name: string): number => Number(master[master.indexOf(name) + 1]);
    return { replicas: field('num-slaves'), sentinels: field('num-other-sentinels') };
  }
}

/** One command on a node's plain port (the helper's own checks). */
async function ask(port: number, password: string, args: string[]): Promise<unknown> {
  const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false }, password, RESP: 2 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    client.destroy();
  }
}
