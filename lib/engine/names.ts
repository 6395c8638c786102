import { describe } from '../common/validation.js';
import { InvalidArgumentError } from './errors.js';

/**
 * Queue names end up inside a hash tag `{prefix:name}` and in pub/sub
 * payloads, so braces, whitespace and control characters are refused.
 * `usage` shows the call with the name first, for the common slip of
 * passing BullMQ-style `{ name, ... }` options as the first argument.
 */
export function validateQueueName(name: unknown, field: string, usage?: string): string {
  if (typeof name !== 'string' || !/^[^{}\s\p{Cc}]{1,128}$/u.test(name)) {
    const options = typeof name === 'object' && name !== null && !Array.isArray(name);
    const slip = options && usage ? `the queue name is the first argument: ${usage}` : undefined;
    throw new InvalidArgumentError(field, `must be 1 to 128 characters without braces, spaces or control characters, got ${describe(name)}`, slip);
  }
  return name;
}
