import { describe, expect, it } from 'vitest';
import { ConfigSchema, defaultConfig } from './config.js';

describe('defaultConfig', () => {
  it('is what the schema makes of an empty config.json', () => {
    expect(defaultConfig()).toEqual(ConfigSchema.parse({}));
  });
  it('is a fresh object each time (a caller may fill it in)', () => {
    const a = defaultConfig();
    a.rules.allow.push('bash(ls)');
    expect(defaultConfig().rules.allow).toEqual([]);
  });
});
