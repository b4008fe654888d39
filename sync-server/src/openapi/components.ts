import * as sharedSchemas from '@tapline/shared/schemas';

/**
 * Shared TypeBox schemas as OpenAPI components. Every exported object or union schema of
 * `@tapline/shared/schemas` is a component named after its export; wherever a route's body or
 * response contains one of them (the same schema, matched by its JSON so that wrappers such as
 * Type.Optional still match), the document says `$ref` instead of repeating it. This works on
 * the document only: the schemas Fastify validates and serialises with are left as they are,
 * and a schema added to the shared package tomorrow becomes a component without a line here.
 */

const COMPONENTS_PATH = '#/components/schemas/';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Object schemas with properties and unions (anyOf) are worth a name; strings and numbers stay inline. */
function isComponentCandidate(value: unknown): value is JsonObject {
  if (!isObject(value)) return false;
  if (value.type === 'object' && isObject(value.properties) && Object.keys(value.properties).length > 0) return true;
  return Array.isArray(value.anyOf) && value.anyOf.length > 1;
}

export interface ComponentRegistry {
  /** Component name by the JSON of its schema. */
  readonly nameByJson: ReadonlyMap<string, string>;
  /** Every candidate component, its nested components already replaced by references. */
  readonly schemas: Readonly<Record<string, JsonObject>>;
}

/** Builds the registry from the shared package's exports (sorted, so names are chosen the same way every time). */
export function componentRegistry(exports: Record<string, unknown> = sharedSchemas): ComponentRegistry {
  const nameByJson = new Map<string, string>();
  const candidates: [string, JsonObject][] = [];
  for (const name of Object.keys(exports).sort()) {
    const value = exports[name];
    if (!isComponentCandidate(value)) continue;
    const json = JSON.stringify(value);
    // Two exports with the same shape (a query and a body of one route) share the first name.
    if (nameByJson.has(json)) continue;
    nameByJson.set(json, name);
    candidates.push([name, value]);
  }
  const registry = { nameByJson, schemas: {} as Record<string, JsonObject> };
  for (const [name, schema] of candidates) registry.schemas[name] = referenceComponents(registry, schema, true) as JsonObject;
  return registry;
}

/**
 * A copy of a JSON schema in which every subschema that is a registered component becomes a
 * `$ref` to it (the root too, unless `keepRoot`: a component's own definition).
 */
export function referenceComponents(registry: Pick<ComponentRegistry, 'nameByJson'>, schema: unknown, keepRoot = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => referenceComponents(registry, item));
  if (!isObject(schema)) return schema;
  if (!keepRoot) {
    const name = registry.nameByJson.get(JSON.stringify(schema));
    if (name !== undefined) return { $ref: `${COMPONENTS_PATH}${name}` };
  }
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    // Values of these keywords are data, not schemas: an enum of objects must not become a $ref.
    copy[key] = key === 'enum' || key === 'const' || key === 'default' || key === 'examples' || key === 'example' ? value : referenceComponents(registry, value);
  }
  return copy;
}

/** Names of the components a part of the document refers to, directly or through other components. */
export function referencedComponents(root: unknown, components: Readonly<Record<string, unknown>>): Set<string> {
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!isObject(node)) return;
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith(COMPONENTS_PATH)) {
      const name = ref.slice(COMPONENTS_PATH.length);
      if (!used.has(name)) {
        used.add(name);
        visit(components[name]);
      }
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(root);
  return used;
}

/**
 * TypeBox writes a union of string literals as `anyOf: [{type, enum: [a]}, {type, enum: [b]}]`
 * (after the swagger plugin turned each `const` into an enum); one `enum: [a, b]` says the same
 * and generates a plain union type in clients. Applied to the whole document, in place.
 */
export function collapseLiteralUnions(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) collapseLiteralUnions(item);
    return;
  }
  if (!isObject(node)) return;
  for (const value of Object.values(node)) collapseLiteralUnions(value);
  const members = node.anyOf;
  if (!Array.isArray(members) || members.length < 2) return;
  const literals = members.every((member) => isObject(member) && Object.keys(member).every((key) => key === 'type' || key === 'enum') && Array.isArray(member.enum) && member.enum.length === 1);
  if (!literals) return;
  const types = new Set(members.map((member) => (member as JsonObject).type));
  if (types.size !== 1) return;
  delete node.anyOf;
  node.type = [...types][0];
  node.enum = members.map((member) => ((member as JsonObject).enum as unknown[])[0]);
}
