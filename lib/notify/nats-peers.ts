import type * as NatsTransport from '@nats-io/transport-node';
import type * as NatsKv from '@nats-io/kv';
import { NatsPeerMissingError } from './nats-errors.js';

export type NatsTransportModule = typeof NatsTransport;
export type NatsKvModule = typeof NatsKv;

/**
 * The @nats-io packages are optional peers: imported on first use only (a
 * dynamic import works from the ESM and CommonJS builds alike), so an app
 * that never picks NATS never loads them, nor needs them installed.
 */
let transport: Promise<NatsTransportModule> | undefined;
let kv: Promise<NatsKvModule> | undefined;

export function loadTransport(): Promise<NatsTransportModule> {
  transport ??= import('@nats-io/transport-node').catch((err: unknown) => {
    transport = undefined;
    throw new NatsPeerMissingError('@nats-io/transport-node', err);
  });
  return transport;
}

export function loadKv(): Promise<NatsKvModule> {
  kv ??= import('@nats-io/kv').catch((err: unknown) => {
    kv = undefined;
    throw new NatsPeerMissingError('@nats-io/kv', err);
  });
  return kv;
}
