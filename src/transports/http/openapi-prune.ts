/**
 * Drops the component schemas nothing references. The zod transform writes every registered
 * schema twice (as input and as output); only the variants the routes use belong in the document.
 */
export function pruneUnusedSchemas<D extends object>(doc: D): D {
  const schemas = (doc as { components?: { schemas?: Record<string, unknown> } }).components?.schemas;
  if (!schemas) return doc;
  const refsIn = (node: unknown, out: Set<string>): Set<string> => {
    if (Array.isArray(node)) for (const n of node) refsIn(n, out);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) out.add(decodeURIComponent(v.slice(21)));
        else refsIn(v, out);
      }
    }
    return out;
  };
  const { components, ...rest } = doc as { components: Record<string, unknown> };
  const used = refsIn(rest, new Set());
  // Schemas referenced by used schemas are used too.
  for (const queue = [...used]; queue.length; ) {
    for (const r of refsIn(schemas[queue.pop()!], new Set())) {
      if (used.has(r)) continue;
      used.add(r);
      queue.push(r);
    }
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  return { ...doc, components: { ...components, schemas: kept } };
}

/**
 * A body schema that admits null (`.nullish()`) makes the body optional: the route takes no body
 * at all. @fastify/swagger marks every requestBody required; say so in the document.
 */
export function optionalNullableBodies<D extends object>(doc: D): D {
  const paths = (doc as { paths?: Record<string, Record<string, { requestBody?: { required?: boolean; content?: Record<string, { schema?: { anyOf?: { type?: unknown }[] } }> } }>> }).paths ?? {};
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      const body = op?.requestBody;
      const schema = body?.content?.['application/json']?.schema;
      if (body && schema?.anyOf?.some((s) => s.type === 'null')) body.required = false;
    }
  }
  return doc;
}
