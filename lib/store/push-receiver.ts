import { ErrorReply } from 'redis';
import type { RedisClientLike } from './redis-client.js';

/** Appended by stop() behind any push: the loop takes everything before it, then ends. No push is empty (each is a JSON array). */
const STOP = '';
/** How long stop() waits for the loop to reach its marker (the connection may be down) before it gives up on what is left. */
const STOP_WAIT_MS = 2000;
/** The list's expiry once the marker is in it (a push list lives as long as its lease; the marker's has none). */
const STOP_TTL_S = 60;

/**
 * The worker's end of includes/push: a connection of its own blocked in
 * BLPOP on the worker's push list, handing each message to `take`.
 *
 * Why a blocking pop and not a channel: Redis serves a client blocked on a
 * key right after the script that wrote it, before the script's own reply,
 * so an idle worker reads its job before the producer reads the add's reply
 * (in a process running both, the pushed job's start no longer waits for
 * the add's reply to be decoded and resolved); and a push made while this
 * connection is down stays in the list until it is back, where a published
 * message would be gone.
 */
export class PushReceiver {
  private stopped = false;
  private destroyed = false;
  private readonly loop: Promise<void>;
  private retryMs = 0;

  private constructor(
    private readonly client: RedisClientLike,
    /** The worker's push list (keys.pushList). */
    private readonly key: string,
    /** Runs the push-list commands that are not the blocking pop (the marker of stop()) on the store's command connection. */
    private readonly command: (args: readonly string[]) => Promise<unknown>,
    private readonly take: (message: string) => void,
  ) {
    this.loop = this.run();
  }

  /**
   * Connects and pops once without waiting (what is there already is
   * taken), then starts the loop. undefined when the connection may not
   * BLPOP (an ACL line from before pushes used it: the worker claims
   * instead); `denied` is told why.
   */
  static async open(
    client: RedisClientLike,
    key: string,
    command: (args: readonly string[]) => Promise<unknown>,
    take: (message: string) => void,
    denied: (err: unknown) => void,
  ): Promise<PushReceiver | undefined> {
    // Connection errors surface as rejected pops; the loop retries them.
    client.on('error', () => undefined);
    // Named, so an operator (or a test) can tell this connection in CLIENT LIST.
    client.on('ready', () => {
      client.sendCommand(['CLIENT', 'SETNAME', `spool-push:${key.replace(/[^\w:{}.-]/g, '_')}`]).catch(() => undefined);
    });
    try {
      await client.connect();
      const first = messageOf(await client.sendCommand(['BLPOP', key, '0.001']));
      if (first !== undefined && first !== STOP) take(first);
    } catch (err) {
      client.destroy();
      if (err instanceof ErrorReply && /^NOPERM/.test(err.message)) {
        denied(err);
        return undefined;
      }
      throw err;
    }
    return new PushReceiver(client, key, command, take);
  }

  private async run(): Promise<void> {
    while (!this.destroyed) {
      let reply: unknown;
      try {
        reply = await this.client.sendCommand(['BLPOP', this.key, '0']);
        this.retryMs = 0;
      } catch {
        if (this.destroyed) return;
        // Down (node-redis reconnects on its own): pushes wait in the list meanwhile.
        this.retryMs = Math.min(Math.max(this.retryMs * 2, 25), 1000);
        await new Promise((resolve) => setTimeout(resolve, this.retryMs));
        continue;
      }
      const message = messageOf(reply);
      if (message === STOP && this.stopped) return;
      if (message !== undefined) this.take(message);
    }
  }

  /** Closes the connection at once, taking nothing more (the store disconnects under a running worker). */
  abandon(): void {
    if (this.destroyed) return;
    this.stopped = true;
    this.destroyed = true;
    this.client.destroy();
  }

  /**
   * Takes what is already in the list, then closes the connection. Call it
   * after the worker's name was dropped (push-off), so no add appends after
   * the marker: every push made before that is handed to `take`.
   */
  async stop(): Promise<void> {
    if (this.stopped) return this.loop;
    this.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      await this.command(['RPUSH', this.key, STOP]);
      // A list the marker made (nothing was pushed, or the pushes expired) must not outlive a loop that never pops it.
      await this.command(['EXPIRE', this.key, String(STOP_TTL_S)]);
      await Promise.race([this.loop, new Promise((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))]);
    } catch {
      // Redis unreachable: what is left is leased, and comes back when the leases expire.
    } finally {
      clearTimeout(timer);
      this.destroyed = true;
      this.client.destroy();
      await this.loop;
    }
  }
}

/** BLPOP's [key, value] (or null when it timed out): the value, as a string. */
function messageOf(reply: unknown): string | undefined {
  if (Array.isArray(reply)) return reply[1] === undefined || reply[1] === null ? undefined : String(reply[1]);
  return undefined;
}
