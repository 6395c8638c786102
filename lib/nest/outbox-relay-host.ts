import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { SpoolLogger } from '../logger.js';
import { Outbox } from '../outbox/outbox.js';
import { OutboxRelay } from '../outbox/relay.js';
import type { SpoolConnections } from './connections.js';
import { SpoolBootstrapError } from './errors.js';
import type { SpoolOutboxRelayOptions } from './module-options.js';

/**
 * The OutboxRelays of connections configured with `outbox` and
 * `outboxRelay`: started at application bootstrap (the connections are open
 * by then: they open at module init), stopped before shutdown, so a move
 * under way finishes before the connection closes. One relay per Outbox: two
 * connections naming the same outbox (a queue's own prefix makes a twin of
 * its connection) share the relay of the first.
 */
export class SpoolOutboxRelays implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly relays: OutboxRelay[] = [];

  constructor(
    private readonly connections: SpoolConnections,
    private readonly logger: SpoolLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const seen = new Set<unknown>();
    for (const { name, store, spec } of this.connections.specs()) {
      const { outbox, outboxRelay } = spec as { outbox?: unknown; outboxRelay?: boolean | SpoolOutboxRelayOptions };
      if (outboxRelay === undefined || outboxRelay === false || seen.has(outbox)) continue;
      seen.add(outbox);
      if (!(outbox instanceof Outbox)) {
        await this.connections.abandon(
          new SpoolBootstrapError(`connection "${name}".outboxRelay`, 'relays an Outbox of spool/outbox, and this connection\'s outbox is another writer', 'pass new Outbox({ ... }) as outbox, or run your own relay'),
        );
        return;
      }
      const relay = new OutboxRelay({ outbox, store, logger: this.logger, ...(outboxRelay === true ? {} : outboxRelay) });
      try {
        await relay.start();
      } catch (err) {
        await this.beforeApplicationShutdown();
        await this.connections.abandon(err);
      }
      this.relays.push(relay);
      this.logger.log(`connection "${name}": outbox relay started (schema ${outbox.schema})`);
    }
  }

  /** Stops every relay (each waits for its move under way); one failing does not keep the others running. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.relays.splice(0).map((r) => r.stop()));
  }
}
