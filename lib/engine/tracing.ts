import type * as OtelApi from '@opentelemetry/api';

/**
 * OpenTelemetry, when the app has `@opentelemetry/api` installed (an optional
 * peer): add() runs in a producer span and stores its context on the job (W3C
 * trace context, as the registered propagator writes it), and the worker runs
 * the handler in a consumer span that continues it. Without the package every
 * hook is a plain call: nothing is loaded, nothing stored.
 *
 * The API is imported once, lazily, by the first add or handler run (a
 * dynamic import works from ESM and CommonJS builds alike); after that every
 * hook reads the cached module synchronously. Its globals (tracer provider,
 * propagator, context manager) live on globalThis, so the copy we load sees
 * what the app's SDK registered. `tracing: false` on a Queue, Worker or
 * FlowProducer (or QueueModule.forRoot) turns the hooks of that object off:
 * no span, no context stored, the API not even loaded by it.
 */
type Api = typeof OtelApi;

let loaded: Api | null | undefined;
let loading: Promise<void> | undefined;

function load(): Promise<void> {
  loading ??= import('@opentelemetry/api').then(
    (api) => {
      loaded = api;
    },
    () => {
      loaded = null;
    },
  );
  return loading;
}

/** The API once loaded; null when absent or not loaded yet. */
function otel(): Api | null {
  return loaded ?? null;
}

const TRACER = 'spool';
const SYSTEM = 'spool';

/** The provider the API falls back to without an SDK: a fresh proxy's delegate is that one module-wide no-op. */
let noopProvider: OtelApi.TracerProvider | undefined;

/**
 * No SDK registered a tracer provider with this copy of the API: every span
 * it made would be inert (see inert), so none is made. Read on every call
 * (an SDK may start or stop at any time), and cheap: the spans it saves
 * cost an add about 10-25 us of node time after an idle pause (the calls
 * run cold). A provider registered through another copy of the API is not
 * recognised here, and goes the whole way.
 */
function noTracerSdk(api: Api): boolean {
  noopProvider ??= new api.ProxyTracerProvider().getDelegate();
  const global = api.trace.getTracerProvider();
  return global instanceof api.ProxyTracerProvider && global.getDelegate() === noopProvider;
}

/** The job fields a consumer span describes. */
export interface TracedJob {
  readonly id: string;
  readonly name: string;
  readonly attempt: number;
  /** The producer's context as stored on the job (JSON of the propagation carrier). */
  readonly traceContext?: string;
}

/** The active context as a carrier to store on a job (JSON), or undefined when there is none to carry (or `traced` is false). */
export function captureTraceContext(traced = true): string | undefined {
  const api = traced ? otel() : null;
  if (!api) return undefined;
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  return carrier.traceparent ? JSON.stringify(carrier) : undefined;
}

/**
 * Runs `send` (the add of `count` jobs) in a producer span, so the context the
 * jobs store is the span's: the consumer spans become its children.
 */
export async function inProducerSpan<T>(queue: string, count: number, send: () => Promise<T>, traced = true): Promise<T> {
  if (!traced) return send();
  if (loaded === undefined) await load();
  const api = otel();
  if (!api || noTracerSdk(api)) return send();
  const attributes: OtelApi.Attributes = {
    'messaging.system': SYSTEM,
    'messaging.destination.name': queue,
    'messaging.operation.type': 'send',
    'messaging.operation.name': 'add',
  };
  if (count !== 1) attributes['messaging.batch.message_count'] = count;
  const active = api.context.active();
  const span = api.trace.getTracer(TRACER).startSpan(`send ${queue}`, { kind: api.SpanKind.PRODUCER, attributes }, active);
  if (inert(api, span, active)) return send();
  return api.context.with(api.trace.setSpan(active, span), () => settle(api, span, send));
}

/**
 * A span nothing records and that carries nothing new: what the API gives
 * without an SDK (its no-op tracer hands back the parent's context, or
 * none). The work then runs outside it, with no context entered and no
 * async wrapper: at c100 with the API installed and no SDK, that was 13% of
 * the bytes node allocated per job (9.6 -> 8.4 KB) and about as much node
 * CPU as `tracing: false` saves. A span an SDK's sampler dropped has a
 * context of its own, and is entered.
 */
function inert(api: Api, span: OtelApi.Span, parent: OtelApi.Context): boolean {
  if (span.isRecording()) return false;
  const own = span.spanContext();
  const inherited = api.trace.getSpanContext(parent);
  if (inherited !== undefined ? own !== inherited : api.isSpanContextValid(own)) return false;
  span.end();
  return true;
}

/** Runs a job's handler in a consumer span continuing the context the job carries (`traced` false: no span). */
export function inConsumerSpan<T>(queue: string, job: TracedJob, run: () => Promise<T> | T, traced = true): Promise<T> | T {
  if (!traced) return run();
  if (loaded === undefined) return load().then(() => inConsumerSpan(queue, job, run));
  const api = otel();
  // Without an SDK and with no context carried, the span would be inert and the handler run as is.
  if (!api || (!job.traceContext && noTracerSdk(api))) return run();
  const parent = job.traceContext ? api.propagation.extract(api.ROOT_CONTEXT, parseCarrier(job.traceContext)) : api.context.active();
  const attributes: OtelApi.Attributes = {
    'messaging.system': SYSTEM,
    'messaging.destination.name': queue,
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.message.id': job.id,
    'spool.job.name': job.name,
    'spool.job.attempt': job.attempt,
  };
  const span = api.trace.getTracer(TRACER).startSpan(`process ${queue}`, { kind: api.SpanKind.CONSUMER, attributes }, parent);
  // Nothing recorded: the handler still runs in the context the job carried (its baggage), when it carried one.
  if (inert(api, span, parent)) return job.traceContext ? api.context.with(parent, run) : run();
  return api.context.with(api.trace.setSpan(parent, span), () => settle(api, span, run));
}

async function settle<T>(api: Api, span: OtelApi.Span, run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    span.recordException(error);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: error.message });
    throw err;
  } finally {
    span.end();
  }
}

/** A stored carrier; anything unreadable continues nothing (a new trace) rather than failing the job. */
function parseCarrier(stored: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(stored);
    if (typeof parsed !== 'object' || parsed === null) return {};
    const carrier: Record<string, string> = {};
    for (const [key, value] of Object.entries(parsed)) if (typeof value === 'string') carrier[key] = value;
    return carrier;
  } catch {
    return {};
  }
}
