// fast-check arbitraries of requests that the served OpenAPI document says are valid: bodies, query and path
// parameters generated from its JSON Schemas alone. The service must accept every one of them (no 400, 413, 415...).
// Supports the JSON Schema the document uses: type, properties, required, additionalProperties, items, min/maxItems,
// min/maxLength, pattern, enum, const, minimum/maximum, $ref to components, anyOf, oneOf (alternatives that only
// require properties, merged with the object beside them), not (of required properties) and default.
import fc from 'fast-check';
import type { FuzzRequest } from './fuzz-requests.js';
import { percentEncode } from './fuzz-requests.js';

export type JsonSchema = Readonly<Record<string, unknown>>;

interface Parameter {
  readonly in: string;
  readonly name: string;
  readonly required?: boolean;
  readonly schema: JsonSchema;
}

export interface Operation {
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly required?: boolean; readonly content: Readonly<Record<string, { readonly schema: JsonSchema }>> };
}

export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, JsonSchema>> };
}

/** Strings of every kind: ASCII, any Unicode grapheme, raw UTF-16 units (lone surrogates included), and whitespace only. */
function anyString(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const constraints = { minLength, maxLength: Math.min(maxLength, minLength + 40) };
  return fc.oneof(
    fc.string(constraints),
    fc.string({ ...constraints, unit: 'grapheme' }),
    fc.string({ ...constraints, unit: 'binary' }),
    fc.string({ ...constraints, unit: fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u2028', '\ufeff') }),
  );
}

/** Keys for free-form objects; `__proto__` and `constructor` are left out: the document says such bodies are refused (prototype poisoning). */
const freeKey = fc.string({ maxLength: 12 }).filter((key) => key !== '__proto__' && key !== 'constructor' && key !== 'prototype');

/** Any JSON value, for `{}`: small, and without the keys `freeKey` leaves out. */
const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    anyString(0, 20),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(freeKey, tie('value'), { maxKeys: 3 }),
  ),
})).value;

function resolve(schema: JsonSchema, document: OpenApiDocument): JsonSchema {
  const reference = schema.$ref;
  if (typeof reference !== 'string') return schema;
  const name = reference.replace('#/components/schemas/', '');
  const target = document.components?.schemas?.[name];
  if (target === undefined) throw new Error(`unresolved $ref ${reference}`);
  return resolve(target, document);
}

/** The property names a `not` schema forbids: `{required: [...]}` or `{anyOf: [{required: [...]}, ...]}`. */
function forbiddenCombinations(not: unknown): string[][] {
  const schema = not as { required?: string[]; anyOf?: { required?: string[] }[] } | undefined;
  if (schema === undefined) return [];
  if (schema.required !== undefined) return [schema.required];
  if (schema.anyOf !== undefined) return schema.anyOf.map((alternative) => alternative.required ?? []);
  throw new Error(`unsupported not: ${JSON.stringify(not)}`);
}

function objectArbitrary(schema: JsonSchema, document: OpenApiDocument, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  const forbidden = forbiddenCombinations(schema.not);
  const known = fc.record(
    Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, schemaArbitrary(property, document, depth + 1)])),
    { requiredKeys: required },
  );
  const additional = schema.additionalProperties;
  const extra =
    additional === undefined || additional === false
      ? fc.constant({})
      : fc.dictionary(
          freeKey.filter((key) => !(key in properties)),
          additional === true ? anyJson : schemaArbitrary(additional as JsonSchema, document, depth + 1),
          { maxKeys: 2 },
        );
  return fc
    .tuple(known, extra)
    .map(([declared, more]) => ({ ...more, ...declared }))
    .filter((value) => !forbidden.some((keys) => keys.every((key) => key in value)));
}

/** An object schema beside `oneOf`/`anyOf` alternatives: each alternative merged with it (oneOf: the others' required properties left out). */
function mergedAlternatives(schema: JsonSchema, document: OpenApiDocument): JsonSchema[] | undefined {
  const { oneOf, anyOf, ...base } = schema as { oneOf?: JsonSchema[]; anyOf?: JsonSchema[] } & Record<string, unknown>;
  const alternatives = oneOf ?? anyOf;
  if (alternatives === undefined) return undefined;
  if (base.properties === undefined) return alternatives.map((alternative) => resolve(alternative, document));
  return alternatives.map((alternative, index) => {
    const required = [...((base.required ?? []) as string[]), ...((alternative.required ?? []) as string[])];
    const others =
      oneOf === undefined ? [] : alternatives.filter((_, other) => other !== index).flatMap((other) => (other.required ?? []) as string[]);
    const properties = Object.fromEntries(
      Object.entries(base.properties as Record<string, JsonSchema>).filter(([name]) => !others.includes(name) || required.includes(name)),
    );
    return { ...base, ...alternative, properties, required };
  });
}

/** Values the schema says are valid. */
export function schemaArbitrary(given: JsonSchema, document: OpenApiDocument, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(given, document);
  const alternatives = mergedAlternatives(schema, document);
  if (alternatives !== undefined) return fc.oneof(...alternatives.map((alternative) => schemaArbitrary(alternative, document, depth)));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const type = schema.type;
  if (Array.isArray(type)) return fc.oneof(...type.map((single) => schemaArbitrary({ ...schema, type: single }, document, depth)));
  switch (type) {
    case 'string': {
      const minLength = (schema.minLength as number | undefined) ?? 0;
      const maxLength = (schema.maxLength as number | undefined) ?? 10_000;
      if (typeof schema.pattern === 'string') {
        const pattern = new RegExp(schema.pattern, 'u');
        return fc
          .stringMatching(new RegExp(schema.pattern))
          .filter((text) => text.length >= minLength && text.length <= maxLength && pattern.test(text));
      }
      if (schema.format === 'binary') return anyString(0, 40);
      return anyString(minLength, maxLength);
    }
    case 'integer':
    case 'number': {
      const minimum = (schema.minimum as number | undefined) ?? -1e9;
      const maximum = (schema.maximum as number | undefined) ?? 1e9;
      const small = { min: minimum, max: Math.min(maximum, Math.max(minimum, 0) + 30) };
      if (type === 'integer')
        return fc.oneof(
          fc.integer(small),
          fc.integer({ min: Math.max(minimum, Number.MIN_SAFE_INTEGER), max: Math.min(maximum, Number.MAX_SAFE_INTEGER) }),
        );
      return fc.double({ min: minimum, max: maximum, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minItems = (schema.minItems as number | undefined) ?? 0;
      const maxItems = Math.min((schema.maxItems as number | undefined) ?? 3, minItems + (depth > 2 ? 1 : 3));
      const items = schema.items === undefined ? anyJson : schemaArbitrary(schema.items as JsonSchema, document, depth + 1);
      return fc.array(items, { minLength: minItems, maxLength: maxItems });
    }
    case 'object':
      return objectArbitrary(schema, document, depth);
    case undefined:
      if (schema.properties !== undefined) return objectArbitrary(schema, document, depth);
      return anyJson;
    default:
      throw new Error(`unsupported schema type ${JSON.stringify(type)}`);
  }
}

/** Each generated string under `sources` (URLs, paths, text) through `scrub`, so no request reaches the network. */
function scrubSources(value: unknown, scrub: (text: string) => string, underSources = false): unknown {
  if (typeof value === 'string') return underSources ? scrub(value) : value;
  if (Array.isArray(value)) return value.map((item) => scrubSources(item, scrub, underSources));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = scrubSources(item, scrub, underSources || key === 'sources');
    return copy;
  }
  return value;
}

/** Query parameters; an object parameter is `style: form, explode: true` (the default): its fields are parameters of their own. */
function queryString(values: Readonly<Record<string, unknown>>): string {
  const pairs = Object.entries(values)
    .flatMap(([name, value]) => (typeof value === 'object' && value !== null ? Object.entries(value) : [[name, value] as const]))
    .filter(([, value]) => value !== undefined);
  return pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(String(value))}`).join('&')}`;
}

function parameterValues(parameters: readonly Parameter[], document: OpenApiDocument): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(Object.fromEntries(parameters.map((parameter) => [parameter.name, schemaArbitrary(parameter.schema, document)])), {
    requiredKeys: parameters.filter((parameter) => parameter.required === true).map((parameter) => parameter.name),
  });
}

/**
 * Requests to one operation that its documentation says are valid. With an optional JSON body and query parameters
 * that repeat the body's fields (the fields may come either way, as the operation's description says), a request
 * sends them one way: the body, or the query parameters.
 */
export function operationRequests(
  document: OpenApiDocument,
  path: string,
  method: string,
  scrub: (text: string) => string,
): fc.Arbitrary<FuzzRequest> {
  const operation = document.paths[path]?.[method];
  if (operation === undefined) throw new Error(`no operation ${method} ${path}`);
  const parameters = operation.parameters ?? [];
  const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
  const bodySchema = operation.requestBody?.content['application/json']?.schema;
  const bodyFields = bodySchema === undefined ? [] : Object.keys(resolve(bodySchema, document).properties ?? {});
  const queryParameters = parameters.filter((parameter) => parameter.in === 'query');
  const fieldsOf = (parameter: Parameter) => {
    const schema = resolve(parameter.schema, document);
    return schema.type === 'object' ? Object.keys(schema.properties ?? {}) : [parameter.name];
  };
  const repeatsBody = (parameter: Parameter) => fieldsOf(parameter).some((field) => bodyFields.includes(field));
  const separate = queryParameters.filter((parameter) => !repeatsBody(parameter));
  const overlapping = queryParameters.filter(repeatsBody);
  const bodyRequired = operation.requestBody?.required !== false;

  const body = bodySchema === undefined ? fc.constant(undefined) : schemaArbitrary(bodySchema, document);
  const bodyOrQuery: fc.Arbitrary<{ body: unknown; query: Record<string, unknown> }> =
    overlapping.length > 0 && !bodyRequired
      ? fc.oneof(
          body.map((value) => ({ body: value, query: {} })),
          parameterValues(
            overlapping.map((parameter) => ({ ...parameter, required: true })),
            document,
          ).map((query) => ({ body: undefined, query })),
        )
      : body.map((value) => ({ body: value, query: {} }));

  return fc
    .tuple(parameterValues(pathParameters, document), parameterValues(separate, document), bodyOrQuery)
    .map(([pathValues, query, { body: value, query: moreQuery }]) => {
      const route = path.replace(/\{(\w+)\}/g, (_match, name: string) => percentEncode(String(pathValues[name])));
      const request: FuzzRequest = {
        method: method.toUpperCase(),
        path: `${route}${queryString({ ...query, ...moreQuery })}`,
        headers: value === undefined ? {} : { 'content-type': 'application/json' },
        ...(value === undefined ? {} : { body: JSON.stringify(scrubSources(value, scrub)) }),
      };
      return Object.assign(request, { [fc.toStringMethod]: () => `${request.method} ${request.path} ${request.body ?? ''}` });
    });
}
