import { type Static, type TLiteral, type TSchema, type TSchemaOptions, Type } from 'typebox';
import { HANDLE_PATTERN, PIN_PATTERN } from '../wallet-input.ts';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../limits.ts';

/**
 * A union of the given string literals, typed as that union: `Type.Union(list.map(Type.Literal))`
 * builds the same schema but TypeBox types it `never`.
 */
export function literalUnion<const Values extends readonly string[]>(values: Values, options?: TSchemaOptions) {
  return Type.Union(values.map((value) => Type.Literal(value)) as unknown as [...{ -readonly [K in keyof Values]: TLiteral<Values[K]> }], options);
}

/** The schema or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The error body of every failed call (CONTRACT.md, Errors). */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'A human-readable message' }),
    code: Type.String({ description: 'A stable snake_case code naming the rule that failed; every code, its statuses and what it means are listed in docs/errors.md' }),
    details: Type.Optional(Type.Array(Type.Unknown())),
  },
  { $id: 'ErrorBody', description: 'Error body' },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** Handles are accepted with or without `@`, in any case; the service lower-cases them. */
export const HandleInput = Type.String({ pattern: HANDLE_PATTERN.source, description: 'An @handle: 3 to 30 of a-z, 0-9, _ and .; the @ is optional' });
export const CountryCode = Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2 country code' });
export const CurrencyCode = Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 currency code' });
export const Mode = Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'test (sandbox) or live' });
export type Mode = Static<typeof Mode>;
export const MajorAmount = Type.Number({ description: 'Decimal amount in major units (12.50); at most the currency\'s ISO 4217 decimals, over 0, at most 1e12' });
export const Pin = Type.String({ pattern: PIN_PATTERN.source, description: '4 to 8 digits' });
export const Timestamp = Type.String({ format: 'date-time' });

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

export function ListOf<T extends Parameters<typeof Type.Array>[0]>(item: T) {
  return Type.Object({ data: Type.Array(item), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() });
}

export const Balance = Type.Object({ currency: Type.String(), available: Type.Number({ description: 'Major units' }) });
export const BalanceResponse = Type.Object({ handle: Type.String(), balances: Type.Array(Balance) });
