// tsc drops the exec bit; the bin must be runnable straight from a clone after `npm run build`.
import { chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
chmodSync(fileURLToPath(import.meta.resolve('../dist/cli/main.js')), 0o755);
