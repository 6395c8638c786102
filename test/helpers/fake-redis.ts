import { createServer, type Server, type Socket } from 'node:net';

/**
 * A tiny RESP2 server on a loopback port that answers INFO with the text you
 * give, NOPERM to the commands you name and +OK to everything else: enough for node-redis to connect, so the
 * startup checks can be shown a Redis 6 or an evicting server without
 * installing one. Only for the checks that read INFO; behaviour that lives in
 * Redis is tested against the real server.
 */
export class FakeRedis {
  private constructor(private readonly server: Server, private readonly sockets: Set<Socket>, readonly port: number) {}

  /** `refuse`: command lines (upper case, arguments joined by spaces: 'INFO SERVER', 'HELLO') answered with NOPERM, as an ACL that denies them would. */
  static async start(info: (section: string) => string, refuse: readonly string[] = []): Promise<FakeRedis> {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      let buffer = '';
      socket.on('data', (chunk) => {
        buffer += chunk.toString('utf8');
        for (;;) {
          const parsed = parseCommand(buffer);
          if (!parsed) break;
          buffer = buffer.slice(parsed.length);
          const [name = '', section = ''] = parsed.args;
          if (refuse.includes(parsed.args.join(' ').toUpperCase())) {
            socket.write(`-NOPERM this user has no permissions to run the '${name.toLowerCase()}' command\r\n`);
          } else if (name.toUpperCase() === 'INFO') {
            const text = info(section.toLowerCase());
            socket.write(`$${Buffer.byteLength(text)}\r\n${text}\r\n`);
          } else {
            socket.write('+OK\r\n');
          }
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return new FakeRedis(server, sockets, typeof address === 'object' && address ? address.port : 0);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** One RESP array of bulk strings at the start of `buffer`, or null while incomplete. */
function parseCommand(buffer: string): { args: string[]; length: number } | null {
  if (!buffer.startsWith('*')) return null;
  let at = buffer.indexOf('\r\n');
  if (at < 0) return null;
  const count = Number(buffer.slice(1, at));
  at += 2;
  const args: string[] = [];
  for (let i = 0; i < count; i++) {
    const end = buffer.indexOf('\r\n', at);
    if (end < 0) return null;
    const size = Number(buffer.slice(at + 1, end));
    const start = end + 2;
    if (buffer.length < start + size + 2) return null;
    args.push(buffer.slice(start, start + size));
    at = start + size + 2;
  }
  return { args, length: at };
}
