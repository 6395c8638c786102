import type { FinishedMessage, OwnershipMessage, SchedMessage } from './notify-adapter.js';

/**
 * The text form of the three messages, as the Lua scripts write it
 * (includes/announce): Redis subscribers read it off the channel, and the
 * store decodes collected notes with the same functions. null: not ours.
 */
export function parseSched(message: string): SchedMessage | null {
  if (message.startsWith('w:')) return { kind: 'waiting', queue: message.slice(2) };
  if (message.startsWith('d:')) {
    const colon = message.indexOf(':', 2);
    const dueIn = Number(message.slice(2, colon));
    if (colon > 2 && Number.isFinite(dueIn)) return { kind: 'delayed', queue: message.slice(colon + 1), dueIn };
  }
  return null;
}

export function parseFinished(message: string): FinishedMessage | null {
  const [queue, id, state] = message.split('\n');
  if (queue === undefined || id === undefined || state === undefined) return null;
  return { queue, id, state };
}

export function parseOwnership(message: string): OwnershipMessage | null {
  const [kind, queue, id, token] = message.split('\n');
  if ((kind !== 'lost' && kind !== 'cancel') || queue === undefined || id === undefined || token === undefined) return null;
  return { kind, queue, id, token };
}
