import type { ContentBlockParam } from './params.js';

/**
 * ACP prompt content blocks → the one user text ferret's core takes. Text is kept as is;
 * editor mentions become readable references, embedded file contents are fenced with their URI.
 */
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

export function promptText(blocks: ContentBlockParam[]): string {
  return promptParts(blocks).text;
}

/** The text, and the files the person @-mentioned (`resource_link`s): the core reads those under the sandbox's rules. */
export function promptParts(blocks: ContentBlockParam[]): { text: string; mentions: { uri: string; name?: string }[] } {
  const mentions: { uri: string; name?: string }[] = [];
  const parts: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        parts.push(str(b['text']));
        break;
      case 'resource_link':
        parts.push(`[@${str(b['name'] ?? b['uri'])}](${str(b['uri'])})`);
        if (typeof b['uri'] === 'string') mentions.push({ uri: b['uri'], ...(typeof b['name'] === 'string' ? { name: b['name'] } : {}) });
        break;
      case 'resource': {
        const r = (b['resource'] ?? {}) as Record<string, unknown>;
        const uri = str(r['uri']);
        if (typeof r['text'] === 'string') parts.push(`<context uri="${uri}">\n${r['text']}\n</context>`);
        else parts.push(`[@${uri}] (binary content omitted)`);
        break;
      }
      default:
        parts.push(`[${b.type} content omitted: ferret takes text]`);
    }
  }
  return { text: parts.join('\n'), mentions };
}
