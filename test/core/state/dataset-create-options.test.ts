import { describe, expect, it } from 'vitest';
import { StorError } from '../../../src/core/errors.js';
import { parseStateFile } from '../../../src/core/state/index.js';

/**
 * A dataset's `properties` are spread into pool.dataset.create's params (state/datasets.ts), next
 * to the name stor matches it by and the mark it owns it by. A key that is a create option, not a
 * ZFS property (MW/api/v25_10_1/pool_dataset.py:191-290: name, type, user_properties,
 * create_ancestors, the volume-only volsize/volblocksize/sparse/force_size, the encryption
 * options), made `properties: {name: …}` create another dataset than the one named, and
 * `properties: {type: VOLUME, volsize: 1048576}` a zvol that plan then never matched and
 * `--prune` could not remove (every update refused). Refused with the file's path instead.
 */
describe('a state file dataset: properties hold ZFS properties, never create options', () => {
  const refusal = (properties: string) => {
    try {
      parseStateFile(`stor_state: 1\ndatasets:\n  - name: tank/a\n    properties: ${properties}\n`, 'state.yaml');
    } catch (err) {
      expect(err).toBeInstanceOf(StorError);
      expect((err as StorError).code).toBe('BAD_STATE_FILE');
      return (err as Error).message;
    }
    throw new Error('accepted');
  };

  it.each([
    'name: tank/b',
    'type: VOLUME',
    'volsize: 1048576',
    'user_properties: x',
    'create_ancestors: true',
    'sparse: true',
    'encryption: true',
    'inherit_encryption: false',
  ])('refuses {%s} by its path', (entry) => {
    const key = entry.split(':')[0];
    expect(refusal(`{ ${entry} }`)).toContain(`datasets[0].properties.${key}: a create option, not a ZFS property`);
  });

  it('takes ZFS properties and user properties as before', () => {
    const file = parseStateFile(
      'stor_state: 1\ndatasets:\n  - name: tank/a\n    properties: { compression: lz4, quota: 10G, "org.example:owner": ops, atime: false }\n',
      'f',
    );
    expect(file.datasets?.[0]?.properties).toEqual({
      compression: 'lz4',
      quota: '10G',
      'org.example:owner': 'ops',
      atime: false,
    });
  });
});
