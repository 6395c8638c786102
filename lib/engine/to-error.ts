/**
 * Handlers may throw anything. Whatever it is becomes an Error whose message
 * says what was thrown, so the dead letter is readable and nothing crashes.
 */
export function toError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  let text: string;
  try {
    text = typeof thrown === 'string' ? thrown : JSON.stringify(thrown) ?? String(thrown);
  } catch {
    text = Object.prototype.toString.call(thrown);
  }
  const error = new Error(`handler threw a non-Error value: ${text}`);
  error.name = 'NonErrorThrown';
  return error;
}

/** Class name or `code` of an error, as stored with a failure. */
export function errorCode(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' || typeof code === 'number' ? String(code) : error.name || 'Error';
}
