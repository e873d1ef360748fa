// Solves a proof-of-work challenge of the service (GET /v1/challenge) and prints the X-IAS-Challenge value:
//   npx tsx scripts/solve-challenge.ts http://localhost:3000 signup
//   curl -H "X-IAS-Challenge: $(npx tsx scripts/solve-challenge.ts $API signup)" ...
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';

function leadingZeroBits(digest: Buffer): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte !== 0) return bits + Math.clz32(byte) - 24;
    bits += 8;
  }
  return bits;
}

/** The first nonce (counting from 0) whose SHA-256 over `challenge:nonce` has `difficulty` leading zero bits. */
export function solveChallenge(challenge: string, difficulty: number): string {
  for (let nonce = 0; ; nonce++) {
    if (leadingZeroBits(createHash('sha256').update(`${challenge}:${nonce}`).digest()) >= difficulty) return `${challenge}:${nonce}`;
  }
}

/** Fetches a challenge for `purpose` from the API at `baseUrl` and solves it. */
export async function solvedChallenge(baseUrl: string, purpose?: 'signup' | 'login' | 'contact'): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/challenge${purpose ? `?purpose=${purpose}` : ''}`);
  if (!response.ok) throw new Error(`GET /v1/challenge answered ${response.status}: ${await response.text()}`);
  const { challenge, difficulty } = (await response.json()) as { challenge: string; difficulty: number };
  return solveChallenge(challenge, difficulty);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [baseUrl = 'http://localhost:3000', purpose] = process.argv.slice(2);
  if (purpose && !['signup', 'login', 'contact'].includes(purpose)) {
    process.stderr.write('usage: solve-challenge.ts [BASE_URL] [signup|login|contact]\n');
    process.exit(64);
  }
  solvedChallenge(baseUrl.replace(/\/+$/, ''), purpose as 'signup' | undefined).then(
    (solution) => process.stdout.write(`${solution}\n`),
    (error: Error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
