import { InvalidArgumentError as CommanderArgumentError } from 'commander';
import type { JobState } from '../store/store.js';

/** Argument parsers for commander: a bad value is a usage error naming the expected form. */

export const STATES: readonly JobState[] = ['waiting', 'delayed', 'active', 'completed', 'failed', 'cancelled', 'waiting-children'];
export const FINISHED_STATES = ['completed', 'failed', 'cancelled'] as const;
export type Finished = (typeof FINISHED_STATES)[number];

export function state(value: string): JobState {
  const found = STATES.find((s) => s === value);
  if (!found) throw new CommanderArgumentError(`must be one of ${STATES.join(', ')}`);
  return found;
}

export function finishedState(value: string): Finished {
  const found = FINISHED_STATES.find((s) => s === value);
  if (!found) throw new CommanderArgumentError(`must be one of ${FINISHED_STATES.join(', ')} (only finished jobs are purged)`);
  return found;
}

export function positiveInt(max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > max) {
      throw new CommanderArgumentError(`must be a whole number from 1 to ${max.toLocaleString('en-US')}`);
    }
    return n;
  };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A duration like 500ms, 30s, 15m, 12h, 7d, 2w (or a bare number of ms), in ms. */
export function duration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)?$/.exec(value.trim());
  if (!match) throw new CommanderArgumentError('must be a duration like 30s, 15m, 12h or 7d (or a number of ms)');
  return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']!);
}
