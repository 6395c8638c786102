// Where the add script's time goes: variants of lua/add.lua (text
// replacements) loaded next to the real one in one private Redis, and one
// real 1,000-job add call (captured from Queue.addBulk) replayed through
// each in turn with fresh ids, 40 calls per variant, in alternating order. Prints
// the script's time per job (INFO commandstats) per variant: the
// difference to `add` is what the replaced part costs. The variants break
// the script on purpose; nothing reads what they write.
// Not a test: CI runs nothing here.
// Usage: npm run bench:add-variants [-- '<json [{name, replace: [[from, to], ...]}]>']
import { createClient } from 'redis';
import { BenchRedis } from '../dist-bench/bench/redis-server.js';
import { Queue, RedisStore } from '../dist-bench/lib/index.js';
import { redisAccess } from '../dist-bench/lib/store/redis-access.js';
import { loadScript } from '../dist-bench/lib/store/script-loader.js';

const skip = (code) => `(function() end)(${code}`;
const DEFAULT_VARIANTS = [
  { name: 'add' },
  { name: 'no stream entry', replace: [["spool_events(Q, 'added'", skip("Q, 'added'")]] },
  { name: 'no EXISTS', replace: [["local exists = redis.call('EXISTS', jobKey) == 1", 'local exists = false']] },
  { name: 'no job HSET', replace: [["redis.call('HSET', jobKey, unpack(fields))", 'local _ = fields']] },
  { name: 'no waiting ZADD', replace: [['  zadd(Q.wait, wait)', '  local _ = wait']] },
];
const variants = process.argv[2] ? JSON.parse(process.argv[2]) : DEFAULT_VARIANTS;
const JOBS = 1000;
const CALLS = 40;

const redis = await BenchRedis.start();
const store = new RedisStore({ url: redis.url }, { prefix: 'bench' });
const admin = createClient({ url: redis.url });
try {
  await store.connect();
  await admin.connect();
  // Capture the EVALSHA of one real bulk add.
  const client = redisAccess(store).command('add-variants');
  const send = client.sendCommand.bind(client);
  let captured;
  client.sendCommand = (args, ...rest) => {
    if (args[0] === 'EVALSHA' && captured === undefined && args.length > JOBS) captured = [...args];
    return send(args, ...rest);
  };
  await new Queue('variants', { store }).addBulk(Array.from({ length: JOBS }, (_, i) => ({ name: 'noop', data: { i, g: 0 } })));
  client.sendCommand = send;

  const source = loadScript('add').source;
  const shas = [];
  for (const v of variants) {
    let text = source;
    for (const [from, to] of v.replace ?? []) {
      if (!text.includes(from)) throw new Error(`variant "${v.name}": add.lua has no "${from}"`);
      text = text.split(from).join(to);
    }
    shas.push(String(await admin.sendCommand(['SCRIPT', 'LOAD', text])));
  }
  // EVALSHA sha numkeys keys... then ARGV: sched, owls, queue, n, and 5 per job (the id first).
  const firstId = 3 + Number(captured[2]) + 4;
  const usec = variants.map(() => 0);
  let round = 0;
  for (let call = 0; call < CALLS; call++) {
    // Alternate the order, so no variant always meets the smallest (or largest) index.
    const order = variants.map((_, v) => v);
    if (call % 2 === 1) order.reverse();
    for (const v of order) {
      const command = [...captured];
      command[1] = shas[v];
      for (let j = 0; j < JOBS; j++) command[firstId + j * 5] = `${captured[firstId + j * 5]}-${round}`;
      round += 1;
      await admin.sendCommand(['CONFIG', 'RESETSTAT']);
      await admin.sendCommand(command);
      usec[v] += Number(/cmdstat_evalsha:calls=\d+,usec=(\d+)/.exec(String(await admin.sendCommand(['INFO', 'commandstats'])))[1]);
    }
    // Keep the waiting index within a band of sizes.
    if (call % 10 === 9) await admin.sendCommand(['FLUSHALL']);
  }
  console.log(`add.lua script time per job, ${JOBS}-job calls, ${CALLS} per variant, alternating (node ${process.version}):`);
  variants.forEach((v, i) => console.log(`  ${v.name.padEnd(18)} ${(usec[i] / CALLS / JOBS).toFixed(2)} us`));
} finally {
  await store.disconnect();
  await admin.quit();
  await redis.stop();
}
