import { InvalidArgumentError } from './errors.js';

/**
 * Queue names end up inside a hash tag `{prefix:name}` and in pub/sub
 * payloads, so braces, whitespace and control characters are refused.
 */
export function validateQueueName(name: unknown, field: string): string {
  if (typeof name !== 'string' || !/^[^{}\s\p{Cc}]{1,128}$/u.test(name)) {
    throw new InvalidArgumentError(
      field,
      `must be 1 to 128 characters without braces, spaces or control characters, got ${JSON.stringify(name)}`,
    );
  }
  return name;
}
