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
