/** `raw` parsed, when it is JSON for an object (or an array); undefined for bad JSON or a primitive. */
export function parseJsonObject(raw: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}
