import { loadScript } from '../../lib/store/script-loader.js';
import { channels, queueKeys } from '../../lib/store/keys.js';
import { testStore } from '../helpers/store.js';
import { commandOf } from '../helpers/redis-access.js';

/**
 * lua/includes/flow builds the flow key names from the bundle's meta key and
 * the done channel from the sched channel; lib/store/keys.ts builds them from
 * the prefix. Both must agree, or parents and children talk past each other.
 */
describe('flow key names', () => {
  it('are the same in Lua and in keys.ts, and share the queue hash tag', async () => {
    const store = await testStore();
    try {
      const k = queueKeys(store.prefix, 'emails:eu');
      const ch = channels(store.prefix);
      const flow = loadScript('includes/flow').source;
      const script = `${flow}
        local Q = { meta = KEYS[1], sched = ARGV[1] }
        return { spool_waiting_children(Q), spool_outbox(Q), spool_deps(Q, 'j:1'), spool_kid_results(Q, 'j:1'),
                 spool_kid_failures(Q, 'j:1'), string.sub(Q.sched, 1, -6) .. 'done' }`;
      const reply = await commandOf(store, 'test').sendCommand(['EVAL', script, '1', k.meta, ch.sched]);
      expect(reply).toEqual([k.waitingChildren, k.outbox, k.deps('j:1'), k.results('j:1'), k.failures('j:1'), ch.done]);
      for (const key of [k.waitingChildren, k.outbox, k.deps('x')]) expect(key.startsWith(`{${store.prefix}:emails:eu}:`)).toBe(true);
    } finally {
      await store.disconnect();
    }
  });
});
