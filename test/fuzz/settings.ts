// What a run of the contract fuzzer (fuzz.test.ts) is, from the environment: its seed, its size, the service's entry
// and the bounds the service is held to (`make fuzz` and FUZZ_* ask for longer runs).
const SEED = Number(process.env.FUZZ_SEED ?? 20261122); // fixed unless a longer run asks for another
/** Generated requests per operation, calls per MCP tool and documents per GraphQL field; `make fuzz` sends 100. */
export const EXAMPLES = Number(process.env.FUZZ_EXAMPLES ?? 40);
/** The service's entry: the sources through tsx, or the compiled one `make fuzz` builds (`dist/src/main.js`). */
export const MAIN = process.env.FUZZ_MAIN ?? 'src/main.ts';
/** Issue 20's bounds: every request answered within 5 s, the service's RSS under 1 GiB throughout. */
export const LIMITS = { deadlineMs: 5_000, rssBytes: 2 ** 30 };
if (!Number.isInteger(EXAMPLES) || EXAMPLES < 1)
  throw new Error(`FUZZ_EXAMPLES must be a positive integer, not ${process.env.FUZZ_EXAMPLES}`);

/** Each operation's (tool's, field's) own seed, so adding one leaves the others' requests as they were. */
export const seedOf = (name: string) => [...name].reduce((hash, c) => (Math.imul(hash, 31) + c.charCodeAt(0)) | 0, SEED);
