import { ErrorReply } from 'redis';
import { CommandTimeoutError, RedisOutOfMemoryError, RedisUnavailableError, ScriptError } from './errors.js';
import type { RedisClientLike } from './redis-client.js';
import { sendServed, type Served } from './cluster-client.js';
import type { RawReply } from './reply-values.js';
import { loadScript, type LoadedScript } from './script-loader.js';
import { SCRIPTS, type ScriptName } from './scripts.js';
import type { ReplicaWait } from './replication.js';

/**
 * Replies that mean "not executed, ask again soon": the server is loading its
 * AOF after a restart (LOADING), another script runs past busy-script-time
 * (BUSY), a cluster slot moves (TRYAGAIN), a replica lost its master
 * (MASTERDOWN), a cluster is between a master's death and its replica's
 * promotion (CLUSTERDOWN). Repeating is safe for every script, since none of it ran.
 */
const TRANSIENT = /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|CLUSTERDOWN)\b/;

export interface ScriptRunnerOptions {
  /** How long transient refusals (LOADING, BUSY, ...) are retried before the call fails. Default 10,000 ms. */
  readonly transientRetryMs?: number;
  /** durability 'replicated': WAIT for a replica after the writes a caller is acknowledged for. */
  readonly replicaWait?: ReplicaWait;
}

/**
 * Runs the scripts of lua/ by EVALSHA. After SCRIPT FLUSH or a restart the
 * server answers NOSCRIPT; the call is then repeated with EVAL, which also
 * caches the script again, so callers never see it. Transient refusals are
 * retried with a short backoff; errors are typed: RedisUnavailableError for
 * the connection, RedisOutOfMemoryError for OOM, ScriptError for the rest.
 */
export class ScriptRunner {
  private readonly scripts = new Map<ScriptName, LoadedScript>();
  private readonly transientRetryMs: number;
  private readonly replicaWait: ReplicaWait | undefined;

  constructor(private readonly client: () => RedisClientLike, options: ScriptRunnerOptions = {}) {
    for (const name of Object.keys(SCRIPTS) as ScriptName[]) {
      this.scripts.set(name, loadScript(SCRIPTS[name].file));
    }
    this.transientRetryMs = options.transientRetryMs ?? 10_000;
    this.replicaWait = options.replicaWait;
  }

  /**
   * Caches every script on the server (SCRIPT LOAD, pipelined), so a burst
   * of first calls does not each fall back to sending its whole source with
   * EVAL. Best effort: a script the server lost is still reloaded on NOSCRIPT.
   */
  async preload(client: RedisClientLike): Promise<void> {
    await Promise.all([...this.scripts.values()].map((script) => client.sendCommand(['SCRIPT', 'LOAD', script.source])));
  }

  /** The script includes includes/announce (see LoadedScript.announces). */
  announces(name: ScriptName): boolean {
    return this.scripts.get(name)!.announces;
  }

  /** `extraKeys` follow `keys` (the per-job keys of add, extend, ...). */
  async run(name: ScriptName, keys: readonly string[], args: readonly (string | number)[], extraKeys: readonly string[] = []): Promise<RawReply> {
    const script = this.scripts.get(name)!;
    // One array for the whole command: this runs once per job, so no intermediate copies.
    const command: string[] = ['EVALSHA', script.sha, String(keys.length + extraKeys.length)];
    for (const key of keys) command.push(key);
    for (const key of extraKeys) command.push(key);
    for (const arg of args) command.push(typeof arg === 'string' ? arg : String(arg));
    const giveUpAt = Date.now() + this.transientRetryMs;
    let useEval = false;
    for (let attempt = 0; ; attempt++) {
      // Outside the try: a store that is not connected says so (StoreNotConnectedError), it is not Redis being unreachable.
      const client = this.client();
      let served: Served;
      try {
        served = await sendServed(client, command);
      } catch (err) {
        if (err instanceof CommandTimeoutError) throw err.about(`script ${name}`);
        if (!(err instanceof ErrorReply)) throw new RedisUnavailableError(`script ${name}`, err);
        const message = err.message;
        if (!useEval && message.startsWith('NOSCRIPT')) {
          useEval = true;
          command[0] = 'EVAL';
          command[1] = script.source;
          continue;
        }
        if (TRANSIENT.test(message) && Date.now() < giveUpAt) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(25 * 2 ** Math.min(attempt, 5), 500)));
          continue;
        }
        if (/^OOM\b/.test(message)) throw new RedisOutOfMemoryError(name, err);
        throw new ScriptError(name, err);
      }
      // Outside the try: a replication shortfall is not a script error. WAIT goes to the node that ran the script.
      if (this.replicaWait?.covers(name)) await this.replicaWait.after(name, served.connection);
      return served.reply as RawReply;
    }
  }
}
