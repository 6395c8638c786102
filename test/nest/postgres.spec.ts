import 'reflect-metadata';
import { Inject, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import pg from 'pg';
import { InjectQueue, OnJob, Processor, QueueModule, SpoolBootstrapError, getConnectionToken, type ActiveJob, type Queue } from '../../lib/index.js';
import { PostgresStore } from '../../lib/postgres/index.js';
import { uniqueSchema, usePostgresServer } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness } from './nest-harness.js';

/** The app's own node-postgres pool, as a Nest provider. */
const PG_POOL = Symbol('PG_POOL');

@Injectable()
class Sent {
  readonly orders: number[] = [];
}

@Processor('order-mail')
class MailProcessor {
  constructor(private readonly sent: Sent) {}

  @OnJob('confirm')
  async confirm(job: ActiveJob<{ order: number }>): Promise<void> {
    this.sent.orders.push(job.data.order);
  }
}

/** The service the docs show: the order row and its email job in one transaction. */
@Injectable()
class OrderService {
  constructor(
    @Inject(PG_POOL) private readonly pool: pg.Pool,
    @InjectQueue('order-mail') private readonly mail: Queue<{ order: number }>,
  ) {}

  async place(item: string, fail: boolean): Promise<number> {
    const tx = await this.pool.connect();
    try {
      await tx.query('BEGIN');
      const { rows } = await tx.query<{ id: number }>(`INSERT INTO ${schemaOf(this.pool)}.orders (item) VALUES ($1) RETURNING id`, [item]);
      await this.mail.add('confirm', { order: rows[0]!.id }, { tx });
      if (fail) throw new Error('payment declined');
      await tx.query('COMMIT');
      return rows[0]!.id;
    } catch (err) {
      await tx.query('ROLLBACK');
      throw err;
    } finally {
      tx.release();
    }
  }
}

const schemas = new WeakMap<pg.Pool, string>();
const schemaOf = (pool: pg.Pool): string => schemas.get(pool)!;

describe('QueueModule.forRoot({ connection: { postgres } })', () => {
  const server = usePostgresServer();
  const nest = nestHarness();

  it('runs processors on a PostgresStore, and an order service enqueues in its own transaction ({ pool })', async () => {
    const schema = uniqueSchema('nest');
    const pool = new pg.Pool({ connectionString: server().url(), max: 5 });
    schemas.set(pool, schema);
    const app = await nest.app({
      imports: [QueueModule.forRoot({ connection: { postgres: { pool, schema, migrate: true } } }), QueueModule.registerQueue('order-mail')],
      providers: [Sent, MailProcessor, OrderService, { provide: PG_POOL, useValue: pool }],
    });
    try {
      expect(app.get(getConnectionToken())).toBeInstanceOf(PostgresStore);
      await pool.query(`CREATE TABLE ${schema}.orders (id serial PRIMARY KEY, item text NOT NULL)`);
      const orders = app.get(OrderService);
      const kept = await orders.place('book', false);
      await expect(orders.place('lamp', true)).rejects.toThrow('payment declined');
      const after = await orders.place('pen', false);
      await waitFor(() => app.get(Sent).orders.includes(after), { message: 'the second committed order to be confirmed' });
      await waitFor(() => app.get(Sent).orders.length >= 2, { message: 'both committed orders to be confirmed' });
      expect(app.get(Sent).orders.sort()).toEqual([kept, after].sort());
      const { rows } = await pool.query(`SELECT item FROM ${schema}.orders ORDER BY id`);
      expect(rows.map((r: { item: string }) => r.item)).toEqual(['book', 'pen']);
    } finally {
      await nest.close(app);
      // The pool is the app's: the module leaves it open.
      expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
      await pool.end();
    }
  });

  it('takes { connectionString } too, and refuses Redis settings or both ways at once at bootstrap', async () => {
    const schema = uniqueSchema('nest');
    const app = await nest.app({ imports: [QueueModule.forRoot({ connection: { postgres: { connectionString: server().url(), schema, migrate: true } } })] });
    expect(app.get(getConnectionToken())).toBeInstanceOf(PostgresStore);
    await nest.close(app);
    const mixed = await Test.createTestingModule({ imports: [QueueModule.forRoot({ connection: { postgres: { connectionString: server().url() }, prefix: 'x' } })] })
      .compile()
      .catch((e: unknown) => e);
    expect(mixed).toBeInstanceOf(SpoolBootstrapError);
    expect((mixed as Error).message).toMatch(/connection\.prefix is a Redis setting/);
    const typo = await Test.createTestingModule({ imports: [QueueModule.forRoot({ connection: { postgres: { connectionString: server().url(), migrat: true } as never } })] })
      .compile()
      .catch((e: unknown) => e);
    expect((typo as Error).message).toMatch(/postgres\.migrat.*did you mean "migrate"/);
  });
});
