/** The caller a verified bearer token names: its account, client, scopes, and the token's own identity. */
export interface Principal {
  accountId: string;
  clientId: string;
  scopes: ReadonlySet<string>;
  generation: number;
  tokenId: string;
  expiresAt: number;
}
