/** Why a caller may not run an operation: no token, a bad token, or a token without the operation's scope. */
export class AuthorizationError extends Error {
  constructor(
    readonly kind: 'missing' | 'invalid_token' | 'insufficient_scope',
    readonly description: string,
    readonly requiredScope?: string,
  ) {
    super(description);
    this.name = 'AuthorizationError';
  }
}
