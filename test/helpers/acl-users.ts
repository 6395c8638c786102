import { randomBytes } from 'node:crypto';
import { createClient, type RedisClientOptions } from 'redis';

/** ACL rules of one user, as ACL SETUSER takes them after `reset on >password` (e.g. ['+@all', '-info', '~*', '&*']). */
export type AclRules = readonly string[];

export interface AclUserOptions {
  /**
   * Options of the admin connection that creates the users (the server's
   * default user), merged over `{ url: server.url }`: TLS settings for a
   * `rediss://` server, a password when the default user has one.
   */
  readonly admin?: RedisClientOptions;
}

/**
 * Creates ACL users on a Redis server the test started (ACL SETUSER, each
 * with a fresh password) and returns a URL per user: the server's URL with
 * `user:password@`, so `rediss://` stays TLS. Users are replaced when they
 * exist. Keep the server private to the test file: the users live until it stops.
 *
 * @example
 * const urls = await createAclUsers(server, { noInfo: [...spoolRules(), '-info'] });
 * const store = new RedisStore({ url: urls.noInfo }, { prefix });
 */
export async function createAclUsers<Name extends string>(
  server: { readonly url: string },
  users: Readonly<Record<Name, AclRules>>,
  options: AclUserOptions = {},
): Promise<Record<Name, string>> {
  const admin = createClient({ url: server.url, ...options.admin });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    const urls = {} as Record<Name, string>;
    for (const name of Object.keys(users) as Name[]) {
      const password = randomBytes(12).toString('hex');
      await admin.sendCommand(['ACL', 'SETUSER', name, 'reset', 'on', `>${password}`, ...users[name]]);
      const url = new URL(server.url);
      url.username = name;
      url.password = password;
      urls[name] = url.toString();
    }
    return urls;
  } finally {
    await admin.close();
  }
}

/** Every command, key and channel: the base the tests take commands away from (`[...allRules(), '-info']`). */
export function allRules(): AclRules {
  return ['+@all', '~*', '&*'];
}

/**
 * Every command, but only the keys and channels of one Spool prefix: keys
 * `{prefix:<queue>}:...` (`~{prefix:*`) and channels `prefix:sched`,
 * `prefix:owls`, `prefix:done`, push channels (`&prefix:*`), as a managed
 * Redis shared by several apps would grant.
 */
export function prefixRules(prefix: string): AclRules {
  return ['+@all', `~{${prefix}:*`, `&${prefix}:*`];
}
