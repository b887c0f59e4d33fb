import { describe, expect, it, vi } from 'vitest';
import { CONTRACT } from '../../../../src/core/contract/index.js';

// The handler table loads a file when a method of its namespace is first called
// (src/core/appliance/methods/index.ts). Each test reads a fresh copy of the table's module.
const freshTable = async () => {
  vi.resetModules();
  return import('../../../../src/core/appliance/methods/index.js');
};

describe('the handler table, loaded a file at a time', () => {
  it('loads no handler file at load, and only the called namespace’s file for a call', async () => {
    const table = await freshTable();
    expect(table.loadedHandlerFiles()).toEqual([]);
    const { base } = await table.handlersOf('auth.me');
    expect(base?.name).toBe('auth.me');
    expect(table.loadedHandlerFiles()).toEqual(['auth']);
    const { openTestAppliance } = await import('../../../helpers/appliance.js');
    const t = await openTestAppliance();
    await t.call(t.admin, 'system.version_short');
    expect(table.loadedHandlerFiles()).toEqual(['auth', 'system']);
  });

  it('holds every handler in the file its namespace names, one file per method', async () => {
    const { allHandlers, namespaceFileOf } = await freshTable();
    const { methods, release } = await allHandlers();
    const names = [...new Set([...methods.keys(), ...release.keys()])];
    const byFile = new Map<string, string[]>();
    for (const name of names) {
      const file = namespaceFileOf(name);
      expect(file, name).toBeDefined();
      byFile.set(file!, [...(byFile.get(file!) ?? []), name]);
    }
    for (const [file, inFile] of byFile) {
      const table = await freshTable();
      for (const name of inFile) {
        const h = await table.handlersOf(name);
        expect(h.base ?? h.release[0], name).toBeDefined();
      }
      // Found in its own file: no other file was loaded to look for it.
      expect(table.loadedHandlerFiles(), file).toEqual([file]);
    }
    expect(Object.keys(CONTRACT).filter((name) => !methods.has(name))).toEqual([]);
  });

  it('starts calls in the order they came while a file loads', async () => {
    await freshTable();
    const { openTestAppliance } = await import('../../../helpers/appliance.js');
    const t = await openTestAppliance();
    const started: string[] = [];
    const gate = { beforeCall: (m: { name: string }) => void started.push(m.name) };
    // group.query's file is not loaded yet; core.ping's is (the login loaded auth, and this core).
    await t.dispatcher.call(t.admin, 'core.ping', [], undefined, gate);
    started.length = 0;
    await Promise.all([
      t.dispatcher.call(t.admin, 'group.query', [], undefined, gate),
      t.dispatcher.call(t.admin, 'core.ping', [], undefined, gate),
    ]);
    expect(started).toEqual(['group.query', 'core.ping']);
  });
});
