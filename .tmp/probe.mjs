import { createClient } from 'redis';
const c = createClient({ url: 'redis://127.0.0.1:1', socket: { reconnectStrategy: (r) => 100, connectTimeout: 1000 }, disableOfflineQueue: true });
let errs = 0;
c.on('error', (e) => { errs++; if (errs < 3) console.log('error event', e.constructor.name, e.message); });
const t = Date.now();
const p = c.connect().then(() => console.log('connected'), (e) => console.log('connect rejected', e.constructor.name, e.message, Date.now() - t));
setTimeout(async () => {
  console.log('isOpen', c.isOpen, 'isReady', c.isReady, 'errs', errs);
  try { await c.sendCommand(['PING']); } catch (e) { console.log('cmd err', e.constructor.name, e.message); }
  c.destroy(); 
  console.log('destroyed');
}, 800);
