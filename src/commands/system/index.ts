import { defineNoun } from '../framework/declare.js';

export const systemNoun = defineNoun('what the appliance is: release, uptime, boot', {
  info: () => import('./info.js'),
  facts: () => import('./facts.js'),
});
