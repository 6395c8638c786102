import { ReplyShapeError } from '../../lib/store/errors.js';
import { decodeAdd, decodeCounts, decodeHash, decodeJob, decodeWatch } from '../../lib/store/replies.js';
import { decodeChildDone } from '../../lib/store/flow-replies.js';
import { decodeLimits } from '../../lib/store/limit-replies.js';

describe('reply decoding', () => {
  it('reads a hash from a flat RESP2 list and from a RESP3 map alike', () => {
    const flat = ['name', 'send', 'attempt', '2'];
    expect(decodeHash(flat)).toEqual({ name: 'send', attempt: '2' });
    expect(decodeHash({ name: 'send', attempt: '2' })).toEqual({ name: 'send', attempt: '2' });
  });

  it('decodes a job hash with damaged numbers, reading them as defaults', () => {
    const job = decodeJob('x', { state: 'failed', attempt: 'NaN' });
    expect(job).toMatchObject({ id: 'x', state: 'failed', attempt: 0, name: '', data: 'null' });
  });

  it('refuses an unknown or missing state instead of guessing one', () => {
    expect(() => decodeJob('x', { state: 'bogus' })).toThrow(ReplyShapeError);
    expect(() => decodeJob('x', { name: 'send' })).toThrow(/unknown job state ""/);
    expect(() => decodeWatch('bogus')).toThrow(ReplyShapeError);
    expect(() => decodeChildDone([1, 'bogus'])).toThrow(ReplyShapeError);
  });

  it('decodes the small replies by shape', () => {
    expect(decodeWatch(null)).toBeNull();
    expect(decodeWatch('delayed')).toBe('delayed');
    expect(decodeChildDone([0, ''])).toEqual({ parentState: null });
    expect(decodeChildDone([1, 'removed'])).toEqual({ parentState: null });
    expect(decodeChildDone([1, 'waiting'])).toEqual({ parentState: 'waiting' });
    expect(decodeCounts([1, 2, 3, 4, 5, 6, 7, 8])).toEqual({ waiting: 1, paused: 2, delayed: 3, active: 4, completed: 5, failed: 6, cancelled: 7, 'waiting-children': 8 });
    expect(() => decodeCounts([1, 2])).toThrow(/expected 8 counts/);
    expect(decodeLimits(['10,1000', null, '', '5', null])).toEqual({ rateLimit: { max: 10, duration: 1000 }, concurrency: null, groupConcurrency: null, groupRateLimit: null, maxWaiting: 5, maxWaitingPerGroup: null });
    // meta gc, the global concurrency cap, is the seventh field (after ev).
    expect(decodeLimits([null, null, null, null, null, null, '4'])).toMatchObject({ concurrency: 4 });
  });

  it('decodes the compact add reply: an integer per created job, the known job for a duplicate, a refusal whole', () => {
    const reply = [1000, 0, 6000, ['b', 'name', 'send', 'data', '1', 'createdAt', '900', 'state', 'waiting'], ['gone']];
    const out = decodeAdd(reply, ['a', 'd', 'x', 'y']);
    expect(out).toEqual({
      status: 'added',
      jobs: [
        { created: true, id: 'a', state: 'waiting', createdAt: 1000, runAt: 1000 },
        { created: true, id: 'd', state: 'delayed', createdAt: 1000, runAt: 6000 },
        { created: false, id: 'b', existing: expect.objectContaining({ id: 'b', name: 'send', state: 'waiting', createdAt: 900 }) },
        { created: false, id: 'gone', existing: null },
      ],
    });
    expect(decodeAdd([-1, 5, ''], ['a'])).toEqual({ status: 'full', limit: 5 });
    expect(decodeAdd([-1, 2, 'g1'], ['a'])).toEqual({ status: 'full', limit: 2, group: 'g1' });
    // One entry missing: a reply of another script version, refused rather than mis-assigned.
    expect(() => decodeAdd([1000, 0], ['a', 'b'])).toThrow(/expected 2 job entries, got 1/);
  });
});
