/** Small formatters the views share. */

const NUMBER = new Intl.NumberFormat('en-US');

export function count(n: number): string {
  return NUMBER.format(n);
}

/** "3 jobs", "1 job". */
export function jobs(n: number): string {
  return `${count(n)} job${n === 1 ? '' : 's'}`;
}

/** 950 -> "950 ms", 61_000 -> "1 min 1 s", 7_200_000 -> "2 h 0 min". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/** "2026-11-23 20:41:07 UTC (3 min ago)". */
export function time(at: number | undefined, now: number): string {
  if (at === undefined) return '';
  const iso = new Date(at).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const delta = now - at;
  return `${iso} (${delta >= 0 ? `${duration(delta)} ago` : `in ${duration(-delta)}`})`;
}

/** Short relative form for tables: "3 min ago", "in 20 s". */
export function ago(at: number | undefined, now: number): string {
  if (at === undefined) return '';
  const delta = now - at;
  return delta >= 0 ? `${duration(delta)} ago` : `in ${duration(-delta)}`;
}

/** Pretty JSON of a value (undefined -> ''). */
export function json(value: unknown): string {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return String(value);
  }
}
