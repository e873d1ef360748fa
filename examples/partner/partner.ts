// A partner's program: a stock OAuth client (oauth4webapi) for the token, a typed client generated from
// /openapi.json (openapi-typescript types + openapi-fetch) for the call. Usage: npx tsx partner.ts BASE_URL ID SECRET
import createClient from 'openapi-fetch';
import * as oauth from 'oauth4webapi';
import type { paths } from './schema.js';

const [baseUrl, clientId, clientSecret] = process.argv.slice(2) as [string, string, string];
const issuer = new URL(baseUrl);
const options = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};

const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options }));
const client: oauth.Client = { client_id: clientId };
const grant = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(clientSecret), { scope: 'read' }, options);
const { access_token } = await oauth.processClientCredentialsResponse(as, client, grant);

const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${access_token}` } });
const { data, error } = await api.POST('/v1/goals/feasibility', {
  body: { capital: 10000, target: 25000, horizon_years: 10, market: 'US', monthly_contribution: 200 },
});
if (error) throw new Error(`${error.title}: ${error.detail}`);
console.log(
  JSON.stringify({ probability: data.probability, required_growth_rate: data.required_growth_rate, suggestions: data.suggestions.length }),
);
