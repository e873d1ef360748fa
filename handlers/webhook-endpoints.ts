import type { SuccessShape } from '../src/http/handler-types.js';

/** An answer carrying a signing secret is never stored by a cache on the way. */
const NO_STORE = { 'Cache-Control': 'no-store' };

export const createWebhookEndpoint: SuccessShape<'createWebhookEndpoint'> = (endpoint) => ({
  headers: { Location: `/v1/webhook-endpoints/${endpoint.id}`, ...NO_STORE },
});

export const rotateWebhookEndpointSecret: SuccessShape<'rotateWebhookEndpointSecret'> = () => ({ headers: NO_STORE });
