import { z } from 'zod';
import { FerretError } from './errors.js';
import { lazySchema } from './lazy-schema.js';

// Images a person attaches to a message (an editor's image block, the HTTP body, the ferret
// dialect) and images a tool hands the model (read_file of a picture). The limits are one table
// every surface states (docs/tools.md "Images").

/** The image formats every vision vendor takes (OpenAI, Anthropic, the compatible servers). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** Largest image, decoded: Anthropic's own per-image limit, well inside OpenAI's. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Images one message may carry. */
export const MAX_IMAGES_PER_MESSAGE = 4;
/** Base64 characters of the largest image (4 characters per 3 bytes, padded). */
export const MAX_IMAGE_BASE64 = Math.ceil(MAX_IMAGE_BYTES / 3) * 4;

/** An image as the history keeps it, once (in the `message` event that brings it): base64 bytes and the type they are. */
export const ImageSchema = lazySchema(() =>
  z.object({
    mimeType: z.enum(IMAGE_TYPES),
    data: z.string(),
    /** A file name or URI, for notices and a client's display. */
    name: z.string().optional(),
  }),
);
export type Image = z.infer<typeof ImageSchema>;

/** An image as a transport hands it to the core, not yet checked. */
export interface ImageInput {
  /** Base64, no `data:` prefix. */
  data: string;
  /** What the sender says it is; the bytes decide (a PNG sent as image/jpeg is a PNG). */
  mimeType?: string | undefined;
  /** Where it came from (a file URI), for notices. */
  uri?: string | undefined;
}

/** The image type its first bytes say (magic numbers), or undefined when they name none of the four. */
export function imageTypeOf(b: Uint8Array): ImageType | undefined {
  const at = (i: number, ...bytes: number[]) => bytes.every((x, k) => b[i + k] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Bytes a base64 string decodes to (its length and padding say it; nothing is decoded). */
export function base64Bytes(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - pad;
}

/** "1.2 MB", "340 KB": an image's size in a notice. */
export function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/**
 * An attached image checked: real base64 (a `data:` URL's prefix is taken off), at most
 * MAX_IMAGE_BYTES, and bytes that are a PNG, JPEG, GIF or WebP. A string says why it is refused.
 */
export function checkImage(a: ImageInput): Image | string {
  let data = a.data.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
  if (data.length === 0) return 'the image has no data';
  if (data.length % 4 === 1 || !BASE64.test(data)) return 'data is not base64';
  if (data.length % 4 !== 0) data = data.padEnd(data.length + 4 - (data.length % 4), '='); // unpadded base64 is common
  const size = base64Bytes(data);
  if (size > MAX_IMAGE_BYTES) return `the image is ${sizeText(size)}, more than the ${sizeText(MAX_IMAGE_BYTES)} ferret takes`;
  const type = imageTypeOf(Buffer.from(data.slice(0, 24), 'base64'));
  if (!type) return `not a PNG, JPEG, GIF or WebP image${a.mimeType ? ` (sent as ${a.mimeType})` : ''}`;
  return { mimeType: type, data, ...(a.uri !== undefined ? { name: a.uri } : {}) };
}

/**
 * A message's images checked, or a FerretError `invalid_params` naming the first bad one
 * (`<field>[i]`), so the sender is told before any turn starts.
 */
export function checkImages(list: readonly ImageInput[] | undefined, field = 'images'): Image[] {
  if (!list?.length) return [];
  if (list.length > MAX_IMAGES_PER_MESSAGE) {
    throw new FerretError('invalid_params', `${field}: ${list.length} images, more than the ${MAX_IMAGES_PER_MESSAGE} one message may carry`, { field });
  }
  return list.map((im, i) => {
    const checked = checkImage(im);
    if (typeof checked === 'string') throw new FerretError('invalid_params', `${field}[${i}]: ${checked}`, { field: `${field}[${i}]` });
    return checked;
  });
}
