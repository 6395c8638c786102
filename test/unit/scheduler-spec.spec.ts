import { cronTimes, InvalidArgumentError } from '../../lib/index.js';
import { normalizeRepeat } from '../../lib/engine/scheduler-spec.js';

/** The clock is the `after` argument: each case starts from a fixed instant, nothing waits. */
const iso = (times: number[]) => times.map((t) => new Date(t).toISOString());

describe('cron times (croner, computed in JS, stored in Redis)', () => {
  it('keeps 08:00 wall-clock time in Europe/Paris across the spring DST change (UTC+1 -> UTC+2)', () => {
    const repeat = normalizeRepeat({ cron: '0 8 * * *', tz: 'Europe/Paris' });
    expect(iso(cronTimes(repeat, Date.parse('2026-03-27T12:00:00Z'), 3))).toEqual([
      '2026-03-28T07:00:00.000Z',
      '2026-03-29T06:00:00.000Z',
      '2026-03-30T06:00:00.000Z',
    ]);
  });

  it('runs a time skipped by the spring change once, at the first valid minute after it', () => {
    const repeat = normalizeRepeat({ cron: '30 2 * * *', tz: 'Europe/Paris' });
    // 02:30 does not exist on 2026-03-29 in Paris: the tick runs at 03:00 local (01:00Z).
    expect(iso(cronTimes(repeat, Date.parse('2026-03-28T12:00:00Z'), 2))).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
  });

  it('runs a time repeated by the autumn change once', () => {
    const repeat = normalizeRepeat({ cron: '30 2 * * *', tz: 'Europe/Paris' });
    // 02:30 happens twice on 2026-10-25 in Paris (00:30Z and 01:30Z): one tick.
    expect(iso(cronTimes(repeat, Date.parse('2026-10-24T12:00:00Z'), 2))).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('keeps a fixed period on real time through the autumn hour', () => {
    const repeat = normalizeRepeat({ cron: '0 * * * *', tz: 'Europe/Paris' });
    const times = cronTimes(repeat, Date.parse('2026-10-24T23:30:00Z'), 4);
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual([3_600_000, 3_600_000, 3_600_000]);
  });

  it('lists times strictly after the clock, from startAt, up to endAt', () => {
    const repeat = normalizeRepeat({ cron: '0 0 * * *', startAt: Date.parse('2026-05-03T00:00:00Z'), endAt: Date.parse('2026-05-05T00:00:00Z') });
    expect(iso(cronTimes(repeat, Date.parse('2026-01-01T00:00:00Z')))).toEqual([
      '2026-05-03T00:00:00.000Z',
      '2026-05-04T00:00:00.000Z',
      '2026-05-05T00:00:00.000Z',
    ]);
    expect(iso(cronTimes(repeat, Date.parse('2026-05-04T00:00:00Z')))).toEqual(['2026-05-05T00:00:00.000Z']);
  });

  it('computes 50 times ahead by default and none for every-N', () => {
    expect(cronTimes(normalizeRepeat({ cron: '*/5 * * * *' }), 0)).toHaveLength(50);
    expect(cronTimes(normalizeRepeat({ every: 1000 }), 0)).toEqual([]);
  });

  it('names the field of a bad repeat', () => {
    expect(() => normalizeRepeat({ cron: '0 8 * * *', tz: 'Europe/Nowhere' })).toThrow(InvalidArgumentError);
    expect(() => normalizeRepeat({ every: 1000, tz: 'UTC' })).toThrow(expect.objectContaining({ field: 'repeat.tz' }));
    expect(() => normalizeRepeat({ cron: '0 25 * * *' })).toThrow(expect.objectContaining({ field: 'repeat.cron' }));
    expect(() => normalizeRepeat({ every: 1.5 })).toThrow(expect.objectContaining({ field: 'repeat.every' }));
    expect(() => normalizeRepeat({ every: 1000, startAt: 'soon' })).toThrow(expect.objectContaining({ field: 'repeat.startAt' }));
    expect(normalizeRepeat({ every: 1000, startAt: new Date(5000) })).toEqual({ every: 1000, startAt: 5000, missed: 'once' });
  });
});
