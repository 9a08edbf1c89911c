import { describe, expect, it } from 'vitest';
import { checkImage, checkImages, imageTypeOf, MAX_IMAGE_BYTES, sizeText } from './images.js';
import { FerretError } from './errors.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const b64 = (bytes: number[], pad = 16) => Buffer.from([...bytes, ...new Array<number>(pad).fill(0)]).toString('base64');

describe('images a person attaches', () => {
  it('knows the four formats by their first bytes, whatever the sender says', () => {
    expect(imageTypeOf(Buffer.from(PNG, 'base64'))).toBe('image/png');
    expect(checkImage({ data: b64([0xff, 0xd8, 0xff, 0xe0]), mimeType: 'image/png' })).toMatchObject({ mimeType: 'image/jpeg' });
    expect(checkImage({ data: b64([...Buffer.from('GIF89a')]) })).toMatchObject({ mimeType: 'image/gif' });
    expect(checkImage({ data: b64([...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WEBP')]) })).toMatchObject({ mimeType: 'image/webp' });
    expect(checkImage({ data: b64([...Buffer.from('GIF87b')]) })).toMatch(/not a PNG, JPEG, GIF or WebP/);
  });

  it('takes a data: URL and wrapped base64 as the same bytes', () => {
    const wrapped = PNG.replace(/(.{20})/g, '$1\n');
    expect(checkImage({ data: `data:image/png;base64,${wrapped}`, uri: 'file:///a.png' })).toEqual({ mimeType: 'image/png', data: PNG, name: 'file:///a.png' });
  });

  it('refuses what is not base64, empty or over the size limit, saying so', () => {
    expect(checkImage({ data: 'not base64!' })).toBe('data is not base64');
    expect(checkImage({ data: ' ' })).toBe('the image has no data');
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 3);
    Buffer.from(PNG, 'base64').copy(big);
    expect(checkImage({ data: big.toString('base64') })).toBe(`the image is ${sizeText(MAX_IMAGE_BYTES + 3)}, more than the 5.0 MB ferret takes`);
  });

  it('a message: at most four, the bad one named by its place', () => {
    expect(checkImages(undefined)).toEqual([]);
    const err = (() => {
      try {
        checkImages([{ data: PNG }, { data: 'AAAA' }]);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(FerretError);
    expect(err).toMatchObject({ code: 'invalid_params', message: 'images[1]: not a PNG, JPEG, GIF or WebP image', data: { field: 'images[1]' } });
    expect(() => checkImages(new Array(5).fill({ data: PNG }))).toThrow(/images: 5 images, more than the 4 one message may carry/);
  });
});
