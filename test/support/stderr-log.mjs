// A child's stderr as text, watchable. Plain Node ESM; types in stderr-log.d.mts.

/** Keeps what a server says on stderr (only the tail past `limit` chars) so failures can quote it and callers can wait for a log line. */
export class StderrLog {
  constructor(stream, { limit = Infinity, keep = 200_000 } = {}) {
    this.text = '';
    this.ended = false;
    this.watchers = new Set();
    stream.setEncoding('utf8');
    stream.on('data', (d) => {
      this.text += d;
      if (this.text.length > limit) this.text = this.text.slice(-keep);
      for (const w of this.watchers) w();
    });
    stream.on('close', () => {
      this.ended = true;
      for (const w of this.watchers) w();
    });
  }

  /** Resolves with the first defined `find(text)`; rejects when the stream ends first or after timeoutMs, quoting the text. */
  waitFor(find, timeoutMs, what) {
    return new Promise((resolve, reject) => {
      let t;
      const check = () => {
        let v;
        try {
          v = find(this.text);
        } catch (e) {
          v = undefined;
          done();
          return reject(e);
        }
        if (v !== undefined) {
          done();
          resolve(v);
        } else if (this.ended) {
          done();
          reject(new Error(`stderr ended before ${what}; stderr:\n${this.text}`));
        }
      };
      const done = () => {
        clearTimeout(t);
        this.watchers.delete(check);
      };
      t = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr:\n${this.text}`));
      }, timeoutMs);
      this.watchers.add(check);
      check();
    });
  }
}
