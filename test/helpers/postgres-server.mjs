// A private PostgreSQL server for tests. Plain JavaScript like redis-server.mjs
// (jest's global setup and the TypeScript tests can share it); types are in
// postgres-server.d.mts. It never touches the machine's PostgreSQL on 5432:
// its own cluster is initdb'd into a temp dir and listens on a free loopback
// port and on a unix socket in that dir.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-server.mjs';

const INSTALL_HINT =
  'PostgreSQL server binaries (initdb, postgres) were not found in /usr/lib/postgresql/<version>/bin nor on PATH: ' +
  'install them with "sudo apt-get install -y postgresql" (bash .ci/setup does), or set SPOOL_PG_BIN to their directory';

/** The directory holding initdb and postgres: $SPOOL_PG_BIN, Debian's newest /usr/lib/postgresql/<v>/bin, or PATH. */
export function postgresBinDir() {
  const fromEnv = process.env.SPOOL_PG_BIN;
  if (fromEnv) {
    if (!existsSync(join(fromEnv, 'initdb'))) throw new Error(`SPOOL_PG_BIN=${fromEnv} has no initdb. ${INSTALL_HINT}`);
    return fromEnv;
  }
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return join(root, versions[0], 'bin');
  }
  const probe = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (probe.status === 0 && probe.stdout.trim()) return join(probe.stdout.trim(), '..');
  throw new Error(INSTALL_HINT);
}

/**
 * The OS user the server runs as: the server refuses to run as root, so a
 * root process runs it as `postgres` (Debian's package creates that user);
 * anyone else runs it as themselves.
 */
function serverUser() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (id.status !== 0 || gid.status !== 0) throw new Error(`running as root, and there is no "postgres" OS user to run the server as. ${INSTALL_HINT}`);
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function isReady(bin, port) {
  return new Promise((resolve) => {
    execFile(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-t', '1'], (err) => resolve(!err));
  });
}

/**
 * A PostgreSQL server on a free loopback port, trust auth for user `postgres`,
 * owned by whoever started it: stop(), kill() and restart() only ever signal
 * this server's own pid (the postmaster, started directly with the uid of
 * the `postgres` OS user).
 */
export class PostgresServer {
  #child;
  #options;
  #bin;
  #user;

  constructor(port, options, bin, user) {
    this.port = port;
    this.#options = options;
    this.#bin = bin;
    this.#user = user;
    this.dir = mkdtempSync(join(tmpdir(), 'spool-pg-'));
    if (user.uid !== undefined) chownSync(this.dir, user.uid, user.gid);
  }

  static async start(options = {}) {
    const bin = postgresBinDir();
    const user = serverUser();
    for (let attempt = 0; ; attempt++) {
      const server = new PostgresServer(options.port ?? (await freePort()), options, bin, user);
      try {
        server.#initdb();
        await server.#launch();
        return server;
      } catch (err) {
        await server.#signal('SIGKILL');
        server.#cleanup();
        // Another process may have taken the port between freePort() and the bind.
        if (options.port !== undefined || attempt >= 4) throw err;
      }
    }
  }

  /** postgres://postgres@127.0.0.1:<port>/<database> (trust auth: no password). */
  url(database = 'postgres') {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  get pid() {
    return this.#child?.pid;
  }

  get running() {
    const child = this.#child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  get dataDir() {
    return join(this.dir, 'data');
  }

  #initdb() {
    const args = ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'];
    const run = spawnSync(join(this.#bin, 'initdb'), args, { encoding: 'utf8', ...this.#user, cwd: this.dir });
    if (run.error || run.status !== 0) throw new Error(`initdb failed (${run.status}): ${run.error?.message ?? ''}${run.stderr}`);
  }

  async #launch() {
    const durable = this.#options.durable === true;
    const settings = {
      listen_addresses: '127.0.0.1',
      port: String(this.port),
      unix_socket_directories: this.dir,
      max_connections: String(this.#options.maxConnections ?? 200),
      // Tests throw their data away: no fsync unless a test restarts the server and wants its data back.
      fsync: durable ? 'on' : 'off',
      synchronous_commit: durable ? 'on' : 'off',
      full_page_writes: durable ? 'on' : 'off',
      shared_buffers: '32MB',
      logging_collector: 'off',
      log_min_messages: 'warning',
      ...(this.#options.settings ?? {}),
    };
    const args = ['-D', this.dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
    const child = spawn(join(this.#bin, 'postgres'), args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: this.dir, ...this.#user });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr = (stderr + d.toString()).slice(-4000)));
    this.#child = child;
    const deadline = Date.now() + 30_000;
    while (!(await isReady(this.#bin, this.port))) {
      if (!this.running) throw new Error(`postgres exited with code ${child.exitCode}: ${stderr.trim()}`);
      if (Date.now() > deadline) throw new Error(`postgres on port ${this.port} was not ready within 30 s: ${stderr.trim()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** A new, empty database on this server (one per test keeps tests apart); resolves its URL. */
  async createDatabase(name) {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${JSON.stringify(name)}: lower-case letters, digits and _ only`);
    await new Promise((resolve, reject) => {
      execFile(join(this.#bin, 'psql'), ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qc', `CREATE DATABASE ${name}`], (err, _out, stderr) =>
        err ? reject(new Error(`CREATE DATABASE ${name} failed: ${stderr || err.message}`)) : resolve(),
      );
    });
    return this.url(name);
  }

  /** SIGKILL to the postmaster: a crash (its backends notice and exit; restart() recovers from the WAL). */
  kill() {
    return this.#signal('SIGKILL');
  }

  /** SIGQUIT: immediate shutdown (as `pg_ctl stop -m immediate`), recovery on the next start. */
  stopImmediate() {
    return this.#signal('SIGQUIT');
  }

  /** SIGINT: fast shutdown (as `pg_ctl stop -m fast`: sessions are ended, then a clean checkpoint). */
  stop() {
    return this.#signal('SIGINT');
  }

  /** Starts again on the same port and data directory. */
  async restart() {
    if (this.running) await this.stop();
    await this.#launch();
  }

  /** Stops the server and removes its directory. */
  async dispose() {
    await this.stop();
    this.#cleanup();
  }

  async #signal(signal) {
    const child = this.#child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
    // A postmaster killed with SIGKILL leaves its backends behind for a moment; they exit on their own
    // when they see the postmaster gone, and a restart waits for the old shared memory to be released.
  }

  #cleanup() {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
