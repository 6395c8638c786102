import { decodeHash, decodeJob } from '../../lib/store/replies.js';

describe('reply decoding', () => {
  it('reads a hash from a flat RESP2 list and from a RESP3 map alike', () => {
    const flat = ['name', 'send', 'attempt', '2'];
    expect(decodeHash(flat)).toEqual({ name: 'send', attempt: '2' });
    expect(decodeHash({ name: 'send', attempt: '2' })).toEqual({ name: 'send', attempt: '2' });
  });

  it('decodes a damaged job hash without throwing', () => {
    const job = decodeJob('x', { state: 'bogus', attempt: 'NaN' });
    expect(job).toMatchObject({ id: 'x', state: 'waiting', attempt: 0, name: '', data: 'null' });
  });
});
