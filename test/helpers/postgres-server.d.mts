export interface PostgresServerOptions {
  readonly port?: number;
  /** fsync and synchronous commit on (for restart and crash tests); off by default, tests throw their data away. */
  readonly durable?: boolean;
  /** max_connections (default 200). */
  readonly maxConnections?: number;
  /** Extra server settings, passed as `-c key=value`. */
  readonly settings?: Readonly<Record<string, string>>;
}

/** The directory holding initdb and postgres ($SPOOL_PG_BIN, /usr/lib/postgresql/<newest>/bin, or PATH). */
export declare function postgresBinDir(): string;

export declare class PostgresServer {
  static start(options?: PostgresServerOptions): Promise<PostgresServer>;
  readonly port: number;
  /** The temp dir: data directory and unix socket. */
  readonly dir: string;
  readonly dataDir: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  /** postgres://postgres@127.0.0.1:<port>/<database>. */
  url(database?: string): string;
  /** Creates an empty database and resolves its URL. */
  createDatabase(name: string): Promise<string>;
  kill(): Promise<void>;
  stopImmediate(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  dispose(): Promise<void>;
}
