import { describe, expect, it } from 'vitest';
import { NFS_SHARE_DEFAULTS, sharingNfsContract } from '../../../src/core/contract/sharing-nfs.js';
import { SMB_SHARE_DEFAULTS, sharingSmbContract } from '../../../src/core/contract/sharing-smb.js';

// The defaults stor's verbs and desired state compare with are the ones the create models fill
// in (MW/api/v25_10_1/nfs.py:130-173, smb.py:598-702): a share made without a field has them.
describe('share defaults', () => {
  it('NFS_SHARE_DEFAULTS are what sharing.nfs.create fills in for a share given only its path', () => {
    const data = sharingNfsContract['sharing.nfs.create'].params[0]!.schema.parse({ path: '/mnt/tank/a' });
    expect(data).toMatchObject(NFS_SHARE_DEFAULTS);
  });

  it('SMB_SHARE_DEFAULTS are what sharing.smb.create fills in for a share given only its name and path', () => {
    const data = sharingSmbContract['sharing.smb.create'].params[0]!.schema.parse({ name: 'a', path: '/mnt/tank/a' });
    expect(data).toMatchObject(SMB_SHARE_DEFAULTS);
  });
});
