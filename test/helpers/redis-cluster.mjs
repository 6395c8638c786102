// A private Redis Cluster for tests: redis-server processes in cluster mode on
// free loopback ports (3 masters and, by default, one replica each), joined by
// `redis-cli --cluster create`. Plain JavaScript like redis-server.mjs, which
// starts and stops each node (by its own pid, in its own temp directory);
// types are in redis-cluster.d.mts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Socket } from 'node:net';
import { createClient } from 'redis';
import { freePort, RedisServer } from './redis-server.mjs';

const run = promisify(execFile);

/** The slot of a key (CRC16/XMODEM of its hash tag, or of the whole key), as Redis Cluster computes it. */
export function keySlot(key) {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

/** One command over a fresh socket (RESP, arguments as bulk strings); resolves with the raw reply text. */
export function rawCommand(port, args, timeout = 2000) {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let reply = '';
    const fail = (err) => {
      socket.destroy();
      reject(err);
    };
    socket.setTimeout(timeout, () => fail(new Error(`port ${port}: no reply to ${args[0]} within ${timeout} ms`)));
    socket.once('error', fail);
    socket.connect(port, '127.0.0.1', () => {
      socket.write(`*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(String(a))}\r\n${a}\r\n`).join(''));
    });
    socket.on('data', (data) => {
      reply += data.toString();
      if (complete(reply)) {
        socket.destroy();
        resolve(reply);
      }
    });
  });
}

/** Whether `text` holds one whole RESP2 reply (enough for the status, error, integer and bulk replies used here). */
function complete(text) {
  const type = text[0];
  const firstEnd = text.indexOf('\r\n');
  if (firstEnd === -1) return false;
  if (type !== '$') return true;
  const length = Number(text.slice(1, firstEnd));
  return length < 0 || text.length >= firstEnd + 2 + length + 2;
}

/** The body of a bulk-string reply (INFO, CLUSTER INFO, CLUSTER NODES). */
function bulk(reply) {
  if (reply.startsWith('-')) throw new Error(reply.trim());
  const firstEnd = reply.indexOf('\r\n');
  return reply.slice(firstEnd + 2, reply.length - 2);
}

/** Parses CLUSTER NODES into { id, port, flags, master, slots: [[from, to], ...] } rows. */
export function parseClusterNodes(text) {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id, address, flags, master, , , , link, ...slotFields] = line.trim().split(' ');
      const port = Number(address.split('@')[0].split(':').pop());
      const slots = slotFields
        .filter((field) => !field.startsWith('['))
        .map((field) => {
          const [from, to] = field.split('-').map(Number);
          return [from, to ?? from];
        });
      return { id, port, flags: flags.split(','), master: master === '-' ? undefined : master, link, slots };
    });
}

/**
 * redis-server arguments for a TLS node (`tls`: a makeCertificates() result):
 * clients on `tlsPort` need a certificate of the CA, and the cluster bus and
 * replication run over TLS too, so what the nodes advertise to clients is TLS.
 */
function tlsArgs(tls, tlsPort) {
  return [
    '--tls-port', String(tlsPort),
    '--tls-cert-file', `${tls.dir}/server.crt`,
    '--tls-key-file', `${tls.dir}/server.key`,
    '--tls-ca-cert-file', tls.caFile,
    '--tls-auth-clients', 'yes',
    '--tls-cluster', 'yes',
    '--tls-replication', 'yes',
  ];
}

/**
 * A local Redis Cluster owned by the test that started it. Every node is a
 * RedisServer (its own pid, port and temp directory); stop() ends each by its
 * pid and removes the directories. No persistence unless `appendonly`.
 */
export class RedisCluster {
  #nodeTimeout;

  constructor(nodes, nodeTimeout) {
    this.nodes = nodes;
    this.#nodeTimeout = nodeTimeout;
  }

  /**
   * Starts `masters` masters with `replicasPerMaster` replicas each (default
   * 3 and 1) and waits until every node reports cluster_state:ok and every
   * replica is in sync. `nodeTimeout` (ms, default 1000) is how long a master
   * may be silent before its replica takes over.
   */
  static async start(options = {}) {
    const masters = options.masters ?? 3;
    const replicas = options.replicasPerMaster ?? 1;
    const nodeTimeout = options.nodeTimeout ?? 1000;
    const count = masters * (replicas + 1);
    const nodes = [];
    try {
      for (let i = 0; i < count; i++) {
        // The cluster bus gets its own free port: the default (port + 10000) may be taken or past 65535.
        const busPort = await freePort();
        const tlsPort = options.tls ? await freePort() : undefined;
        const node = await RedisServer.start({
            appendonly: options.appendonly ?? false,
            args: [
              '--cluster-enabled', 'yes',
              '--cluster-config-file', 'nodes.conf',
              '--cluster-node-timeout', String(nodeTimeout),
              '--cluster-port', String(busPort),
              // A replica takes over however long it was cut off (the default refuses after a long partition).
              '--cluster-replica-validity-factor', '0',
              // Replicas sync at once (the default waits 5 s for more replicas to share one transfer).
              '--repl-diskless-sync-delay', '0',
              ...(options.tls ? tlsArgs(options.tls, tlsPort) : []),
              ...(options.args ?? []),
            ],
          });
        // Opt-in TLS: the node keeps its plain port (the harness's raw commands) and listens for TLS on tlsPort too.
        if (tlsPort !== undefined) node.tlsPort = tlsPort;
        nodes.push(node);
      }
      const cluster = new RedisCluster(nodes, nodeTimeout);
      await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', String(replicas), '--cluster-yes'], {
        timeout: 30_000,
      });
      await cluster.waitUntilHealthy(options.startTimeout ?? 30_000);
      return cluster;
    } catch (err) {
      await Promise.all(nodes.map((n) => n.dispose()));
      throw err;
    }
  }

  /** Node-redis `createCluster` root nodes. */
  get rootNodes() {
    return this.nodes.filter((n) => n.running).map((n) => ({ url: n.url }));
  }

  /** `rediss://` root nodes (TLS ports) of a cluster started with `tls`. */
  get tlsRootNodes() {
    return this.nodes.filter((n) => n.running && n.tlsPort !== undefined).map((n) => ({ url: `rediss://127.0.0.1:${n.tlsPort}` }));
  }

  /** The running node on `port` (its plain port, or its TLS port: a TLS cluster advertises those). */
  node(port) {
    const node = this.nodes.find((n) => n.port === port || (n.tlsPort !== undefined && n.tlsPort === port));
    if (!node) throw new Error(`no node of this cluster listens on port ${port}`);
    return node;
  }

  /** CLUSTER NODES as one running node sees it. */
  async topology() {
    let lastError;
    for (const node of this.nodes.filter((n) => n.running)) {
      try {
        return parseClusterNodes(bulk(await rawCommand(node.port, ['CLUSTER', 'NODES'])));
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError ?? new Error('no node of the cluster is running');
  }

  /** The running masters that own slots, as RedisServer nodes. */
  async masters() {
    const rows = await this.topology();
    return rows
      .filter((r) => r.flags.includes('master') && !r.flags.includes('fail') && r.slots.length > 0)
      .map((r) => this.node(r.port))
      .filter((n) => n.running);
  }

  /** The master (RedisServer) that owns `slot` (a number) or the slot of a key (a string). */
  async masterFor(slotOrKey) {
    const slot = typeof slotOrKey === 'string' ? keySlot(slotOrKey) : slotOrKey;
    const rows = await this.topology();
    const owner = rows.find((r) => r.flags.includes('master') && !r.flags.includes('fail') && r.slots.some(([from, to]) => slot >= from && slot <= to));
    if (!owner) throw new Error(`no live master owns slot ${slot}`);
    return this.node(owner.port);
  }

  /**
   * Moves one slot (of a key, or a slot number) to master `to` the way
   * `redis-cli --cluster reshard` does: IMPORTING on `to`, MIGRATING on the
   * owner, keys MIGRATEd `batch` at a time (after each batch `between()` runs,
   * so clients meet the slot half moved: ASK and TRYAGAIN), then the slot is
   * assigned to `to` on every master. Resolves with the old owner.
   */
  async moveSlot(slotOrKey, to, { batch = 20, between } = {}) {
    const slot = String(typeof slotOrKey === 'string' ? keySlot(slotOrKey) : slotOrKey);
    const from = await this.masterFor(Number(slot));
    if (from === to) throw new Error(`slot ${slot} is on port ${to.port} already`);
    const rows = await this.topology();
    const idOf = (node) => rows.find((r) => r.port === node.port).id;
    const connect = async (node) => {
      const client = createClient({ url: node.url });
      await client.connect();
      return client;
    };
    const [source, target] = await Promise.all([connect(from), connect(to)]);
    try {
      await target.sendCommand(['CLUSTER', 'SETSLOT', slot, 'IMPORTING', idOf(from)]);
      await source.sendCommand(['CLUSTER', 'SETSLOT', slot, 'MIGRATING', idOf(to)]);
      for (;;) {
        const keys = await source.sendCommand(['CLUSTER', 'GETKEYSINSLOT', slot, String(batch)]);
        if (keys.length === 0) break;
        await source.sendCommand(['MIGRATE', '127.0.0.1', String(to.port), '', '0', '5000', 'REPLACE', 'KEYS', ...keys]);
        await between?.();
      }
      await target.sendCommand(['CLUSTER', 'SETSLOT', slot, 'NODE', idOf(to)]);
      await source.sendCommand(['CLUSTER', 'SETSLOT', slot, 'NODE', idOf(to)]);
      for (const master of await this.masters()) {
        if (master === from || master === to) continue;
        const other = await connect(master);
        await other.sendCommand(['CLUSTER', 'SETSLOT', slot, 'NODE', idOf(to)]).finally(() => other.close());
      }
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
    return from;
  }

  /** SIGKILL one node by its pid (a crash: no shutdown, no failover handshake). */
  async kill(node) {
    await node.kill();
  }

  /**
   * Waits until `slotOrKey` is served by a live master other than `oldMaster`
   * and every running node reports cluster_state:ok; resolves with the new
   * master.
   */
  async waitForFailover(oldMaster, slotOrKey, timeout = 15_000) {
    const deadline = Date.now() + timeout;
    for (;;) {
      try {
        const master = await this.masterFor(slotOrKey);
        if (master !== oldMaster && master.running && (await this.#allOk())) return master;
      } catch {
        // Topology is in flux while the replica is promoted.
      }
      if (Date.now() > deadline) throw new Error(`no failover away from port ${oldMaster.port} within ${timeout} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Restarts a killed node (it rejoins, as a replica of whoever took over its slots) and waits until the cluster is healthy. */
  async restart(node, timeout = 30_000) {
    await node.restart();
    await this.waitUntilHealthy(timeout);
  }

  /** Every running node: cluster_state ok, knows every node as connected, and replicas have a live link to their master. */
  async waitUntilHealthy(timeout = 30_000) {
    const deadline = Date.now() + timeout;
    let why = '';
    for (;;) {
      try {
        why = await this.#unhealthy();
        if (why === '') return;
      } catch (err) {
        why = String(err);
      }
      if (Date.now() > deadline) throw new Error(`Redis Cluster not healthy within ${timeout} ms: ${why}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async #allOk() {
    for (const node of this.nodes.filter((n) => n.running)) {
      const info = bulk(await rawCommand(node.port, ['CLUSTER', 'INFO']));
      if (!/^cluster_state:ok/m.test(info)) return false;
    }
    return true;
  }

  async #unhealthy() {
    const running = this.nodes.filter((n) => n.running);
    for (const node of running) {
      const info = bulk(await rawCommand(node.port, ['CLUSTER', 'INFO']));
      if (!/^cluster_state:ok/m.test(info)) return `port ${node.port}: cluster_state not ok`;
      const rows = parseClusterNodes(bulk(await rawCommand(node.port, ['CLUSTER', 'NODES'])));
      const live = rows.filter((r) => r.link === 'connected' && !r.flags.includes('fail') && !r.flags.includes('fail?'));
      const expected = running.length;
      if (live.length < expected) return `port ${node.port} sees ${live.length} of ${expected} nodes connected`;
      // Gossip spreads the replica roles after `--cluster create` returns: wait until every node sees all of them.
      const replicas = live.filter((r) => r.flags.includes('slave')).length;
      const expectedReplicas = running.length - live.filter((r) => r.flags.includes('master') && r.slots.length > 0).length;
      if (replicas !== expectedReplicas) return `port ${node.port} sees ${replicas} of ${expectedReplicas} replicas`;
      const me = rows.find((r) => r.flags.includes('myself'));
      if (me?.flags.includes('slave')) {
        const replication = bulk(await rawCommand(node.port, ['INFO', 'replication']));
        if (!/^master_link_status:up/m.test(replication)) return `replica on port ${node.port} not in sync`;
      }
    }
    return '';
  }

  /** Stops every node by its pid and removes their directories. */
  async stop() {
    await Promise.all(this.nodes.map((n) => n.dispose()));
  }
}
