import { defineNoun } from '../shared/declare.js';

export const systemNoun = defineNoun({
  summary: 'what the appliance is: release, uptime, boot',
  verbs: {
    info: () => import('./info.js').then((m) => m.systemInfoCommand),
  },
});
