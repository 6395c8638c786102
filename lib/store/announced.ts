import { parseFinished, parseOwnership, parseSched } from '../notify/messages.js';
import type { Announcement, NotifyAdapter } from '../notify/notify-adapter.js';
import { ReplyShapeError } from './errors.js';
import type { RawReply } from './reply-values.js';

/**
 * The store's half of includes/announce: for a notify adapter that carries
 * messages itself, scripts are called without a sched channel and reply
 * `{notes, reply}`; this returns a function that hands the notes to the
 * adapter and gives the script's own reply to its decoder, so no decoder
 * knows about notes. undefined for adapters the scripts publish for (Redis).
 */
export function noteCarrier(notify: NotifyAdapter): ((script: string, raw: RawReply) => RawReply) | undefined {
  if (!notify.announce) return undefined;
  const announce = notify.announce.bind(notify);
  return (script, raw) => {
    if (!Array.isArray(raw) || !Array.isArray(raw[0])) throw new ReplyShapeError(script, 'expected a {notes, reply} pair (includes/announce)');
    const notes = decodeNotes(raw[0]);
    if (notes.length > 0) announce(notes);
    return raw[1] ?? null;
  };
}

/** Flat triples channel, payload, hints (includes/announce) as typed announcements; unknown ones are skipped. */
export function decodeNotes(flat: readonly RawReply[]): Announcement[] {
  const out: Announcement[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) {
    const channel = flat[i];
    const payload = String(flat[i + 1]);
    if (channel === 'sched') {
      const message = parseSched(payload);
      if (message) out.push({ channel, message, hints: Number(flat[i + 2]) || 0 });
    } else if (channel === 'owls') {
      const message = parseOwnership(payload);
      if (message) out.push({ channel, message });
    } else if (channel === 'done') {
      const message = parseFinished(payload);
      if (message) out.push({ channel, message });
    }
  }
  return out;
}
