/**
 * SSH keys made for the tests by OpenSSH 9.2p1's ssh-keygen (Debian 12, as on 25.10), with what it
 * prints for them: throwaway keys that open nothing.
 */

/** `ssh-keygen -t ed25519 -N "" -C backup@source`. */
export const ED25519_PRIVATE = `-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACChMuNB/SDKrgMxkFBEm1bynbBnJnvHx99j5pmjyqB2qwAAAJDGsNKCxrDS
ggAAAAtzc2gtZWQyNTUxOQAAACChMuNB/SDKrgMxkFBEm1bynbBnJnvHx99j5pmjyqB2qw
AAAEDRvU0U/BXbWnNdM1kTOeXDk+zgQU+h/vCHPeC+sLLXIqEy40H9IMquAzGQUESbVvKd
sGcme8fH32PmmaPKoHarAAAADWJhY2t1cEBzb3VyY2U=
-----END OPENSSH PRIVATE KEY-----
`;

/** Its `.pub`, which is also what `ssh-keygen -y -f` prints for it. */
export const ED25519_PUBLIC =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKEy40H9IMquAzGQUESbVvKdsGcme8fH32PmmaPKoHar backup@source\n';

/** A line of the private key's body: what must never reach a log. */
export const ED25519_PRIVATE_BODY = 'AAAEDRvU0U/BXbWnNdM1kTOeXDk+zgQU+h/vCHPeC+sLLXIqEy40H9IMquAzGQUESbVvKd';

/** Another key's public line (`ssh-keygen -t ed25519 -N "" -C ""`). */
export const OTHER_PUBLIC = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAjRCYZG3T/ylHnCChnGRB53gpB6NcfVANN9t9zKY/W9';

/** `ssh-keygen -t ed25519 -N pw`: encrypted (aes256-ctr, bcrypt). */
export const ED25519_ENCRYPTED = `-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABCMuCcpfG
5dTKwIJ6Q5tCUHAAAAEAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIHJtCu/0LEl8ObbN
SzmldPN6wRjY+0c5pRHjtAwAQEadAAAAkKDC/qV2JRazQJA7fFAl85phojiIPlfc31T9od
26APQ9n+Nn0QLxeqbnbku9dtIxUnKDd1JpVveTky6yiCvBbEHOeVG/+Z98RlpDFmFsLUby
fmQNwSfNjgmgy/KhMATlsmn8OXDq0XrbgEJlZS1dQoSPNwdRZ1mEdTqeLYTjEzubdHtvtv
DuStHR/blo8JfYLA==
-----END OPENSSH PRIVATE KEY-----
`;

/** The bits of an `ssh-rsa` public key line's modulus (its blob: the type, mpint e, mpint n; RFC 4253 §6.6). */
export function rsaModulusBits(publicLine: string): number {
  const blob = Buffer.from(publicLine.split(' ')[1]!, 'base64');
  let at = 0;
  const next = () => {
    const length = blob.readUInt32BE(at);
    const field = blob.subarray(at + 4, at + 4 + length);
    at += 4 + length;
    return field;
  };
  next();
  next();
  const n = next();
  return (n[0] === 0 ? n.length - 1 : n.length) * 8;
}
