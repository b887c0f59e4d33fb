import { nfsContract, nfsUpdate } from '../nfs.js';
import { method, service } from '../service.js';

// What 26.0 changed in nfs.* (`git diff TS-25.10.1:MW/api/v25_10_1/nfs.py stable/26:MW/api/v26_0_0/nfs.py`):
// the models are the same (NfsEntry renamed NFSEntry), but 26's `single_argument_args` gives the
// argument a default_factory when no field of its model is required (stable/26 MW/api/base/model.py:274-286),
// as NFSUpdateArgs' are not (ForUpdateMetaclass, MW/api/v26_0_0/nfs.py:85-89): nfs.update may be
// called without it, changing nothing. The rest is 25.10.1's.

const base = nfsContract['nfs.update'];

export const nfsContract26 = service('nfs', {
  update: method({
    summary: base.summary,
    access: base.access,
    params: () => [{ name: 'nfs_update', schema: nfsUpdate(), default: () => ({}), factory: true }],
    result: () => base.result,
  }),
});
