import { describe, expect, it } from 'vitest';
import { BUILTIN_TOOL_IDS } from '../protocol/index.js';
import { BUILTIN_TOOLS } from '../tools/registry.js';

describe('built-in tool ids', () => {
  it('the list the CLI knows without loading the tools is the registry\'s, in order', () => {
    expect(BUILTIN_TOOL_IDS).toEqual(BUILTIN_TOOLS.map((t) => t.id));
  });
});
