/**
 * Turns the generated document into one that client generators read well. zod-to-openapi writes a named schema
 * (`components.schemas`) out in full wherever it is nested inside another, so a Location would be copied into every
 * list and event, and each generator would make a type per copy. This pass replaces every copy of a named schema by
 * a `$ref` to it, and states the unions that a field decides as discriminated unions.
 *
 * A copy is found by shape, not by zod identity: a subschema is replaced only when it is exactly the named schema
 * (annotations aside), so a reference never changes what the document accepts. A schema becomes a component by being
 * named in SCHEMAS (operations/schemas.ts); nothing else needs to know.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const SCHEMA_REF = '#/components/schemas/';

/** Keywords that only annotate a schema: a copy that differs from a named schema in these alone is still that schema. */
const ANNOTATIONS = new Set(['description', 'example', 'examples', 'title']);

/** Keywords whose values are data, not schemas: never searched for copies. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'enum', 'const', 'default', 'discriminator']);

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const refName = (node: JsonObject): string | undefined =>
  typeof node['$ref'] === 'string' && node['$ref'].startsWith(SCHEMA_REF)
    ? node['$ref'].slice(SCHEMA_REF.length)
    : undefined;

/** A deep copy with every schema reference replaced by the schema it names (annotations beside a `$ref` win). */
function expand(node: Json, schemas: JsonObject, trail: string[] = []): Json {
  if (Array.isArray(node)) return node.map((item) => expand(item, schemas, trail));
  if (!isObject(node)) return node;
  const name = refName(node);
  if (name !== undefined) {
    if (trail.includes(name)) throw new Error(`schema ${[...trail, name].join(' → ')} refers to itself`);
    const target = schemas[name];
    if (target === undefined) throw new Error(`$ref to a schema that does not exist: ${name}`);
    const { $ref: _ref, ...siblings } = node;
    return {
      ...(expand(target, schemas, [...trail, name]) as JsonObject),
      ...(expand(siblings, schemas, trail) as JsonObject),
    };
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, DATA_KEYWORDS.has(key) ? value : expand(value, schemas, trail)]),
  );
}

/** A key-order-independent text of a schema without its top-level annotations: equal texts, equal schemas. */
function shapeOf(node: JsonObject): string {
  const sorted = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(sorted);
    if (!isObject(value)) return value;
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sorted(value[key]!)]),
    );
  };
  const bare = Object.fromEntries(Object.entries(node).filter(([key]) => !ANNOTATIONS.has(key)));
  return JSON.stringify(sorted(bare));
}

/**
 * Replaces every copy of a named schema inside `node` by a reference; `self` is the schema's own name at a
 * component's root, which is not a copy of itself. A copy's own description, where it differs, stays beside the
 * `$ref` (OpenAPI 3.1 allows it).
 */
function reference(node: Json, names: Map<string, string>, schemas: JsonObject, self?: string): Json {
  if (Array.isArray(node)) return node.map((item) => reference(item, names, schemas));
  if (!isObject(node)) return node;
  const name = self === undefined ? names.get(shapeOf(node)) : undefined;
  if (name !== undefined) {
    const description = node['description'];
    const own = schemas[name] as JsonObject;
    return description === undefined || description === own['description']
      ? { $ref: SCHEMA_REF + name }
      : { $ref: SCHEMA_REF + name, description };
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      DATA_KEYWORDS.has(key) ? value : reference(value, names, schemas),
    ]),
  );
}

/** The one value a property allows (`enum` of one value, or `const`), if it allows only one. */
function singleValue(property: Json | undefined): string | undefined {
  if (!isObject(property)) return undefined;
  if (typeof property['const'] === 'string') return property['const'];
  const values = property['enum'];
  return Array.isArray(values) && values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
}

/**
 * The discriminator of a union of references to object schemas: the first property that every option requires with
 * one value of its own, the values all different. Undefined when the options are not all such references.
 */
export function discriminatorOf(
  options: Json[],
  schemas: JsonObject,
): { propertyName: string; mapping: Record<string, string> } | undefined {
  const targets = options.map((option) => {
    const name = isObject(option) ? refName(option) : undefined;
    const schema = name === undefined ? undefined : schemas[name];
    return name !== undefined && isObject(schema) && schema['type'] === 'object' ? { name, schema } : undefined;
  });
  if (targets.length < 2 || targets.some((target) => target === undefined)) return undefined;
  const named = targets as { name: string; schema: JsonObject }[];
  const firstProperties = named[0]!.schema['properties'];
  const candidates = Object.keys(isObject(firstProperties) ? firstProperties : {});
  for (const propertyName of candidates) {
    const values = named.map(({ schema }) => {
      const required = schema['required'];
      const properties = schema['properties'];
      return Array.isArray(required) && required.includes(propertyName) && isObject(properties)
        ? singleValue(properties[propertyName])
        : undefined;
    });
    if (values.every((value) => value !== undefined) && new Set(values).size === values.length) {
      const mapping = Object.fromEntries(values.map((value, index) => [value, SCHEMA_REF + named[index]!.name]));
      return { propertyName, mapping };
    }
  }
  return undefined;
}

/** Adds `discriminator` to every union that a field decides, and states such an `anyOf` as the `oneOf` it is. */
function discriminate(node: Json, schemas: JsonObject): Json {
  if (Array.isArray(node)) return node.map((item) => discriminate(item, schemas));
  if (!isObject(node)) return node;
  const result = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, DATA_KEYWORDS.has(key) ? value : discriminate(value, schemas)]),
  );
  const union = Array.isArray(result['oneOf']) ? 'oneOf' : Array.isArray(result['anyOf']) ? 'anyOf' : undefined;
  if (union === undefined) return result;
  const discriminator = discriminatorOf(result[union] as Json[], schemas);
  if (discriminator === undefined) return result;
  const { [union]: options, ...rest } = result;
  return { ...rest, oneOf: options!, discriminator };
}

/**
 * The document with each copy of a named schema replaced by a reference to it, and its discriminated unions stated.
 * Throws when two named schemas have the same shape: a copy could not tell which one it is.
 */
export function withSchemaReferences<T extends object>(document: T): T {
  const doc = document as unknown as JsonObject;
  const components = doc['components'];
  const original = isObject(components) && isObject(components['schemas']) ? components['schemas'] : {};
  const expanded = expand(doc, original) as JsonObject;
  const schemas = (expanded['components'] as JsonObject)['schemas'] as JsonObject;
  const names = new Map<string, string>();
  for (const [name, schema] of Object.entries(schemas)) {
    const shape = shapeOf(schema as JsonObject);
    const other = names.get(shape);
    if (other !== undefined) throw new Error(`the named schemas ${other} and ${name} have the same shape`);
    names.set(shape, name);
  }
  const referenced = Object.fromEntries(
    Object.entries(expanded).map(([key, value]) => {
      if (key !== 'components' || !isObject(value)) return [key, reference(value, names, schemas)];
      const rest = reference({ ...value, schemas: {} }, names, schemas) as JsonObject;
      const named = Object.fromEntries(
        Object.entries(schemas).map(([name, schema]) => [name, reference(schema, names, schemas, name)]),
      );
      return [key, { ...rest, schemas: named }];
    }),
  );
  const namedSchemas = (referenced['components'] as JsonObject)['schemas'] as JsonObject;
  return discriminate(referenced, namedSchemas) as unknown as T;
}
