import type { Job } from '../../engine/job.js';
import { html, type SafeHtml } from './escape.js';
import { json, time } from './format.js';
import { actionButton } from './layout.js';
import { addJobForm } from './add-job.js';

/** A node of a flow tree; `href` is set when its queue is registered here. */
export interface FlowNode {
  readonly queue: string;
  readonly id: string;
  readonly name?: string;
  readonly state?: string;
  readonly href?: string;
  readonly current: boolean;
  readonly children: readonly FlowNode[];
  /** Children left out (the tree shows at most a bounded number per level). */
  readonly more: number;
}

export interface JobPageModel {
  readonly base: string;
  readonly connection: string;
  readonly queue: string;
  readonly job: Job;
  readonly logs: readonly string[];
  readonly tree: FlowNode | null;
  /** Link to the parent's page when its queue is registered here. */
  readonly parentHref?: string;
  readonly readOnly: boolean;
  readonly now: number;
}

function actions(m: JobPageModel): SafeHtml {
  if (m.readOnly) return html``;
  const { job, queue } = m;
  const what = `job ${job.id} (${job.name}) of ${queue}`;
  const one = { ids: job.id };
  const b: SafeHtml[] = [];
  if (job.state === 'failed') b.push(actionButton('Redrive', `Redrive 1 job: ${what}?`, { action: 'redrive', ...one }));
  if (job.state === 'delayed') b.push(actionButton('Promote (run now)', `Run ${what} now?`, { action: 'promote', ...one }));
  if (['waiting', 'delayed', 'active', 'waiting-children'].includes(job.state)) b.push(actionButton('Cancel', `Cancel 1 job: ${what}?`, { action: 'cancel', ...one }, 'danger'));
  if (['completed', 'failed', 'cancelled'].includes(job.state)) b.push(actionButton('Remove', `Delete 1 job: ${what}? This cannot be undone.`, { action: 'remove', ...one, back: '1' }, 'danger'));
  return html`<div class="jactions">${b}</div>`;
}

function facts(m: JobPageModel): SafeHtml {
  const j = m.job;
  const rows: [string, string | SafeHtml][] = [
    ['State', html`<span class="badge st-${j.state}">${j.state}</span>${j.cancelRequested ? html` <span class="badge warn">cancel requested</span>` : ''}`],
    ['Name', j.name],
    ['Attempt', `${j.attempt} of ${j.maxAttempts}${j.stalled ? ` (stalled ${j.stalled}×)` : ''}`],
    ['Priority', String(j.priority)],
    ['Added', time(j.createdAt, m.now)],
  ];
  if (j.runAt !== undefined && j.state === 'delayed') rows.push(['Runs', time(j.runAt, m.now)]);
  if (j.startedAt !== undefined) rows.push(['Started', time(j.startedAt, m.now)]);
  if (j.finishedAt !== undefined) rows.push(['Finished', time(j.finishedAt, m.now)]);
  if (j.deadline !== undefined) rows.push(['Deadline', time(j.deadline, m.now)]);
  if (j.group !== undefined) rows.push(['Group', j.group]);
  if (j.progress !== undefined) rows.push(['Progress', typeof j.progress === 'number' ? html`<progress max="100" value="${j.progress}"></progress> ${j.progress}%` : json(j.progress)]);
  if (j.corruption) rows.push(['Corrupt', j.corruption]);
  return html`<dl class="facts">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

function block(title: string, body: string, cls = ''): SafeHtml {
  return html`<section><h2>${title}</h2><pre class="${cls}">${body}</pre></section>`;
}

function treeNode(n: FlowNode): SafeHtml {
  const label = html`${n.href && !n.current ? html`<a href="${n.href}">${n.id}</a>` : html`<strong>${n.id}</strong>`} <span class="muted">${n.queue}</span> ${n.name ?? ''} ${n.state ? html`<span class="badge st-${n.state}">${n.state}</span>` : html`<span class="badge muted">gone</span>`}`;
  return html`<li class="${n.current ? 'current' : ''}">${label}${n.children.length || n.more ? html`<ul>${n.children.map(treeNode)}${n.more ? html`<li class="muted">… ${n.more} more</li>` : ''}</ul>` : ''}</li>`;
}

/** One job: what it is, what it carries, what happened to it, and its flow. */
export function jobView(m: JobPageModel): SafeHtml {
  const j = m.job;
  const parent = j.parent;
  return html`<div class="jhead"><h1>Job ${j.id}</h1>${actions(m)}</div>
${facts(m)}
${m.readOnly ? '' : addJobForm('Duplicate job', m.queue, j.name, JSON.stringify(j.data ?? {}, null, 2))}
${j.error ? html`<section class="error"><h2>Error${j.error.reason ? html` <span class="badge bad">${j.error.reason}</span>` : ''}</h2><p class="errmsg">${j.error.code ? `${j.error.code}: ` : ''}${j.error.message}</p>${j.error.stack ? html`<pre class="stack">${j.error.stack}</pre>` : ''}</section>` : ''}
${m.tree ? html`<section class="flow"><h2>Flow</h2>${parent ? html`<p>Parent: ${m.parentHref ? html`<a href="${m.parentHref}">${parent.queue} / ${parent.id}</a>` : `${parent.queue} / ${parent.id}`}</p>` : ''}<ul class="tree">${treeNode(m.tree)}</ul></section>` : ''}
${block('Data', json(j.data), 'data')}
${j.result !== undefined ? block('Result', json(j.result)) : ''}
${block('Options', json(j.opts))}
<section><h2>Logs <span class="muted">(${m.logs.length})</span></h2>${m.logs.length ? html`<pre class="logs">${m.logs.join('\n')}</pre>` : html`<p class="muted">No log lines.</p>`}</section>`;
}
