import { base64Bytes, sizeText, type Image, type Message } from '../protocol/index.js';
import type { ProviderType } from './provider-types.js';

// Which models see images, and what a model that does not is told instead. Decided here, once,
// for every provider: a text-only model gets a note where each image was (never a silent drop,
// never a vendor error), and the person a notice.

/** How a provider takes images: whether the model sees them, and where a tool's images go. */
export interface ImageSupport {
  /** The model sees images. */
  see: boolean;
  /**
   * `inline`: inside the tool result (OpenAI Responses and Anthropic take image parts there);
   * `after`: the tool result says so in text and a user message with the images follows it
   * (chat completions, whose tool messages are text only).
   */
  toolImages: 'inline' | 'after';
}

/** Text-only models of the vendors whose current models all see images. */
const TEXT_ONLY = /^(?:o1-mini|o3-mini|gpt-3\.5|claude-(?:2|instant))/;
/** Local and compatible models whose names say they see images; any other is taken as text-only. */
const SEES_BY_NAME = /(?:llava|bakllava|vision|[-_.]vl\b|vl[-_:]|pixtral|gemma-?3|minicpm-v|moondream|qwen2\.5-?vl|qwen3-?vl|internvl|molmo|-omni)/i;

/**
 * Whether a model sees images: config.json's `vision` when set; else every OpenAI and Anthropic
 * model but a few old text-only ones; else (Ollama, compatible servers) only a model whose name
 * says so (llava, `-vl`, vision, pixtral, gemma3, …): a local text model sent an image often
 * fails the whole call, a note costs nothing.
 */
export function seesImages(type: ProviderType, model: string, configured: boolean | undefined): boolean {
  if (configured !== undefined) return configured;
  if (type === 'openai' || type === 'anthropic') return !TEXT_ONLY.test(model);
  return SEES_BY_NAME.test(model);
}

/** An image as a note names it: "shot.png, image/png, 12 KB". */
function described(im: Image): string {
  return `${im.name ? `${im.name}, ` : ''}${im.mimeType}, ${sizeText(base64Bytes(im.data))}`;
}

/** Where an image was, for a model that cannot see it. */
export function imageNote(im: Image, modelId: string): string {
  return `[an image was attached here (${described(im)}), but ${modelId} cannot see images; say so if it matters, and ask for a description or a vision model]`;
}

/**
 * The notice for the person when the newest messages (since the model last spoke) carry images
 * this model will not see; undefined when they carry none.
 */
export function unseenImagesNotice(modelId: string, messages: readonly Message[]): string | undefined {
  let n = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant') break;
    if (m.role === 'user') n += m.images?.length ?? 0;
    else for (const r of m.results) n += r.images?.length ?? 0;
  }
  if (n === 0) return undefined;
  return `${modelId} cannot see images: ${n === 1 ? 'the image' : `the ${n} images`} reached it as a note saying so. Pick a vision model (or set providers.<name>.models["<model>"].vision in config.json) to show ${n === 1 ? 'it' : 'them'}`;
}

/** Images one request carries at most, newest first: vendors refuse larger requests (Anthropic: 32 MB, and fewer, smaller images past 20). */
export const MAX_SENT_IMAGES = 8;
export const MAX_SENT_IMAGE_BYTES = 20 * 1024 * 1024;

/** Where an older image was, once it is no longer sent. */
function droppedNote(im: Image): string {
  return `[an earlier image was here (${described(im)}); it is no longer sent, to keep requests within the provider's limits: read it again with read_file, or ask for it, if it still matters]`;
}

/**
 * The history as one request sends it: the newest images up to MAX_SENT_IMAGES and
 * MAX_SENT_IMAGE_BYTES, each older one a note in its place. The stored history keeps them all
 * (a replay shows them); only what goes to the vendor is bounded.
 */
export function withImageBudget(history: readonly Message[]): readonly Message[] {
  let count = 0;
  let bytes = 0;
  const split = (images: readonly Image[]) => {
    const kept: Image[] = [];
    const dropped: Image[] = [];
    for (const im of images) {
      const size = base64Bytes(im.data);
      if (count < MAX_SENT_IMAGES && bytes + size <= MAX_SENT_IMAGE_BYTES) {
        count++;
        bytes += size;
        kept.push(im);
      } else dropped.push(im);
    }
    return { kept, dropped, note: dropped.map(droppedNote).join('\n') };
  };
  const out = [...history];
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i]!;
    if (m.role === 'user' && m.images?.length) {
      const s = split(m.images);
      if (s.dropped.length) out[i] = { role: 'user', text: [m.text, s.note].filter(Boolean).join('\n\n'), ...(s.kept.length ? { images: s.kept } : {}) };
    } else if (m.role === 'tool' && m.results.some((r) => r.images?.length)) {
      out[i] = {
        role: 'tool',
        results: m.results.map((r) => {
          if (!r.images?.length) return r;
          const s = split(r.images);
          if (!s.dropped.length) return r;
          const { images: _all, ...rest } = r;
          return { ...rest, output: `${r.output}\n${s.note}`, ...(s.kept.length ? { images: s.kept } : {}) };
        }),
      };
    }
  }
  return out;
}
