import Table from 'cli-table3';
import type { Job } from '../engine/job.js';

/** Human output: plain tables (no colours, so they paste into tickets), numbers grouped, times relative. */

/** No line between rows: a page of jobs stays one screen. */
const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

export function table(head: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const t = new Table({ head: [...head], chars: COMPACT, style: { head: [], border: [] } });
  for (const row of rows) t.push(row.map((cell) => (typeof cell === 'number' ? formatCount(cell) : cell)));
  return t.toString();
}

/** Label / value pairs, one per line. */
export function fields(rows: readonly (readonly [string, string])[]): string {
  const t = new Table({ chars: COMPACT, style: { head: [], border: [] } });
  for (const [label, value] of rows) t.push({ [label]: value });
  return t.toString();
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** "3m ago", "in 2h", "just now". */
export function relativeTime(at: number | undefined, now = Date.now()): string {
  if (at === undefined || !Number.isFinite(at) || at <= 0) return '-';
  const diff = at - now;
  const span = formatDuration(Math.abs(diff));
  if (span === '0s') return 'just now';
  return diff < 0 ? `${span} ago` : `in ${span}`;
}

export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

export function isoTime(at: number | undefined): string {
  return at === undefined || !Number.isFinite(at) || at <= 0 ? '-' : new Date(at).toISOString();
}

/** One line of text at most `max` characters. */
export function clip(text: string, max = 60): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A job as a row of `spool list`: what tells jobs apart at a glance, per state. */
export function jobRow(job: Job): string[] {
  const when =
    job.state === 'delayed' ? relativeTime(job.runAt) : job.finishedAt ? relativeTime(job.finishedAt) : relativeTime(job.startedAt ?? job.createdAt);
  const detail = job.error ? `${job.error.reason ?? 'error'}: ${clip(job.error.message)}` : job.corruption ? `corrupt: ${clip(job.corruption)}` : '';
  return [job.id, job.name, `${job.attempt}/${job.maxAttempts}`, when, detail];
}

export const JOB_HEAD = ['id', 'name', 'attempts', 'when', 'error'];

/** A job as data for --json and export: its public fields (queueName included), as JSON has them. */
export function jobJson(job: Job): Record<string, unknown> {
  return JSON.parse(JSON.stringify(job)) as Record<string, unknown>;
}

export function pretty(value: unknown): string {
  if (value === undefined) return '-';
  return JSON.stringify(value, null, 2) ?? '-';
}
