/**
 * One policy's state for a request, as a windowed counter holds it: the rate limits (src/http/) and the CPU budget
 * (src/compute/) both answer it, and the draft-8 `RateLimit` and `RateLimit-Policy` headers describe it.
 */
export interface Quota {
  name: string;
  limit: number;
  remaining: number;
  /** When the window ends; undefined when the store could not say (a full window is announced). */
  resetTime: Date | undefined;
  /** What the policy counts this request under (hashed into the partition key `pk`). */
  key: string;
}
