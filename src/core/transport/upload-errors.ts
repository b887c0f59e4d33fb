import { StorError } from '../errors.js';
import { E } from '../error-catalogue.js';
import { rateLimited } from './network-errors.js';

/** The 403 of the upload endpoint; `stor upload` explains it by the gate the target applies. */
export function uploadForbidden(where: string, body: string): StorError {
  return new StorError(E.UPLOAD_FORBIDDEN, `${where} refused the upload: ${body || '403: Forbidden'}`, {
    hint: 'the identity you upload with may not call filesystem.put here (on 25.10.1 that takes FULL_ADMIN)',
  });
}

/** Any other refusal by the endpoint, by HTTP status. */
export function uploadRefused(where: string, status: number, body: string): StorError {
  if (status === 401)
    return new StorError(
      E.UPLOAD_UNAUTHORIZED,
      `${where} did not accept the API key for the upload (${body || '401'})`,
    );
  if (status === 403) return uploadForbidden(where, body);
  if (status === 429) return rateLimited(where, 'uploads', body);
  return new StorError(E.UPLOAD_REFUSED, `${where} refused the upload: HTTP ${status}${body ? ` ${body}` : ''}`);
}
