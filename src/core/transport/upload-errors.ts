import { StorError } from '../errors.js';

/**
 * The 403 of the upload endpoint, explained. On 25.10.1 the gate is the SYS_ADMIN account
 * attribute, not the FILESYSTEM_DATA_WRITE role the method declares (SPEC §3, seed §4.2).
 */
export function uploadForbidden(where: string, body: string): StorError {
  return new StorError('denied', 'UPLOAD_FORBIDDEN', `${where} refused the upload: ${body || '403: Forbidden'}`, {
    hint:
      'on 25.10.1 the upload endpoint admits only administrator accounts (SYS_ADMIN: members of builtin_administrators); ' +
      'FILESYSTEM_DATA_WRITE or other filesystem roles alone do not pass it. Upload with an administrator key, ' +
      'or (on `stor serve`) start the server with --upload-gate role',
  });
}

/** Any other refusal by the endpoint, by HTTP status. */
export function uploadRefused(where: string, status: number, body: string): StorError {
  if (status === 401) return new StorError('auth', 'UPLOAD_UNAUTHORIZED', `${where} did not accept the API key for the upload (${body || '401'})`);
  if (status === 403) return uploadForbidden(where, body);
  return new StorError('failed', 'UPLOAD_REFUSED', `${where} refused the upload: HTTP ${status}${body ? ` ${body}` : ''}`);
}
