import { SpoolBootstrapError } from './errors.js';

/** A class-validator DTO class: job payloads of a name are turned into it and validated. */
export type DtoClass<T extends object = object> = new (...args: never[]) => T;

export type DtoCheck = { readonly ok: true; readonly value: object } | { readonly ok: false; readonly constraints: string[] };

/** What a failed constraint looks like (class-validator's ValidationError), typed here so the types need no peer installed. */
interface ValidationProblem {
  readonly property: string;
  readonly constraints?: Readonly<Record<string, string>>;
  readonly children?: readonly ValidationProblem[];
}

interface DtoPeers {
  readonly plainToInstance: (dto: new () => object, data: object) => object;
  readonly validate: (value: object, options: { readonly forbidUnknownValues: boolean }) => Promise<readonly ValidationProblem[]>;
}

/**
 * class-validator and class-transformer are optional peers, imported on the
 * first DTO only (a dynamic import works from the ESM and CommonJS builds
 * alike): an app that declares no DTO needs neither installed.
 */
let peers: Promise<DtoPeers> | undefined;

/**
 * Loads the DTO peers for a DTO declared at `at` (where the bootstrap error
 * points); a missing one fails with its name and the install command.
 */
export function loadDtoPeers(at: string): Promise<DtoPeers> {
  peers ??= Promise.all([
    import('class-transformer').then((m): DtoPeers['plainToInstance'] => (dto, data) => m.plainToInstance(dto, data), (err: unknown) => missing(err, 'class-transformer')),
    import('class-validator').then((m): DtoPeers['validate'] => (value, options) => m.validate(value, options), (err: unknown) => missing(err, 'class-validator')),
  ]).then(([plainToInstance, validate]) => {
    if (plainToInstance && validate) return { plainToInstance, validate };
    peers = undefined;
    const missing = [validate ? undefined : 'class-validator', plainToInstance ? undefined : 'class-transformer'].filter((p) => p !== undefined);
    throw new SpoolBootstrapError(
      at,
      `declares a payload DTO, which needs the optional peer${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}, not installed`,
      `npm install class-validator class-transformer (or leave the DTO out)`,
    );
  });
  return peers;
}

/** undefined when `name` itself is not installed; any other failure to load it is rethrown as it is. */
function missing(err: unknown, name: string): undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if ((code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && err instanceof Error && err.message.includes(`'${name}'`)) return undefined;
  throw err;
}

/** Turns `data` into an instance of `dto` and validates it; lists every failed constraint as "path: message". */
export async function checkDto(dto: DtoClass, data: unknown): Promise<DtoCheck> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, constraints: [`payload: must be an object shaped like ${dto.name}`] };
  }
  const { plainToInstance, validate } = await loadDtoPeers(`the DTO ${dto.name}`);
  const value = plainToInstance(dto as new () => object, data);
  const errors = await validate(value, { forbidUnknownValues: true });
  if (errors.length === 0) return { ok: true, value };
  const constraints: string[] = [];
  collect(errors, '', constraints);
  return { ok: false, constraints };
}

function collect(errors: readonly ValidationProblem[], prefix: string, out: string[]): void {
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) out.push(`${path}: ${message}`);
    if (error.children?.length) collect(error.children, path, out);
  }
}
