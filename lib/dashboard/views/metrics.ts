import type { MinuteMetrics, QueueMetrics } from '../../engine/metrics.js';
import { html, type SafeHtml } from './escape.js';
import { count, duration } from './format.js';
import { queueHref } from './layout.js';

/** The metrics page of one queue: the engine's getMetrics(), drawn server side as SVG. */
export interface MetricsPageModel {
  readonly base: string;
  readonly connection: string;
  readonly queue: string;
  readonly metrics: QueueMetrics;
}

interface Series {
  readonly label: string;
  readonly cls: string;
  readonly values: readonly (number | null)[];
}

const W = 640;
const H = 200;
const PAD = { l: 58, r: 12, t: 12, b: 30 };

/** A "nice" upper bound and tick step for an axis reaching `max`. */
function niceScale(max: number, minStep: number): { top: number; step: number } {
  if (max <= 0) return { top: minStep, step: minStep };
  const raw = max / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  // Whole units at least: a tick of 0.5 jobs or 0.5 ms would print twice once rounded.
  const step = Math.max(minStep, [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw)!);
  return { top: Math.ceil(max / step) * step, step };
}

/** Ticks of a time axis fall on round durations (5 s, 1 min, 15 min ...), not on round numbers of ms. */
const TIME_STEPS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 10e3, 15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1800e3, 3600e3, 7200e3, 3 * 3600e3, 6 * 3600e3, 12 * 3600e3, 24 * 3600e3];

export function timeScale(max: number): { top: number; step: number } {
  if (max <= 0) return { top: 1000, step: 250 };
  const step = TIME_STEPS_MS.find((s) => s >= max / 4) ?? Math.ceil(max / 4 / 86_400_000) * 86_400_000;
  return { top: Math.ceil(max / step) * step, step };
}

/** Runs of consecutive known values: a line breaks where a minute has none (no sample), rather than bridging it. */
function runs(points: readonly (string | null)[]): string[][] {
  const out: string[][] = [[]];
  for (const p of points) {
    if (p === null) out.push([]);
    else out[out.length - 1]!.push(p);
  }
  return out.filter((r) => r.length > 0);
}

/**
 * A chart of the last hour, one point per minute: y axis with ticks in the
 * series' unit, x axis in UTC minutes. 'bars' stacks the series (throughput);
 * 'lines' draws each one (durations).
 */
export function minuteChart(
  title: string,
  minutes: readonly MinuteMetrics[],
  series: readonly Series[],
  kind: 'bars' | 'lines',
  unit: (v: number) => string,
  scale: (max: number) => { top: number; step: number } = (max) => niceScale(max, 1),
  note = 'x: minute (UTC), the last one still running',
): SafeHtml {
  const n = Math.max(minutes.length, 1);
  const totals = minutes.map((_, i) => (kind === 'bars' ? series.reduce((s, x) => s + (x.values[i] ?? 0), 0) : Math.max(0, ...series.map((x) => x.values[i] ?? 0))));
  const { top, step } = scale(Math.max(0, ...totals));
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const x = (i: number): number => PAD.l + (i * iw) / n;
  const y = (v: number): number => PAD.t + ih - (v / top) * ih;
  const ticks: SafeHtml[] = [];
  for (let v = 0; v <= top + 1e-9; v += step) {
    ticks.push(html`<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="grid"/><text x="${PAD.l - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${unit(v)}</text>`);
  }
  for (let i = 0; i < minutes.length; i += 10) {
    const label = new Date(minutes[i]!.at).toISOString().slice(11, 16);
    ticks.push(html`<line x1="${x(i).toFixed(1)}" x2="${x(i).toFixed(1)}" y1="${PAD.t + ih}" y2="${PAD.t + ih + 4}" class="axis"/><text x="${x(i).toFixed(1)}" y="${H - 10}" text-anchor="middle">${label}</text>`);
  }
  const bw = iw / n;
  let marks: SafeHtml[];
  if (kind === 'bars') {
    marks = minutes.map((m, i) => {
      let base = 0;
      const rects = series.map((s) => {
        const v = s.values[i] ?? 0;
        const r = html`<rect x="${(x(i) + 0.5).toFixed(1)}" y="${y(base + v).toFixed(1)}" width="${Math.max(bw - 1, 0.5).toFixed(1)}" height="${(y(base) - y(base + v)).toFixed(1)}" class="${s.cls}"/>`;
        base += v;
        return r;
      });
      return html`<g><title>${new Date(m.at).toISOString().slice(11, 16)} UTC: ${series.map((s) => `${count(s.values[i] ?? 0)} ${s.label}`).join(', ')}</title>${rects}</g>`;
    });
  } else {
    marks = series.map((s) => {
      const pts = s.values.map((v, i) => (v === null ? null : `${(x(i) + bw / 2).toFixed(1)},${y(v).toFixed(1)}`));
      return html`${runs(pts).map((run) => html`<polyline points="${run.join(' ')}" class="line ${s.cls}"/>`)}${pts.map((p, i) => (p === null ? '' : html`<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="2" class="${s.cls}"><title>${new Date(minutes[i]!.at).toISOString().slice(11, 16)} UTC: ${s.label} ${unit(s.values[i]!)}</title></circle>`))}`;
    });
  }
  const legend = series.map((s) => html`<span class="key ${s.cls}">${s.label}</span>`);
  return html`<figure class="mchart"><figcaption>${title} ${legend}</figcaption><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${title}">${ticks}<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${PAD.t + ih}" y2="${PAD.t + ih}" class="axis"/>${marks}</svg><p class="muted small">${note}</p></figure>`;
}

function figure(label: string, value: string, hint: string): SafeHtml {
  return html`<div class="figure"><span class="muted">${label}</span><b>${value}</b><span class="muted small">${hint}</span></div>`;
}

export function metricsView(m: MetricsPageModel): SafeHtml {
  const x = m.metrics;
  const h = x.lastHour;
  const ms = (v: number): string => duration(v);
  const perMin = (v: number): string => `${count(v)}/min`;
  const pick = (f: (mm: MinuteMetrics) => number | null): (number | null)[] => x.minutes.map(f);
  return html`<div class="qhead"><h1>${m.queue}: metrics</h1><a href="${queueHref(m.base, m.connection, m.queue)}">← jobs</a></div>
<div class="figures">
${figure('Oldest waiting', x.oldestWaitingMs > 0 ? duration(x.oldestWaitingMs) : '–', 'age of the longest-waiting ready job, now')}
${figure('Delayed lag', x.delayedLagMs > 0 ? duration(x.delayedLagMs) : '–', 'how late the earliest due delayed job is, now')}
${figure('Completed /h', count(h.completed), 'jobs completed in the last 60 minutes')}
${figure('Failed attempts /h', count(h.failed), `${count(h.retried)} retried, ${count(h.deadLettered)} dead-lettered (jobs)`)}
${figure('Stalled /h', count(h.stalled), 'leases that expired and were reaped')}
${figure('Handler p50 / p99', h.duration ? `${ms(h.duration.p50Ms)} / ${ms(h.duration.p99Ms)}` : '–', h.duration ? `${count(h.duration.count)} measured, within a factor of 2` : 'no measured job')}
</div>
<div class="mcharts">
${minuteChart('Throughput per minute', x.minutes, [{ label: 'completed', cls: 'ok', values: pick((mm) => mm.completed) }, { label: 'failed attempts', cls: 'bad', values: pick((mm) => mm.failed) }], 'bars', perMin)}
${minuteChart('Handler duration per minute', x.minutes, [
  { label: 'p50', cls: 'p50', values: pick((mm) => mm.duration?.p50Ms ?? null) },
  { label: 'p90', cls: 'p90', values: pick((mm) => mm.duration?.p90Ms ?? null) },
  { label: 'p99', cls: 'p99', values: pick((mm) => mm.duration?.p99Ms ?? null) },
], 'lines', ms)}
${minuteChart('Oldest waiting age per minute', x.minutes, [{ label: 'oldest waiting job\'s age', cls: 'age', values: pick((mm) => mm.oldestWaitingMs) }], 'lines', ms, timeScale, SAMPLED)}
${minuteChart('Delayed lag per minute', x.minutes, [{ label: 'earliest due delayed job, past its run-at', cls: 'lag', values: pick((mm) => mm.delayedLagMs) }], 'lines', ms, timeScale, SAMPLED)}
</div>`;
}

/** What the two gauge charts show, and why a minute may have no point. */
const SAMPLED = 'x: minute (UTC); one sample a minute, taken by a running worker\'s heartbeat: no point where no worker ran';
