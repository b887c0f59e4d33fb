import { defineNoun } from '../framework/declare.js';

export const apiKeyNoun = defineNoun('create, list and revoke API keys (a key is shown only when created)', {
  list: () => import('./list.js'),
  create: () => import('./create.js'),
  revoke: () => import('./revoke.js'),
});
