import bcrypt from 'bcrypt';

/**
 * Hashing and checking of human passwords and client secrets: the one place bcrypt runs, so its cost to the
 * process (libuv's thread pool) is governed in one place.
 */
export class SecretHasher {
  // A real hash to compare against when there is no stored one, so "unknown" and "wrong" cost the same time.
  private readonly dummyHash: string;

  constructor(private readonly cost: number) {
    this.dummyHash = bcrypt.hashSync('not-a-secret', cost);
  }

  hash(secret: string): Promise<string> {
    return bcrypt.hash(secret, this.cost);
  }

  /** Whether `secret` matches `hash`; with no hash it still spends the time of a comparison and answers false. */
  async verify(secret: string, hash: string | null | undefined): Promise<boolean> {
    const matches = await bcrypt.compare(secret, hash ?? this.dummyHash);
    return matches && Boolean(hash);
  }
}
