/**
 * The contract's types, generated from openapi.yaml (scripts/generar-tipos.sh): what api/ answers and what
 * servicios/ accepts are checked against them, so a field the contract lacks fails typecheck.
 */
import type { components, operations } from './openapi';

export type { components, operations, paths, webhooks } from './openapi';

/** A schema of components/schemas, by name. */
export type Esquema<N extends keyof components['schemas']> = components['schemas'][N];

/** The JSON body an operation accepts. */
export type Cuerpo<Op extends keyof operations> =
  NonNullable<operations[Op]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;
