import { html, type SafeHtml } from './escape.js';

/**
 * The "add job" form (and, prefilled, "duplicate job"): the page script
 * confirms, posts `{ action: 'add', jobName, data }` with the CSRF token, and
 * lists the server's field errors (DTO constraints or JSON errors) under it.
 */
export function addJobForm(label: string, queue: string, jobName = '', data = '{\n  \n}'): SafeHtml {
  const id = label.toLowerCase().replace(/[^a-z]+/g, '-');
  return html`<details class="addjob"><summary>${label}</summary>
<form class="addjob" data-add="1" data-confirm="Add a job named &quot;{name}&quot; to ${queue}?">
<label for="${id}-name">Job name</label><input id="${id}-name" name="jobName" value="${jobName}" required size="24">
<label for="${id}-data">Data (JSON object)</label><textarea id="${id}-data" name="data" rows="6" cols="60" spellcheck="false">${data}</textarea>
<ul class="field-errors" role="alert" hidden></ul>
<button type="submit" class="act">${label}</button>
</form></details>`;
}
