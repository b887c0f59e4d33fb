import type { Dispatcher } from 'undici';

/**
 * undici's `request(url, { dispatcher, … })`, asked of the dispatcher itself: the bundle carries
 * undici's Agent with its request API but not the package index's top-level `request`, whose
 * module also loads fetch, WebSocket, the caches and the mocks (scripts/undici-entry.cjs).
 */
export function requestOn(
  dispatcher: Dispatcher,
  url: URL | string,
  options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>,
): Promise<Dispatcher.ResponseData> {
  const { origin, pathname, search } = typeof url === 'string' ? new URL(url) : url;
  return dispatcher.request({ ...options, origin, path: `${pathname}${search}` });
}
