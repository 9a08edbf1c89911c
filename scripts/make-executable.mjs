// tsc drops the exec bit; the bin must be runnable straight from a clone after `npm run build`.
import { chmodSync } from 'node:fs';
chmodSync(new URL('../dist/cli/main.js', import.meta.url), 0o755);
