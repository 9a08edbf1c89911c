import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { built, lazySchema } from './lazy-schema.js';

describe('lazySchema', () => {
  it('builds the schema on first use, once', () => {
    let builds = 0;
    const S = lazySchema(() => (builds++, z.object({ a: z.string() })));
    expect(builds).toBe(0);
    expect(S.parse({ a: 'x' })).toEqual({ a: 'x' });
    expect(S.safeParse({ a: 1 }).success).toBe(false);
    expect(builds).toBe(1);
  });

  it('composes like the schema it stands for', () => {
    const Mode = lazySchema(() => z.enum(['code', 'plan']));
    const S = lazySchema(() => z.object({ mode: Mode.optional(), list: z.array(Mode) }));
    expect(S.parse({ list: ['plan'] })).toEqual({ list: ['plan'] });
    expect(() => S.parse({ list: ['nope'] })).toThrow(/code|plan/);
    expect(Mode instanceof z.ZodType).toBe(true);
    expect(Mode.options).toEqual(['code', 'plan']);
  });

  it('keeps its identity: a registry entry for it is found from schemas built on it', () => {
    const Item = lazySchema(() => z.object({ id: z.string() }));
    const registry = z.registry<{ id: string }>();
    registry.add(Item, { id: 'Item' });
    // Through a method (optional wraps `this`) and passed as is: both must reach the same entry.
    const Outer = z.object({ item: Item.optional(), other: Item.nullable(), items: z.array(Item) });
    const json = z.toJSONSchema(Outer, { metadata: registry }) as { properties: Record<string, unknown>; $defs?: Record<string, unknown> };
    expect(Object.keys(json.$defs ?? {})).toEqual(['Item']);
    expect(JSON.stringify(json.properties)).not.toContain('"id":{"type":"string"}');
  });

  it('stands for a plain record of schemas too (keys, values)', () => {
    const Rec = lazySchema(() => ({ a: z.string(), b: z.number() }) as const);
    expect(Object.keys(Rec)).toEqual(['a', 'b']);
    expect(Rec.b.parse(2)).toBe(2);
  });
});

describe('built', () => {
  it('is the schema a lazySchema stands for, and anything else as it is', () => {
    const inner = z.string();
    const L = lazySchema(() => inner);
    expect(built(L)).toBe(inner);
    expect(built(inner)).toBe(inner);
    expect(built(undefined)).toBe(undefined);
  });
});
