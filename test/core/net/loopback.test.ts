import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../../src/core/net/loopback.js';
import { assertSecretMayTravel, parseEndpoint } from '../../../src/core/transport/endpoint.js';

describe('where a key may travel in clear', () => {
  it('knows loopback addresses and the name localhost, and nothing else', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of [
      '10.1.2.3',
      '192.168.1.1',
      '0.0.0.0',
      'nas.localhost',
      'localhost.example.com',
      '128.0.0.1',
      '::2',
    ])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it('derives the appliance URLs and refuses ws:// and http:// to other hosts', () => {
    expect(parseEndpoint('nas.example.com').rpcWs.href).toBe('wss://nas.example.com/api/current');
    expect(parseEndpoint('https://nas:8443/api/current').base.href).toBe('https://nas:8443/');
    expect(() => assertSecretMayTravel(parseEndpoint('ws://127.0.0.1:6000'), 'an API key')).not.toThrow();
    expect(() => assertSecretMayTravel(parseEndpoint('wss://10.0.0.5'), 'a password')).not.toThrow();
    expect(() => assertSecretMayTravel(parseEndpoint('http://10.0.0.5'), 'an API key')).toThrow(
      /refusing to send an API key in clear/,
    );
    expect(() => assertSecretMayTravel(parseEndpoint('ws://10.0.0.5'), 'a password')).toThrow(
      /refusing to send a password in clear/,
    );
  });
});
