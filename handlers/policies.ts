import type { SuccessShape } from './types.js';

export const createPolicy: SuccessShape<'createPolicy'> = (policy) => ({ headers: { Location: `/v1/policies/${policy.version}` } });
