import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { type CheckedRequest, checkRequest, checkResponse } from '../support/alpaca-contract.js';

const keys = { 'APCA-API-KEY-ID': 'PKTEST', 'APCA-API-SECRET-KEY': 'secret' };
const json = { ...keys, 'Content-Type': 'application/json' };
const order = { symbol: 'AAPL', qty: '2', side: 'buy', type: 'limit', limit_price: '150.5', time_in_force: 'day', client_order_id: 'o-1' };
const ORDER_ID = '61e69015-8549-4bfd-b9c3-01e75843f47d';
const post = (body: unknown, headers: CheckedRequest['headers'] = json): CheckedRequest => ({
  method: 'POST',
  path: '/v2/orders',
  query: {},
  headers,
  body,
});
const get = (path: string, query: CheckedRequest['query'] = {}): CheckedRequest => ({ method: 'GET', path, query, headers: keys });
const example = (file: string, path: string, name?: string) => {
  const media = JSON.parse(readFileSync(`test/fixtures/alpaca/${file}`, 'utf8')).paths[path].get.responses['200'].content[
    'application/json'
  ];
  return name ? media.examples[name].value : media.example;
};

describe("alpaca-contract: requests against Alpaca's published documents", () => {
  it('passes the calls the adapter makes, as the SDK sends them', () => {
    expect(checkRequest('trading', post(order))).to.deep.equal([]);
    expect(checkRequest('trading', post({ symbol: 'AAPL', qty: '0.5', side: 'sell', type: 'market', time_in_force: 'gtc' }))).to.deep.equal(
      [],
    );
    expect(checkRequest('trading', get('/v2/account'))).to.deep.equal([]);
    expect(checkRequest('trading', get('/v2/positions'))).to.deep.equal([]);
    expect(checkRequest('trading', get('/v2/clock'))).to.deep.equal([]);
    expect(checkRequest('trading', get('/v3/clock', { markets: 'NYSE', time: '2026-01-05T15:00:00Z' }))).to.deep.equal([]);
    const list = new URLSearchParams('status=all&limit=500&direction=asc&nested=true&asset_class=us_equity&asset_class=crypto');
    expect(checkRequest('trading', get('/v2/orders', list))).to.deep.equal([]);
    expect(checkRequest('trading', get('/v2/orders:by_client_order_id', { client_order_id: 'o-1' }))).to.deep.equal([]);
    expect(checkRequest('trading', get(`/v2/orders/${ORDER_ID}`, { nested: 'false' }))).to.deep.equal([]);
    expect(checkRequest('trading', { method: 'DELETE', path: `/v2/orders/${ORDER_ID}`, query: {}, headers: keys })).to.deep.equal([]);
    expect(checkRequest('trading', { method: 'DELETE', path: '/v2/orders', query: {}, headers: keys })).to.deep.equal([]);
    expect(checkRequest('market-data', get('/v2/stocks/trades/latest', { symbols: 'AAPL,MSFT', feed: 'iex' }))).to.deep.equal([]);
    expect(checkRequest('market-data', get('/v2/stocks/AAPL/trades/latest', { feed: 'sip' }))).to.deep.equal([]);
  });

  it('reports a required body field left out', () => {
    const { time_in_force: _left, ...body } = order;
    expect(checkRequest('trading', post(body))).to.deep.equal(['POST /v2/orders: body/time_in_force is required']);
  });

  it('reports a value outside an enum (side "hold")', () => {
    expect(checkRequest('trading', post({ ...order, side: 'hold' }))).to.deep.equal([
      'POST /v2/orders: body/side must be one of "buy", "sell"',
    ]);
  });

  it('reports qty and limit_price sent as JSON numbers: the document types them as strings', () => {
    expect(checkRequest('trading', post({ ...order, qty: 2, limit_price: 150.5 }))).to.deep.equal([
      'POST /v2/orders: body/limit_price must be string',
      'POST /v2/orders: body/qty must be string',
    ]);
  });

  it('reports a body that is not sent as JSON, and one that is missing', () => {
    expect(checkRequest('trading', post(order, keys))).to.deep.equal(['POST /v2/orders: Content-Type is missing, not application/json']);
    expect(checkRequest('trading', post(undefined))).to.deep.equal(['POST /v2/orders: the request body is required']);
  });

  it('reports a path the document does not have, and a method it does not have on a path', () => {
    expect(checkRequest('trading', get('/v2/order'))).to.deep.equal(['no path of trading-api.json matches /v2/order']);
    expect(checkRequest('trading', { ...get('/v2/account'), method: 'PUT' })).to.deep.equal([
      'trading-api.json has no PUT operation on /v2/account',
    ]);
    expect(checkRequest('market-data', get('/v2/account'))).to.deep.equal(['no path of market-data-api.json matches /v2/account']);
  });

  it('reports a missing key header, whichever of the two it is', () => {
    const { 'APCA-API-KEY-ID': _key, ...noKey } = keys;
    expect(checkRequest('trading', { ...get('/v2/account'), headers: noKey })).to.deep.equal([
      'GET /v2/account: the APCA-API-KEY-ID header is missing (security scheme API_Key)',
    ]);
    const { 'APCA-API-SECRET-KEY': _secret, ...noSecret } = keys;
    expect(checkRequest('market-data', { ...get('/v2/stocks/trades/latest', { symbols: 'AAPL' }), headers: noSecret })).to.deep.equal([
      'GET /v2/stocks/trades/latest: the APCA-API-SECRET-KEY header is missing (security scheme apiSecret)',
    ]);
  });

  it('reads query and path values as strings coerced to their schema, and reports what does not fit', () => {
    expect(checkRequest('trading', get('/v2/orders', { status: 'pending', limit: 'ten', nested: 'yes' }))).to.deep.equal([
      'GET /v2/orders: query parameter status must be one of "open", "closed", "all"',
      'GET /v2/orders: query parameter limit must be integer',
      'GET /v2/orders: query parameter nested must be boolean',
    ]);
    expect(checkRequest('trading', get('/v2/orders/o-1'))).to.deep.equal([
      'GET /v2/orders/{order_id}: path parameter order_id must match format "uuid"',
    ]);
    expect(checkRequest('trading', get('/v3/clock', { time: 'yesterday' }))).to.deep.equal([
      'GET /v3/clock: query parameter time must match format "date-time"',
    ]);
  });

  it('reports a required query parameter left out, and one the document does not have', () => {
    expect(checkRequest('trading', get('/v2/orders:by_client_order_id'))).to.deep.equal([
      'GET /v2/orders:by_client_order_id: query parameter client_order_id is required',
    ]);
    expect(checkRequest('market-data', get('/v2/stocks/trades/latest', { symbols: 'AAPL', feed: 'nasdaq', limit: '1' }))).to.deep.equal([
      'GET /v2/stocks/trades/latest: query parameter feed must be one of "delayed_sip", "iex", "otc", "sip", "boats", "overnight"',
      'GET /v2/stocks/trades/latest: query parameter limit is not documented',
    ]);
  });
});

describe("alpaca-contract: answers against Alpaca's published documents", () => {
  it("passes the documents' own examples of an account and of latest trades", () => {
    expect(checkResponse('trading', 'GET', '/v2/account', 200, example('trading-api.json', '/v2/account'))).to.deep.equal([]);
    const trades = example('market-data-api.json', '/v2/stocks/trades/latest', 'trades');
    expect(checkResponse('market-data', 'GET', '/v2/stocks/trades/latest', 200, trades)).to.deep.equal([]);
  });

  it('reports a documented answer whose body does not match its schema', () => {
    const clock = { timestamp: '2026-01-05T15:00:00Z', is_open: 'yes', next_open: '2026-01-06T14:30:00Z' };
    expect(checkResponse('trading', 'GET', '/v2/clock', 200, clock)).to.deep.equal([
      'GET /v2/clock 200: body/next_close is required',
      'GET /v2/clock 200: body/is_open must be boolean',
    ]);
  });

  it('holds a success status to the document: an undocumented one, and a body on a 204, are reported', () => {
    expect(checkResponse('trading', 'DELETE', `/v2/orders/${ORDER_ID}`, 204, undefined)).to.deep.equal([]);
    expect(checkResponse('trading', 'DELETE', `/v2/orders/${ORDER_ID}`, 204, {})).to.deep.equal([
      'DELETE /v2/orders/{order_id} 204: the answer has a body the document does not describe',
    ]);
    expect(checkResponse('trading', 'POST', '/v2/orders', 201, {})).to.deep.equal([
      'POST /v2/orders 201: the status is not documented (200, 403, 422 are)',
    ]);
  });

  it("takes any error status whose body is Alpaca's { code, message }, and reports one that is not", () => {
    expect(checkResponse('trading', 'GET', '/v2/account', 401, { code: 40110000, message: 'request is not authorized' })).to.deep.equal([]);
    expect(
      checkResponse('trading', 'POST', '/v2/orders', 422, { code: 40010001, message: 'client_order_id must be unique' }),
    ).to.deep.equal([]);
    expect(checkResponse('market-data', 'GET', '/v2/stocks/trades/latest', 503, { message: 'down' })).to.deep.equal([
      'GET /v2/stocks/trades/latest 503: body/code is required',
    ]);
  });
});
