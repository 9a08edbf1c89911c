// Kept at this path for the src/ unit tests that import '../../test/support/scratch.js'; the code is in scratch.mjs.
export { scratchRoot } from './scratch.mjs';
