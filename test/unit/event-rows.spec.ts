import { compareEventIds, expandEntries, idBefore, readFrom } from '../../lib/store/event-rows.js';
import { ReplyShapeError } from '../../lib/store/errors.js';
import type { StoredEvent } from '../../lib/store/store.js';

describe('event rows: entries written for several jobs, and their positions', () => {
  it('orders ids by entry, then row; an entry id sorts before its rows', () => {
    expect(compareEventIds('5-1', '5-1#0')).toBe(-1);
    expect(compareEventIds('5-1#2', '5-1#10')).toBe(-1);
    expect(compareEventIds('5-2#0', '5-1#9')).toBe(1);
    expect(compareEventIds('10-0', '9-99')).toBe(1);
    expect(compareEventIds('5-1#3', '5-1#3')).toBe(0);
  });

  it('reads a row position from the id before its entry, and a plain id as it is', () => {
    expect(idBefore('7-3')).toBe('7-2');
    expect(idBefore('7-0')).toBe('6-18446744073709551615');
    expect(readFrom('7-3#1')).toEqual({ from: '7-2', skip: { entry: '7-3', row: 1 } });
    expect(readFrom('7-3')).toEqual({ from: '7-3', skip: undefined });
  });

  it('expands rows with the shared fields, skips delivered rows, marks all but the last', () => {
    const raw: StoredEvent[] = [
      { id: '1-0', fields: { event: 'paused' } },
      { id: '2-0', fields: { event: 'added', state: 'waiting', fields: 'jobId,name', rows: '[["a","x"],["b","y"],["c","z"]]' } },
    ];
    expect(expandEntries(raw, undefined)).toEqual([
      { id: '1-0', fields: { event: 'paused' } },
      { id: '2-0#0', fields: { event: 'added', state: 'waiting', jobId: 'a', name: 'x' }, entryContinues: true },
      { id: '2-0#1', fields: { event: 'added', state: 'waiting', jobId: 'b', name: 'y' }, entryContinues: true },
      { id: '2-0#2', fields: { event: 'added', state: 'waiting', jobId: 'c', name: 'z' } },
    ]);
    expect(expandEntries(raw.slice(1), { entry: '2-0', row: 1 }).map((e) => e.id)).toEqual(['2-0#2']);
    expect(() => expandEntries([{ id: '3-0', fields: { event: 'added', fields: 'jobId,name', rows: '[["a"]]' } }], undefined)).toThrow(ReplyShapeError);
  });
});
