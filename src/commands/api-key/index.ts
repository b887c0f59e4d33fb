import { defineNoun } from '../shared/declare.js';

export const apiKeyNoun = defineNoun({
  summary: 'create, list and revoke API keys (a key is shown only when created)',
  verbs: {
    list: () => import('./list.js').then((m) => m.apiKeyListCommand),
    create: () => import('./create.js').then((m) => m.apiKeyCreateCommand),
    revoke: () => import('./revoke.js').then((m) => m.apiKeyRevokeCommand),
  },
});
