import type { AclRole, EventStreamInfo, ServerReport } from '../store/server-report.js';
import type { Store } from '../store/store.js';
import { listQueues } from './list-queues.js';
import { Queue } from './queue.js';

/** ok: fine; warn: worth a look, not failing; problem: fix it (the CLI exits non-zero). */
export type Severity = 'ok' | 'warn' | 'problem';

/** One result of checkDeployment(): what was checked, how it stands, and what to do. */
export interface Finding {
  readonly check: string;
  readonly severity: Severity;
  readonly message: string;
  readonly fix?: string;
}

/** A store checkDeployment() can look into: RedisStore. */
export interface DiagnosableStore extends Store {
  readonly prefix: string;
  serverReport(): Promise<ServerReport>;
  aclCheck(user: string, role: AclRole, queue: string): Promise<string[]>;
  eventStream(queue: string): Promise<EventStreamInfo>;
  shardCount(queue: string): Promise<number | undefined>;
}

/** Options of checkDeployment(). */
export interface DoctorOptions {
  /** ACL user of each role to check (ACL DRYRUN, from this connection's user): { worker: 'jobs-worker' }. */
  readonly aclUsers?: Partial<Record<AclRole, string>>;
  /** Clock skew between Redis and this host that counts as a problem, ms. Default 1,000. */
  readonly maxSkewMs?: number;
  /** Share of maxLen from which an event stream counts as near it. Default 0.9. */
  readonly streamNear?: number;
}

const MB = 1024 * 1024;

function serverFindings(r: ServerReport, maxSkewMs: number): Finding[] {
  const out: Finding[] = [];
  const major = Number(r.version?.split('.')[0]);
  if (r.version === undefined) out.push({ check: 'version', severity: 'warn', message: 'the server did not tell its version', fix: 'Spool needs Redis 7.0 or later: check it by hand' });
  else if (major < 7) out.push({ check: 'version', severity: 'problem', message: `Redis ${r.version}: Spool's scripts need 7.0 or later`, fix: 'upgrade Redis to 7.x' });
  else out.push({ check: 'version', severity: 'ok', message: `Redis ${r.version}${r.mode ? ` (${r.mode})` : ''}` });
  if (r.maxmemoryPolicy === undefined) out.push({ check: 'eviction', severity: 'warn', message: 'cannot read maxmemory-policy (INFO and CONFIG refused)', fix: 'make sure it is noeviction' });
  else if (r.maxmemoryPolicy !== 'noeviction') out.push({ check: 'eviction', severity: 'problem', message: `maxmemory-policy is "${r.maxmemoryPolicy}": under memory pressure Redis may evict job keys and lose jobs`, fix: 'CONFIG SET maxmemory-policy noeviction (and in redis.conf)' });
  else out.push({ check: 'eviction', severity: 'ok', message: 'maxmemory-policy noeviction' });
  if (r.usedMemory !== undefined && r.maxmemory) {
    const share = r.usedMemory / r.maxmemory;
    const text = `${(r.usedMemory / MB).toFixed(1)} MB of maxmemory ${(r.maxmemory / MB).toFixed(1)} MB used (${Math.round(share * 100)}%)`;
    out.push(share >= 0.9 ? { check: 'memory', severity: 'problem', message: text, fix: 'raise maxmemory, or purge finished jobs (spool purge) and set retention (removeOnComplete)' } : { check: 'memory', severity: 'ok', message: text });
  }
  if (r.redisTime !== undefined) {
    // Half the round trip is the uncertainty of the comparison.
    const skew = r.redisTime - r.hostTime;
    const text = `Redis clock ${Math.abs(skew)} ms ${skew >= 0 ? 'ahead of' : 'behind'} this host (round trip ${r.roundTripMs} ms)`;
    out.push(Math.abs(skew) - r.roundTripMs / 2 > maxSkewMs ? { check: 'clock', severity: 'problem', message: text, fix: 'sync both clocks (NTP): delays, rate windows and the dashboard ages mix the two clocks' } : { check: 'clock', severity: 'ok', message: text });
  }
  if (r.cluster) {
    const masters = r.cluster.nodes.filter((n) => n.role === 'master');
    const troubled = r.cluster.nodes.filter((n) => n.trouble.length > 0);
    const bare = masters.filter((m) => !r.cluster!.nodes.some((n) => n.masterId === m.id));
    if (r.cluster.state !== 'ok') out.push({ check: 'cluster', severity: 'problem', message: `cluster_state is ${r.cluster.state}`, fix: 'every slot must be served: CLUSTER INFO / redis-cli --cluster check' });
    for (const n of troubled) out.push({ check: 'cluster', severity: 'problem', message: `node ${n.address} (${n.role}) is flagged ${n.trouble.join(',')}`, fix: 'bring the node back or fail it over' });
    if (bare.length > 0) out.push({ check: 'cluster', severity: 'warn', message: `master${bare.length > 1 ? 's' : ''} ${bare.map((m) => m.address).join(', ')} ha${bare.length > 1 ? 've' : 's'} no replica: losing one loses its jobs`, fix: 'add a replica per master' });
    if (r.cluster.state === 'ok' && troubled.length === 0) out.push({ check: 'cluster', severity: 'ok', message: `${masters.length} masters, ${r.cluster.nodes.length - masters.length} replicas, all slots served` });
  }
  for (const refused of r.refused) out.push({ check: 'access', severity: 'warn', message: `the server refused ${refused}` });
  return out;
}

async function queueFindings(store: DiagnosableStore, name: string, near: number): Promise<Finding[]> {
  const shards = await store.shardCount(name);
  const queue = new Queue(name, { store, shards });
  const [counts, workers, metrics] = await Promise.all([queue.getCounts(), queue.getWorkers(), queue.getMetrics()]);
  const out: Finding[] = [];
  const check = `queue ${name}`;
  if (counts.active > 0 && workers.length === 0) {
    out.push({ check, severity: 'problem', message: `${counts.active} active job(s) and no worker heartbeat in 15 s: stalled until a worker reaps their leases`, fix: `start a worker for "${name}" (its reaper re-delivers them)` });
  } else if (counts.waiting > 0 && workers.length === 0) {
    out.push({ check, severity: 'warn', message: `${counts.waiting} waiting job(s) and no worker`, fix: `start a worker for "${name}", or check that it is not meant to be idle` });
  }
  if (metrics.lastHour.stalled > 0) out.push({ check, severity: 'warn', message: `${metrics.lastHour.stalled} lease(s) expired in the last hour (a worker died, or its event loop was blocked longer than the lock)`, fix: 'look at worker restarts; raise lockDuration for long synchronous handlers' });
  if (shards === undefined) {
    const stream = await store.eventStream(name);
    if (stream.maxLen > 0 && stream.length >= stream.maxLen * near) {
      const span = stream.oldestAt === undefined ? '' : `, the oldest ${Math.round((metrics.at - stream.oldestAt) / 1000)} s old`;
      out.push({ check, severity: 'warn', message: `event stream at ${stream.length} of maxLen ${stream.maxLen} events${span}: a QueueEvents reader away longer than that misses events`, fix: `raise it: queue.configure({ events: { maxLen } })` });
    }
  }
  if (out.length === 0) out.push({ check, severity: 'ok', message: `${counts.waiting} waiting, ${counts.active} active, ${counts.failed} failed; ${workers.length} worker(s)` });
  return out;
}

/**
 * Checks a deployment as `spool doctor` reports it: the server (version,
 * eviction policy, memory, clock skew, cluster layout), the ACL rights of
 * each role's user when given, and every queue under the prefix (stalled
 * work, expired leases, an event stream near its maxLen). Reads only: a
 * bounded number of commands per queue.
 */
export async function checkDeployment(store: DiagnosableStore, options: DoctorOptions = {}): Promise<Finding[]> {
  const report = await store.serverReport();
  const out = serverFindings(report, options.maxSkewMs ?? 1000);
  const queues = await listQueues(store);
  for (const [role, user] of Object.entries(options.aclUsers ?? {}) as [AclRole, string][]) {
    try {
      const refused = await store.aclCheck(user, role, queues[0] ?? 'any-queue');
      out.push(refused.length === 0
        ? { check: `acl ${role}`, severity: 'ok', message: `user "${user}" has what a ${role} needs` }
        : { check: `acl ${role}`, severity: 'problem', message: `user "${user}" may not: ${refused.join('; ')}`, fix: `grant it: ACL SETUSER ${user} ~{${store.prefix}:* &${store.prefix}:* +@read +@write +@scripting +@pubsub` });
    } catch (err) {
      out.push({ check: `acl ${role}`, severity: 'warn', message: `cannot check user "${user}": ${(err as Error).message}`, fix: 'run doctor as a user allowed ACL DRYRUN' });
    }
  }
  for (const name of queues) out.push(...(await queueFindings(store, name, options.streamNear ?? 0.9)));
  return out;
}
