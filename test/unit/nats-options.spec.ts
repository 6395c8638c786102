import { InvalidArgumentError, NatsNotify, UnknownOptionError } from '../../lib/index.js';
import { decodeNats, encodeNats, hintKey } from '../../lib/notify/nats-options.js';
import type { Announcement } from '../../lib/store/index.js';

/** NatsNotify's options and wire format, without a server (nothing connects in a constructor). */
describe('NatsNotify options and payloads', () => {
  it('refuses bad options with the field and the fix, unknown keys with a did-you-mean', () => {
    expect(() => new NatsNotify({ servers: 'nats://h', kvBuckett: 'x' } as object as { servers: string })).toThrow(UnknownOptionError);
    expect(() => new NatsNotify({ servers: 'nats://h', kvBuckett: 'x' } as object as { servers: string })).toThrow('did you mean "kvBucket"?');
    expect(() => new NatsNotify({ servers: [] })).toThrow(/NatsNotify options\.servers must be a server URL/);
    expect(() => new NatsNotify({ servers: 'nats://h', subjectPrefix: 'a..b' })).toThrow(InvalidArgumentError);
    expect(() => new NatsNotify({ servers: 'nats://h', kvBucket: 'has.dot' })).toThrow(/kvBucket "has\.dot" is not a KV bucket name/);
    expect(() => new NatsNotify({ servers: 'nats://h', connectTimeout: 0 })).toThrow(/connectTimeout must be a whole number/);
  });

  it('round-trips every announcement and ignores foreign payloads', () => {
    const all: Announcement[] = [
      { channel: 'sched', message: { kind: 'waiting', queue: 'q' }, hints: 3 },
      { channel: 'sched', message: { kind: 'delayed', queue: 'q', dueIn: 250 }, hints: 0 },
      { channel: 'owls', message: { kind: 'cancel', queue: 'q', id: 'j1', token: 'w:1' } },
      { channel: 'done', message: { queue: 'q', id: 'j1', state: 'completed' } },
    ];
    for (const a of all) expect(decodeNats(encodeNats(a))).toEqual(a);
    expect(decodeNats('not json')).toBeNull();
    expect(decodeNats('{"channel":"owls","message":{"kind":"lost"}}')).toBeNull();
  });

  it('keys hint counts by prefix and queue, encoding names outside the KV key alphabet', () => {
    expect(hintKey('spool', 'emails')).toBe('spool.hint.emails');
    expect(hintKey('spool', 'emails:eu')).toBe(`spool.hint.=${Buffer.from('emails:eu').toString('base64url')}`);
    expect(hintKey('spool', 'a b')).not.toBe(hintKey('spool', 'a_b'));
  });
});
