import { availableParallelism } from 'node:os';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.js';
import { tracingRequested } from '../../src/env.js';

describe('configuration from the environment', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).to.include({
      port: 3000,
      baseUrl: 'http://localhost:3000',
      rateLimitPerMinute: 300,
      tokenRateLimitPerMinute: 30,
      tokenTtlSeconds: 3600,
    });
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.dataDir).to.match(/\.data$/);
  });

  const bad: [string, string, RegExp][] = [
    ['PORT', 'eighty', /whole number/],
    ['PORT', '70000', /between 0 and 65535/],
    ['BASE_URL', 'not a url', /absolute URL/],
    ['DATABASE_URL', 'mysql://x', /postgres/],
    ['LOG_LEVEL', 'loud', /one of/],
    ['SIGNING_KEY_PEM', 'secret', /PKCS#8/],
    ['PAPER_STARTING_CASH', '-5', /amount/],
    ['BCRYPT_COST', '3', /between 4 and 15/],
    ['TRUST_PROXY', 'true', /hop count/],
    ['WEB_CONCURRENCY', '2', /embedded database serves one process; set DATABASE_URL/],
    ['DATABASE_QUERY_TIMEOUT_MS', '0', /between 100 and/],
    ['DATABASE_PREPARED_STATEMENTS', '-1', /whole number/],
    ['DATABASE_PREPARED_STATEMENTS', '10001', /between 0 and 10000/],
    ['WARM_UP_APPROVALS', '5001', /between 0 and 5000/],
    ['RATE_LIMIT_REDIS_TIMEOUT_MS', '0', /between 1 and 5000/],
    ['RATE_LIMIT_REDIS_BREAKER_MS', 'soon', /whole number/],
    ['TOKEN_CLIENT_FAILURE_LIMIT_PER_MINUTE', '0', /between 1 and/],
    ['MCP_ALLOWED_ORIGINS', 'assistant.example', /http:\/\/ or https:\/\/ origins/],
    ['MCP_ALLOWED_ORIGINS', 'https://ok.example, ftp://files.example', /"ftp:\/\/files.example"/],
    ['MCP_ALLOWED_ORIGINS', 'https://assistant.example/app', /not an origin .*"https:\/\/assistant.example"/],
    ['COMPUTE_THREADS', '0', /between 1 and 64/],
    ['COMPUTE_QUEUE_LENGTH', '-1', /whole number/],
    ['COMPUTE_QUEUE_LENGTH', '10001', /between 0 and 10000/],
    ['CPU_BUDGET_MS_PER_MINUTE', '0', /between 1 and/],
    ['ALPACA_PAPER_URL', 'paper-api.alpaca.markets', /absolute URL/],
    ['ALPACA_LIVE_URL', 'ftp://api.alpaca.markets', /http:\/\/ or https:\/\//],
    ['ALPACA_DATA_URL', 'wss://data.alpaca.markets', /http:\/\/ or https:\/\//],
    ['ALPACA_LIVE_ENABLED', 'yes', /true or false/],
    ['BROKER_TIMEOUT_MS', '50', /between 100 and/],
    ['BROKER_SUBMIT_WINDOW_MS', '4000', /at least BROKER_TIMEOUT_MS \(5000\)/],
    ['BROKER_RECONCILE_INTERVAL_MS', 'often', /whole number/],
  ];
  for (const [variable, value, message] of bad) {
    it(`names ${variable} when it is ${JSON.stringify(value)}`, () => {
      expect(() => loadConfig({ [variable]: value }))
        .to.throw(ConfigError)
        .with.property('message')
        .that.matches(new RegExp(`^${variable}: `))
        .and.matches(message);
    });
  }

  it('reads MCP_ALLOWED_ORIGINS as serialised origins (none by default)', () => {
    expect(loadConfig({}).mcpAllowedOrigins).to.deep.equal([]);
    expect(
      loadConfig({ MCP_ALLOWED_ORIGINS: ' https://Assistant.example/ ,http://localhost:6274,https://a.example:443' }).mcpAllowedOrigins,
    ).to.deep.equal(['https://assistant.example', 'http://localhost:6274', 'https://a.example']);
  });

  it('reads TRUST_PROXY as a hop count or a list of proxy addresses', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).to.equal(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).to.equal('loopback, 10.0.0.0/8');
    expect(loadConfig({}).trustProxy).to.equal(false);
  });

  it('runs several workers only on PostgreSQL, and has database timeouts that fire by default', () => {
    expect(loadConfig({ WEB_CONCURRENCY: '2', DATABASE_URL: 'postgres://db/app' }).webConcurrency).to.equal(2);
    expect(loadConfig({}).databaseTimeouts).to.deep.equal({
      connectMs: 2000,
      queryMs: 4000,
      statementMs: 3000,
      idleInTransactionMs: 10_000,
    });
  });

  it('bounds every Redis command of the rate limits and limits failed authentications per client address and per client by default', () => {
    expect(loadConfig({})).to.include({
      rateLimitRedisTimeoutMs: 100,
      rateLimitRedisBreakerMs: 5000,
      tokenFailureLimitPerMinute: 10,
      tokenClientFailureLimitPerMinute: 100,
    });
  });

  it('sizes the compute pool to leave the event loop a core (each WEB_CONCURRENCY process has its own), and gives each client 10 s of CPU a minute', () => {
    const cores = availableParallelism();
    expect(loadConfig({})).to.include({ computeThreads: Math.max(1, cores - 1), computeQueueLength: 64, cpuBudgetMsPerMinute: 10_000 });
    expect(loadConfig({ WEB_CONCURRENCY: '2', DATABASE_URL: 'postgres://db/app' }).computeThreads).to.equal(
      Math.max(1, Math.floor(cores / 2) - 1),
    );
    expect(loadConfig({ COMPUTE_THREADS: '3', COMPUTE_QUEUE_LENGTH: '0', CPU_BUDGET_MS_PER_MINUTE: '500' })).to.include({
      computeThreads: 3,
      computeQueueLength: 0,
      cpuBudgetMsPerMinute: 500,
    });
  });

  it('connects brokers to Alpaca by default, paper only, each call bounded; the stream is /stream on the trading URL', () => {
    const { alpaca, ...rest } = loadConfig({}).brokers;
    expect(alpaca).to.deep.equal({
      paper: { tradingUrl: 'https://paper-api.alpaca.markets', streamUrl: 'wss://paper-api.alpaca.markets/stream' },
      live: { tradingUrl: 'https://api.alpaca.markets', streamUrl: 'wss://api.alpaca.markets/stream' },
      dataUrl: 'https://data.alpaca.markets',
      liveEnabled: false,
    });
    expect(rest).to.deep.equal({
      credentialsKey: undefined,
      timeoutMs: 5000,
      submitWindowMs: 120_000,
      reconcileIntervalMs: 30_000,
      statusCacheMs: 5000,
    });
    const local = loadConfig({ ALPACA_PAPER_URL: 'http://127.0.0.1:4010/', ALPACA_LIVE_ENABLED: 'true' }).brokers.alpaca;
    expect(local.paper).to.deep.equal({ tradingUrl: 'http://127.0.0.1:4010', streamUrl: 'ws://127.0.0.1:4010/stream' });
    expect(local.liveEnabled).to.equal(true);
  });

  it('strips a trailing slash from BASE_URL so URLs built from it are canonical', () => {
    expect(loadConfig({ BASE_URL: 'https://api.example.com/' }).baseUrl).to.equal('https://api.example.com');
  });
});

describe('tracing from the OTEL_* variables', () => {
  it('asks for traces when an OTLP endpoint or a traces exporter is set, and not otherwise', () => {
    expect(tracingRequested({})).to.equal(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'ias', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).to.equal(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.equal(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).to.equal(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).to.equal(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.equal(false);
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).to.equal(false);
  });

  it('refuses a protocol the SDK does not speak, naming the variable', () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).to.equal(false);
    expect(() => tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'json' }))
      .to.throw(ConfigError)
      .with.property('variable', 'OTEL_EXPORTER_OTLP_PROTOCOL');
    expect(() => tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http' })).to.throw(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/);
  });
});
