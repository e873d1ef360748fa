// madge ships no types; the layering test uses its dependency graph only.
declare module 'madge' {
  interface MadgeResult {
    obj(): Record<string, string[]>;
  }
  export default function madge(path: string | string[], config?: Record<string, unknown>): Promise<MadgeResult>;
}
