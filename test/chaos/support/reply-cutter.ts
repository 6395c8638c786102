import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of Redis that can lose a reply: once armed with a
 * marker (a script's SHA), the connection that sends a command containing it
 * is cut the moment Redis answers, before the answer reaches the client. The
 * command ran in Redis; the client only sees a dropped connection.
 */
export class ReplyCutter {
  private marker: string | undefined;
  private cut: (() => void) | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(targetPort: number): Promise<ReplyCutter> {
    let cutter: ReplyCutter | undefined;
    const server = createServer((client) => cutter!.pipe(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    cutter = new ReplyCutter(server, typeof address === 'object' && address ? address.port : 0);
    return cutter;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Resolves once a reply to a command containing `marker` was dropped. */
  armOn(marker: string): Promise<void> {
    this.marker = marker;
    return new Promise((resolve) => (this.cut = resolve));
  }

  private pipe(client: Socket, targetPort: number): void {
    const upstream = createConnection(targetPort, '127.0.0.1');
    this.sockets.add(client).add(upstream);
    let doomed = false;
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('data', (chunk) => {
      if (this.marker && chunk.includes(this.marker)) {
        this.marker = undefined;
        doomed = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (doomed) {
        close();
        this.cut?.();
        this.cut = undefined;
        return;
      }
      client.write(chunk);
    });
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
