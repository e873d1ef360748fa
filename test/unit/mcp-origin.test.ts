import { expect } from 'chai';
import { originGuard } from '../../src/mcp/origin.js';

describe('the MCP Origin and Host guard', () => {
  it('on a public BASE_URL checks Origin only: its own origin, the allowed ones, or none', () => {
    const check = originGuard('https://api.example.com', ['https://assistant.example']);
    expect(check({ host: 'api.example.com' })).to.equal(undefined);
    expect(check({ host: 'internal-lb:8080', origin: 'https://api.example.com' })).to.equal(undefined);
    expect(check({ host: 'api.example.com', origin: 'https://assistant.example' })).to.equal(undefined);
    expect(check({ host: 'api.example.com', origin: 'HTTPS://API.EXAMPLE.COM:443' })).to.equal(undefined);
    for (const origin of ['https://evil.example', 'http://api.example.com', 'https://api.example.com:8443', 'null', '', 'not a url']) {
      expect(check({ host: 'api.example.com', origin })?.slug, origin).to.equal('origin-not-allowed');
    }
  });

  it('on a loopback BASE_URL also wants a loopback Host, whatever the port', () => {
    for (const base of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000']) {
      const check = originGuard(base, []);
      for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'LOCALHOST:8080', 'localhost'])
        expect(check({ host }), `${base} ${host}`).to.equal(undefined);
      for (const host of ['evil.example:3000', 'localhost.evil.example', '127.0.0.2:3000', undefined])
        expect(check({ host })?.slug, `${base} ${host}`).to.equal('origin-not-allowed');
    }
  });
});
