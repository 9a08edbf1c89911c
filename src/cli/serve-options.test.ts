import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../core/index.js';
import { FlagError, parseServeOptions } from './serve-options.js';

const parse = (raw: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => parseServeOptions({ cwd: process.cwd(), ...raw }, ['bash'], env);

describe('--store / FERRET_STORE / config.json store', () => {
  it('is undefined by default (files under CHIMERA_HOME)', () => {
    expect(parse({}).store).toBeUndefined();
    expect(parse({}, { FERRET_STORE: '' }).store).toBeUndefined();
  });

  it('takes the flag over the variable', () => {
    expect(parse({ store: 'redis://10.0.0.1:6380/2' }, { FERRET_STORE: 'redis://127.0.0.1:6379/0' }).store).toBe('redis://10.0.0.1:6380/2');
    expect(parse({}, { FERRET_STORE: 'rediss://u:p@cache.internal/1' }).store).toBe('rediss://u:p@cache.internal/1');
  });

  it('refuses what is not a Redis URL, naming where it came from', () => {
    expect(() => parse({ store: 'localhost:6379' })).toThrow(FlagError);
    expect(() => parse({ store: 'http://h:1/0' })).toThrow(/^--store: http:\/\/ is not a Redis URL \(expected redis:\/\/HOST:PORT\/DB\)$/);
    expect(() => parse({}, { FERRET_STORE: 'redis://h:1/x' })).toThrow(/^FERRET_STORE: the database in "redis:\/\/h:1\/x" must be a number/);
    expect(() => parse({}, { FERRET_STORE: 'not a url' })).toThrow(/^FERRET_STORE: not a URL/);
  });

  it('config.json: validated by the schema, the field named in the issue', () => {
    expect(ConfigSchema.parse({ store: 'redis://127.0.0.1:6379/0' }).store).toBe('redis://127.0.0.1:6379/0');
    expect(ConfigSchema.parse({}).store).toBeUndefined();
    const bad = ConfigSchema.safeParse({ store: 'redis:///0' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ['store'], message: expect.stringMatching(/names no host/) });
  });
});

describe('--bridge / config.json bridge.relay', () => {
  it('takes a wss:// relay, or ws:// to loopback; refuses plain ws:// elsewhere, naming the flag', () => {
    expect(parse({}).bridge).toBeUndefined();
    expect(parse({ bridge: 'wss://relay.example.com' }).bridge).toBe('wss://relay.example.com');
    expect(parse({ bridge: 'ws://127.0.0.1:9000', stdio: false }).bridge).toBe('ws://127.0.0.1:9000');
    expect(() => parse({ bridge: 'ws://relay.example.com' })).toThrow(/^--bridge: plain ws:\/\/ is allowed only to a loopback relay; use wss:\/\/relay\.example\.com$/);
  });

  it('config.json: validated by the schema', () => {
    expect(ConfigSchema.parse({ bridge: { relay: 'wss://r.example' } }).bridge).toEqual({ relay: 'wss://r.example' });
    const bad = ConfigSchema.safeParse({ bridge: { relay: 'ws://r.example' } });
    expect(bad.error?.issues[0]).toMatchObject({ path: ['bridge', 'relay'], message: expect.stringMatching(/loopback/) });
  });
});
