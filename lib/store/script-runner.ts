import { ErrorReply } from 'redis';
import { ScriptError } from './errors.js';
import type { RedisClientLike } from './redis-client.js';
import type { RawReply } from './replies.js';
import { loadScript, type LoadedScript } from './script-loader.js';
import { SCRIPTS, type ScriptName } from './scripts.js';

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

/** Redis answered with an error, as opposed to the connection failing (those pass through untouched). */
function isErrorReply(err: unknown): boolean {
  return err instanceof ErrorReply;
}

/**
 * Runs the scripts of lua/ by EVALSHA. After SCRIPT FLUSH or a restart the
 * server answers NOSCRIPT; the call is then repeated with EVAL, which also
 * caches the script again, so callers never see it.
 */
export class ScriptRunner {
  private readonly scripts = new Map<ScriptName, LoadedScript>();

  constructor(private readonly client: () => RedisClientLike) {
    for (const name of Object.keys(SCRIPTS) as ScriptName[]) {
      this.scripts.set(name, loadScript(SCRIPTS[name].file));
    }
  }

  async run(name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<RawReply> {
    const script = this.scripts.get(name)!;
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    const client = this.client();
    try {
      return (await client.sendCommand(['EVALSHA', script.sha, ...tail])) as RawReply;
    } catch (err) {
      if (isNoScript(err)) {
        try {
          return (await client.sendCommand(['EVAL', script.source, ...tail])) as RawReply;
        } catch (retryErr) {
          throw isErrorReply(retryErr) ? new ScriptError(name, retryErr) : retryErr;
        }
      }
      throw isErrorReply(err) ? new ScriptError(name, err) : err;
    }
  }
}
