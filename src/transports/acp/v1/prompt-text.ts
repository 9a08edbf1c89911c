import type { ContentBlockParam } from './params.js';

/**
 * ACP prompt content blocks → the one user text ferret's core takes. Text is kept as is;
 * editor mentions become readable references, embedded file contents are fenced with their URI.
 */
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

export function promptText(blocks: ContentBlockParam[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        parts.push(str(b['text']));
        break;
      case 'resource_link':
        parts.push(`[@${str(b['name'] ?? b['uri'])}](${str(b['uri'])})`);
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
  return parts.join('\n');
}
