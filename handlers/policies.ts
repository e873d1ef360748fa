import type { SuccessShape } from '../src/http/handler-types.js';

export const createPolicy: SuccessShape<'createPolicy'> = (policy) => ({ headers: { Location: `/v1/policies/${policy.version}` } });
