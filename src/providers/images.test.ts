import { describe, expect, it } from 'vitest';
import type { Message } from '../protocol/index.js';
import { seesImages, unseenImagesNotice } from './images.js';
import { toPrompt } from './messages.js';

const im = { mimeType: 'image/png' as const, data: 'iVBORw0KGgo=', name: 'shot.png' };

describe('which models see images, and what the others are told', () => {
  it('OpenAI and Anthropic models see them but for old text-only ones; local models when the name says so; config decides first', () => {
    expect(seesImages('openai', 'gpt-5', undefined)).toBe(true);
    expect(seesImages('openai', 'o3-mini', undefined)).toBe(false);
    expect(seesImages('anthropic', 'claude-sonnet-4-5', undefined)).toBe(true);
    expect(seesImages('openai-compatible', 'llama3.1', undefined)).toBe(false);
    expect(seesImages('ollama', 'llava:13b', undefined)).toBe(true);
    expect(seesImages('openai-compatible', 'qwen2.5-vl-7b', undefined)).toBe(true);
    expect(seesImages('openai-compatible', 'llama3.1', true)).toBe(true);
    expect(seesImages('openai', 'gpt-5', false)).toBe(false);
  });

  it('a notice only for images since the model last spoke', () => {
    const history: Message[] = [
      { role: 'user', text: 'a', images: [im] },
      { role: 'assistant', text: 'seen', toolCalls: [] },
      { role: 'user', text: 'b' },
    ];
    expect(unseenImagesNotice('m', history)).toBeUndefined();
    expect(unseenImagesNotice('m', [...history, { role: 'user', text: 'c', images: [im, im] }])).toMatch(/^m cannot see images: the 2 images reached it as a note/);
  });

  it('image parts for a vision model; the tool result inline (Responses, Messages) or in a user message after it (chat completions)', () => {
    const history: Message[] = [
      { role: 'user', text: 'look', images: [im] },
      { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'shot.png' } }] },
      { role: 'tool', results: [{ callId: 'c1', name: 'read_file', status: 'completed', output: '[image shot.png]', images: [im] }] },
    ];
    const inline = toPrompt('', history, false, undefined, undefined, { see: true, toolImages: 'inline' }, 'm').messages;
    expect(inline[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', image: im.data, mediaType: 'image/png' }] });
    expect(JSON.stringify(inline[2])).toContain('"type":"image-data"');
    expect(inline).toHaveLength(3);
    const after = toPrompt('', history, false, undefined, undefined, { see: true, toolImages: 'after' }, 'm').messages;
    expect(after).toHaveLength(4);
    expect(JSON.stringify(after[2])).toContain('(the image follows in the next message)');
    expect(after[3]).toMatchObject({ role: 'user', content: [{ type: 'text' }, { type: 'image', image: im.data }] });
    const blind = toPrompt('', history, false, undefined, undefined, { see: false, toolImages: 'after' }, 'm').messages;
    expect(blind).toHaveLength(3);
    expect(JSON.stringify(blind)).not.toContain(im.data);
    expect(blind[0]).toMatchObject({ role: 'user', content: expect.stringMatching(/look\n\n\[an image was attached here \(shot\.png, image\/png, 1 KB\), but m cannot see images/) });
  });
});

describe('what one request carries of a long session\'s images', () => {
  it('the newest eight are sent; each older one is a note in its place, the stored history untouched', async () => {
    const { withImageBudget, MAX_SENT_IMAGES } = await import('./images.js');
    const pic = (n: number) => ({ mimeType: 'image/png' as const, data: 'AAAA', name: `p${n}.png` });
    const history: Message[] = [];
    for (let n = 0; n < 10; n++) history.push({ role: 'user', text: `look ${n}`, images: [pic(n)] }, { role: 'assistant', text: 'ok', toolCalls: [] });
    const sent = withImageBudget(history);
    const kept = sent.flatMap((m) => (m.role === 'user' ? (m.images ?? []).map((i) => i.name) : []));
    expect(kept).toEqual(['p2.png', 'p3.png', 'p4.png', 'p5.png', 'p6.png', 'p7.png', 'p8.png', 'p9.png']);
    expect(kept).toHaveLength(MAX_SENT_IMAGES);
    expect(sent[0]).toEqual({ role: 'user', text: 'look 0\n\n[an earlier image was here (p0.png, image/png, 1 KB); it is no longer sent, to keep requests within the provider\'s limits: read it again with read_file, or ask for it, if it still matters]' });
    expect(history[0]).toMatchObject({ images: [pic(0)] });
  });

  it('by bytes too: two 12 MB pictures do not go in one request', async () => {
    const { withImageBudget } = await import('./images.js');
    const big = { mimeType: 'image/png' as const, data: 'A'.repeat(16 * 1024 * 1024) };
    const sent = withImageBudget([
      { role: 'user', text: 'a', images: [big] },
      { role: 'assistant', text: '', toolCalls: [{ id: 'c', name: 'read_file', args: {} }] },
      { role: 'tool', results: [{ callId: 'c', name: 'read_file', status: 'completed', output: 'img', images: [big] }] },
    ]);
    expect(sent[0]).not.toHaveProperty('images');
    expect(sent[2]).toMatchObject({ results: [{ images: [big] }] });
  });
});
