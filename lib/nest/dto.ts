import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';

/** A class-validator DTO class: job payloads of a name are turned into it and validated. */
export type DtoClass<T extends object = object> = new (...args: never[]) => T;

export type DtoCheck = { readonly ok: true; readonly value: object } | { readonly ok: false; readonly constraints: string[] };

/** Turns `data` into an instance of `dto` and validates it; lists every failed constraint as "path: message". */
export async function checkDto(dto: DtoClass, data: unknown): Promise<DtoCheck> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, constraints: [`payload: must be an object shaped like ${dto.name}`] };
  }
  const value = plainToInstance(dto as new () => object, data);
  const errors = await validate(value, { forbidUnknownValues: true });
  if (errors.length === 0) return { ok: true, value };
  const constraints: string[] = [];
  collect(errors, '', constraints);
  return { ok: false, constraints };
}

function collect(errors: readonly ValidationError[], prefix: string, out: string[]): void {
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) out.push(`${path}: ${message}`);
    if (error.children?.length) collect(error.children, path, out);
  }
}
