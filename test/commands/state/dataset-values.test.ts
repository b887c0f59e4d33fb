/**
 * A desired-state file's dataset properties, written as YAML gives them (numbers, booleans, sizes,
 * words in any case), compared with a 25.10.1 entry as the appliance stores them: what already
 * holds is no change, so a plan after an apply is empty (docs/STATE.md "Datasets, kept apart").
 */
import { describe, expect, it } from 'vitest';
import { desiredOf, diffDataset, predictDatasetRefusal } from '../../../src/commands/state/datasets.js';
import { planChanges, updateParams } from '../../../src/commands/dataset/update-plan.js';
import type { PoolDatasetEntry } from '../../../src/core/contract/pool-dataset.js';
import { parseStateFile } from '../../../src/core/state/index.js';

const GiB = 1024 ** 3;
const p = (value: string | null, parsed: unknown, source = 'LOCAL') => ({
  parsed,
  rawvalue: String(parsed),
  value,
  source,
  source_info: null,
});

/** How 25.10.1 shows the properties (MW/plugins/pool_/dataset_query_utils.py normalize_zfs_properties): copies' value is text, its parsed an int. */
const entry: PoolDatasetEntry = {
  id: 'tank/a',
  type: 'FILESYSTEM',
  copies: p('2', 2),
  readonly: p('ON', true),
  atime: p('OFF', false),
  quota: p('10 GiB', 10 * GiB),
  compression: p('ZSTD', 'zstd'),
  recordsize: p('128K', 131072),
  special_small_block_size: p('0', '0', 'DEFAULT'),
  sync: p('STANDARD', 'standard', 'DEFAULT'),
  used: p('0 bytes', 0, 'NONE'),
  user_properties: { quota_warning: p('80', '80') },
};

const fileDataset = (properties: string) =>
  parseStateFile(`stor_state: 1\ndatasets:\n  - name: tank/a\n    properties: { ${properties} }\n`, 'f.yaml')
    .datasets![0]!;

describe('desired-state dataset values', () => {
  it('compare as the appliance stores them: numbers, booleans, sizes and words in any case that hold are no change', () => {
    const same = fileDataset(
      'copies: 2, readonly: true, atime: off, quota: 10G, compression: zstd, recordsize: 131072, special_small_block_size: 0, quota_warning: 80',
    );
    expect(diffDataset(same, entry)).toEqual([]);
    expect(
      diffDataset(
        fileDataset('copies: "2", readonly: "on", quota: 10737418240, compression: ZSTD, recordsize: 128k'),
        entry,
      ),
    ).toEqual([]);
  });

  it('send what differs in the terms the model takes: ints as numbers, ON/OFF words, bytes', () => {
    const want = fileDataset('copies: "3", readonly: false, quota: 20G, quota_warning: 90, recordsize: 1048576');
    expect(updateParams(planChanges(entry, desiredOf(want)))).toEqual({
      quota: 20 * GiB,
      readonly: 'OFF',
      recordsize: '1M',
      copies: 3,
      quota_warning: 90,
    });
    expect(predictDatasetRefusal(want, entry)).toBeNull();
  });

  it('take inherit as an inherit: a change only while the dataset sets its own value', () => {
    expect(
      updateParams(
        planChanges(entry, desiredOf(fileDataset('compression: inherit, sync: INHERIT, quota_warning: inherit'))),
      ),
    ).toEqual({ compression: 'INHERIT', quota_warning: 'INHERIT' });
    expect(diffDataset(fileDataset('sync: inherit'), entry)).toEqual([]);
  });

  it('predict the refusal of a create as of an update, before anything is applied', () => {
    expect(predictDatasetRefusal(fileDataset('recordsize: 3K'), undefined)?.triples).toEqual([
      ['pool_dataset_create.recordsize', "'3K' is an invalid recordsize.", 22],
    ]);
    expect(predictDatasetRefusal(fileDataset('copies: 9'), undefined)?.message).toContain(
      "cannot create 'tank/a': 'copies' must be one of '1 | 2 | 3'",
    );
    expect(predictDatasetRefusal(fileDataset('copies: 9'), entry)?.message).toContain(
      "cannot set property for 'tank/a': 'copies' must be one of '1 | 2 | 3'",
    );
    expect(predictDatasetRefusal(fileDataset('reservation: 11G'), entry)?.message).toContain(
      'size is greater than available space',
    );
    expect(predictDatasetRefusal(fileDataset('copies: 2, recordsize: 1M, quota: 10G'), undefined)).toBeNull();
  });
});
