import { checkImage, MAX_IMAGES_PER_MESSAGE, type ImageInput, type Mention } from '../../../core/index.js';
import { JSONRPC_INVALID_PARAMS, RpcError } from '../jsonrpc.js';
import type { ContentBlockParam } from './params.js';

/**
 * ACP prompt content blocks → what ferret's core takes: the user's text, the files they
 * @-mentioned and the images they attached. Text is kept as is; a `resource_link` shows in the
 * text as the mention the person typed and is read by the core under read_file's rules; an
 * embedded text `resource` is fenced with its URI; an image block (or an embedded picture) is an
 * image, checked here so a bad one is named by its place in the prompt.
 */
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

export interface PromptParts {
  text: string;
  mentions: Mention[];
  images: ImageInput[];
}

function bad(field: string, why: string): RpcError {
  return new RpcError(JSONRPC_INVALID_PARAMS, `Invalid params: ${field}: ${why}`, { field });
}

/** An image block's bytes checked (base64, size, a real PNG, JPEG, GIF or WebP), or -32602 naming the block. */
function image(field: string, data: unknown, mimeType: unknown, uri: unknown): ImageInput {
  if (typeof data !== 'string' || data === '') throw bad(`${field}.data`, 'an image needs its bytes as base64 (a uri alone is not fetched)');
  const input: ImageInput = { data, ...(typeof mimeType === 'string' ? { mimeType } : {}), ...(typeof uri === 'string' && uri ? { uri } : {}) };
  const checked = checkImage(input);
  if (typeof checked === 'string') throw bad(field, checked);
  return input;
}

export function promptText(blocks: ContentBlockParam[]): string {
  return promptParts(blocks).text;
}

export function promptParts(blocks: ContentBlockParam[]): PromptParts {
  const mentions: Mention[] = [];
  const images: ImageInput[] = [];
  const parts: string[] = [];
  for (const [i, b] of blocks.entries()) {
    switch (b.type) {
      case 'text':
        parts.push(str(b['text']));
        break;
      case 'image':
        images.push(image(`prompt[${i}]`, b['data'], b['mimeType'], b['uri']));
        break;
      case 'resource_link':
        parts.push(`[@${str(b['name'] ?? b['uri'])}](${str(b['uri'])})`);
        if (typeof b['uri'] === 'string') mentions.push({ uri: b['uri'], ...(typeof b['name'] === 'string' ? { name: b['name'] } : {}) });
        break;
      case 'resource': {
        const r = (b['resource'] ?? {}) as Record<string, unknown>;
        const uri = str(r['uri']);
        const mime = typeof r['mimeType'] === 'string' ? r['mimeType'] : '';
        if (typeof r['text'] === 'string') parts.push(`<context uri="${uri}">\n${r['text']}\n</context>`);
        // An embedded picture is an image when it is one of the four; any other (an icon, an SVG) is named, never a refused prompt.
        else if (typeof r['blob'] === 'string' && mime.startsWith('image/') && typeof checkImage({ data: r['blob'], mimeType: mime }) !== 'string') images.push({ data: r['blob'], mimeType: mime, ...(uri ? { uri } : {}) });
        else parts.push(`[@${uri}] (binary content omitted: ferret reads text and PNG, JPEG, GIF or WebP images)`);
        break;
      }
      default:
        parts.push(`[${b.type} content omitted: ferret takes text and images]`);
    }
  }
  if (images.length > MAX_IMAGES_PER_MESSAGE) throw bad('prompt', `${images.length} images, more than the ${MAX_IMAGES_PER_MESSAGE} one message may carry`);
  return { text: parts.join('\n'), mentions, images };
}
