export interface RedisServerOptions {
  /** Persist with AOF, fsync on every write (for restart tests). */
  readonly appendonly?: boolean;
  /** Extra redis-server arguments, e.g. ['--maxmemory', '2mb']. */
  readonly args?: readonly string[];
  readonly port?: number;
}

export declare function assertRedisInstalled(): void;
export declare function freePort(): Promise<number>;
export declare function waitForPing(port: number, timeout?: number): Promise<void>;

export declare class RedisServer {
  static start(options?: RedisServerOptions): Promise<RedisServer>;
  readonly port: number;
  readonly dir: string;
  readonly url: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  /** True between pause() and resume(). */
  readonly paused: boolean;
  /** SIGSTOP: sockets accept, nothing is answered. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  kill(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  dispose(): Promise<void>;
}
